//! Step 2 of the block distribution (module `distribute`): every full block
//! to a slot of its bucket, on one thread or on many, always with the same
//! result.
//!
//! **Where each block goes** is decided by one fixed sequential procedure,
//! the block permutation of IPS4o (M. Axtmann, S. Witt, D. Ferizovic and
//! P. Sanders, "In-Place Parallel Super Scalar Samplesort", ESA 2017;
//! [`ips4o_order`]): bucket `b`'s blocks go to the slots from
//! `first_slot[b]` on; each bucket's slots are read from the back; a block
//! is carried to the next free slot of its bucket, and a block still unread
//! there is picked up in exchange, until a carried block lands in an empty
//! slot. On one thread the blocks move as the procedure goes
//! ([`permute_in_order`]: each chain starts at a block read in order, which
//! the hardware streams in).
//!
//! **On several threads**, the procedure first runs on the tags alone
//! ([`Moves::plan`]: a few byte reads per block, a small fraction of moving
//! it), giving every full slot its destination `to[slot]`. The destinations
//! form chains that end in an empty slot (starting at a full slot that is
//! no block's destination) and cycles. Jobs start at every chain start and
//! at every `CUT`-th slot (a "cut"); a job carries its first block along
//! its chain, exchanging it at each slot, until it reaches an empty slot,
//! its own start, or a cut. A cut that no job has started yet is taken over
//! by the arriving job (an atomic claim per cut); a started cut's block has
//! been picked up, so the arriving job puts its carried block there and
//! ends. Each slot is thus handled by exactly one job, whatever the threads
//! and their timing; a cycle without a cut is left to a final sweep. The
//! result only depends on the destinations, so `par_shuffle` still equals
//! `shuffle`.

use alloc::vec;
use alloc::vec::Vec;
use core::mem::MaybeUninit;
use core::ptr;
use core::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use crate::prefetch::prefetch_at;

/// `to[slot]` of a slot without a full block.
const EMPTY: u32 = u32::MAX;
/// `to[slot]` of a full slot whose block has been picked up (or, during
/// planning, not yet given a destination).
const DONE: u32 = u32::MAX - 1;
/// Every `CUT`-th slot starts a job: chains and cycles are split into
/// pieces of about this many blocks (a few hundred KiB of moves each), so
/// that the threads share them evenly.
pub(crate) const CUT: usize = 512;

/// How many exchanges ahead along its chain a block is hinted into the
/// cache.
const LOOKAHEAD: usize = 4;

/// States of a cut.
const CUT_FREE: u8 = 0;
/// Its own job is picking up its block.
const CUT_READING: u8 = 1;
/// Its own job has picked up its block: the slot may be written.
const CUT_TAKEN: u8 = 2;
/// A job arriving along the chain took the cut over.
const CUT_MERGED: u8 = 3;

/// Which block slots hold a full block after classification.
pub(crate) struct SlotMap {
    pub(crate) block: usize,
    pub(crate) slots_per_stripe: usize,
    pub(crate) stripe_blocks: Vec<usize>,
    /// Block slots entirely inside the array.
    pub(crate) complete: usize,
}

impl SlotMap {
    #[inline]
    fn is_full(&self, slot: usize) -> bool {
        slot < self.complete
            && slot % self.slots_per_stripe < self.stripe_blocks[slot / self.slots_per_stripe]
    }
}

/// One event of IPS4o's block permutation, in its order.
enum Event {
    /// The block at this slot is in place already.
    Stays(usize),
    /// The block at this slot is picked up: a chain starts.
    PickUp(usize),
    /// The carried block goes to this slot, whose unread block is picked up
    /// in exchange.
    Exchange(usize),
    /// The carried block goes to this slot (empty, already read, or the
    /// overflow block past the array: `complete`); the chain ends.
    Put(usize),
    /// This slot's block is needed soon (a cache hint; only with `HINTS`).
    Soon(usize),
}

/// Runs IPS4o's block permutation (the module documentation) on the tags,
/// telling `visit` each event in order, and returns where each bucket's
/// blocks end (`first_slot[b] + blocks of b`). With `HINTS`, also the
/// slots that the coming events need: the next slot read, and the carried
/// block's next two destinations (known from the tags).
fn ips4o_order<const HINTS: bool>(
    tags: &[u8],
    slots: &SlotMap,
    first_slot: &[usize],
    mut visit: impl FnMut(Event),
) -> Vec<usize> {
    let complete = slots.complete;
    let k = first_slot.len() - 1;
    let mut write: Vec<usize> = first_slot[..k].to_vec();
    let mut read_end: Vec<usize> = first_slot[1..]
        .iter()
        .map(|&end| end.min(complete))
        .collect();
    for primary in 0..k {
        while read_end[primary] > write[primary] {
            read_end[primary] -= 1;
            let source = read_end[primary];
            if !slots.is_full(source) {
                continue;
            }
            let mut bucket = usize::from(tags[source]);
            if bucket == primary && write[primary] == source {
                write[primary] += 1;
                visit(Event::Stays(source));
                continue;
            }
            if HINTS && source > 0 {
                visit(Event::Soon(source - 1));
            }
            visit(Event::PickUp(source));
            loop {
                let dest = write[bucket];
                write[bucket] += 1;
                debug_assert!(dest < first_slot[bucket + 1], "bucket overfull");
                if HINTS {
                    let mut ahead = dest;
                    for _ in 0..2 {
                        if ahead >= complete {
                            break;
                        }
                        ahead = write[usize::from(tags[ahead])];
                        if ahead < complete {
                            visit(Event::Soon(ahead));
                        }
                    }
                }
                if dest < read_end[bucket] && slots.is_full(dest) {
                    visit(Event::Exchange(dest));
                    bucket = usize::from(tags[dest]);
                } else {
                    visit(Event::Put(dest));
                    break;
                }
            }
        }
    }
    write
}

/// Step 2 on the calling thread: the blocks move as [`ips4o_order`] goes.
///
/// # Safety
/// `data` points to the `complete * block` elements of the node and
/// `overflow` to a block, and nothing else accesses them meanwhile.
pub(crate) unsafe fn permute_in_order<T>(
    tags: &[u8],
    slots: &SlotMap,
    first_slot: &[usize],
    data: *mut T,
    overflow: *mut T,
) {
    let block = slots.block;
    let complete = slots.complete;
    let slot_ptr = |slot: usize| data.wrapping_add(slot * block);
    let block_bytes = block * size_of::<T>();
    let mut carry: Vec<MaybeUninit<T>> = Vec::with_capacity(block);
    let carry_ptr = carry.as_mut_ptr().cast::<T>();
    ips4o_order::<true>(tags, slots, first_slot, |event| match event {
        Event::Stays(_) => {}
        // SAFETY (all four): complete slots of the node, or the overflow
        // block, and `carry`, a separate buffer of a block.
        Event::PickUp(slot) => unsafe {
            ptr::copy_nonoverlapping(slot_ptr(slot), carry_ptr, block)
        },
        Event::Exchange(slot) => unsafe {
            ptr::swap_nonoverlapping(carry_ptr, slot_ptr(slot), block)
        },
        Event::Put(slot) if slot >= complete => unsafe {
            ptr::copy_nonoverlapping(carry_ptr, overflow, block)
        },
        Event::Put(slot) => unsafe { ptr::copy_nonoverlapping(carry_ptr, slot_ptr(slot), block) },
        Event::Soon(slot) => prefetch_block(slot_ptr(slot), block_bytes),
    });
}

/// The planned block permutation of one node, and the state of carrying it
/// out.
pub(crate) struct Moves {
    /// The destination of each complete slot's block ([`EMPTY`] for a slot
    /// without a full block, `to[slot] == slot` for a block that stays, a
    /// value of `complete` for the block that goes to the overflow buffer),
    /// [`DONE`] once picked up.
    to: Vec<AtomicU32>,
    /// The slots where jobs start, ascending.
    starts: Vec<usize>,
    /// One state per cut (slot `c * cut`).
    cuts: Vec<AtomicU8>,
    /// The spacing of the cuts ([`CUT`]; tests use others).
    cut: usize,
    block: usize,
}

impl Moves {
    /// Whether `complete` block slots fit the plan's 32-bit destinations
    /// (up to `u32::MAX - 2`; the default configuration caps a
    /// distribution at 2^23 blocks, so only a test configuration can go
    /// beyond, and then the blocks are moved on one thread, as they go).
    pub(crate) fn fits(complete: usize) -> bool {
        u32::try_from(complete).is_ok_and(|c| c < DONE)
    }

    /// Works out every full block's destination: bucket `b`'s blocks go to
    /// slots `first_slot[b] ..` (the sequential procedure of the module
    /// documentation, on the tags alone); jobs start at every `cut`-th slot
    /// (and at every chain start).
    ///
    /// The caller checks the number of slots first ([`Moves::fits`]).
    pub(crate) fn plan(tags: &[u8], slots: &SlotMap, first_slot: &[usize], cut: usize) -> Moves {
        assert!(cut >= 1);
        let complete = slots.complete;
        debug_assert!(complete < DONE as usize);
        let k = first_slot.len() - 1;
        // Full slots start as DONE (no destination yet), the others EMPTY.
        let mut to = vec![EMPTY; complete];
        for (stripe, &blocks) in slots.stripe_blocks.iter().enumerate() {
            let first = stripe * slots.slots_per_stripe;
            for entry in &mut to[first..(first + blocks).min(complete)] {
                *entry = DONE;
            }
        }
        let mut carried = 0;
        let write = ips4o_order::<false>(tags, slots, first_slot, |event| match event {
            Event::Stays(slot) => to[slot] = slot as u32,
            Event::PickUp(slot) => carried = slot,
            Event::Exchange(slot) => {
                to[carried] = slot as u32;
                carried = slot;
            }
            Event::Put(slot) => to[carried] = slot as u32,
            Event::Soon(_) => {}
        });
        let full = |to: &[u32], slot: usize| slot < complete && to[slot] != EMPTY;
        debug_assert!(to.iter().all(|&t| t != DONE), "every full block placed");
        // Jobs: every chain start (a full slot past its bucket's blocks: no
        // block's destination) and every cut with a block that moves.
        let mut starts: Vec<usize> = Vec::new();
        for b in 0..k {
            for slot in write[b]..first_slot[b + 1].min(complete) {
                if full(&to, slot) && !slot.is_multiple_of(cut) {
                    starts.push(slot);
                }
            }
        }
        starts.extend(
            (0..complete)
                .step_by(cut)
                .filter(|&slot| to[slot] != EMPTY && to[slot] as usize != slot),
        );
        starts.sort_unstable();
        Moves {
            to: to.into_iter().map(AtomicU32::new).collect(),
            starts,
            cuts: (0..complete.div_ceil(cut))
                .map(|_| AtomicU8::new(CUT_FREE))
                .collect(),
            cut,
            block: slots.block,
        }
    }

    /// The number of jobs for [`Moves::run_job`].
    pub(crate) fn jobs(&self) -> usize {
        self.starts.len()
    }

    /// Carries out job `job`: the chain from its start slot up to the next
    /// cut that another job started, an empty slot, or its own start.
    ///
    /// # Safety
    /// `data` points to the `complete * block` elements of the node (and
    /// `overflow` to a block) that [`Moves::plan`] planned for; every job
    /// runs at most once, on any threads (if `T` is not `Send`, on the
    /// calling thread only), and nothing else accesses the elements
    /// meanwhile.
    pub(crate) unsafe fn run_job<T>(&self, job: usize, data: *mut T, overflow: *mut T) {
        let start = self.starts[job];
        if start.is_multiple_of(self.cut) {
            let state = &self.cuts[start / self.cut];
            if state
                .compare_exchange(CUT_FREE, CUT_READING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                return; // taken over by a job arriving along the chain
            }
            // SAFETY: the caller's contract.
            unsafe { self.carry_from(start, data, overflow, Some(state)) };
        } else {
            // SAFETY: the caller's contract.
            unsafe { self.carry_from(start, data, overflow, None) };
        }
    }

    /// After every job: the cycles that hold no cut, on the calling thread.
    ///
    /// # Safety
    /// As for [`Moves::run_job`], after all jobs have run.
    pub(crate) unsafe fn finish<T>(&self, data: *mut T, overflow: *mut T) {
        for slot in 0..self.to.len() {
            let to = self.to[slot].load(Ordering::Relaxed);
            if to < DONE && to as usize != slot {
                // SAFETY: the caller's contract; the slot's block is unmoved.
                unsafe { self.carry_from(slot, data, overflow, None) };
            }
        }
    }

    /// Picks up `start`'s block (publishing that through `cut`, if it is
    /// one) and carries it along its chain.
    unsafe fn carry_from<T>(
        &self,
        start: usize,
        data: *mut T,
        overflow: *mut T,
        cut: Option<&AtomicU8>,
    ) {
        let block = self.block;
        let complete = self.to.len();
        let slot_ptr = |slot: usize| data.wrapping_add(slot * block);
        let block_bytes = block * size_of::<T>();
        let mut carry: Vec<MaybeUninit<T>> = Vec::with_capacity(block);
        let carry_ptr = carry.as_mut_ptr().cast::<T>();
        // SAFETY: `start` is a complete slot whose block nobody else reads.
        unsafe { ptr::copy_nonoverlapping(slot_ptr(start), carry_ptr, block) };
        if let Some(state) = cut {
            state.store(CUT_TAKEN, Ordering::Release);
        }
        let mut at = self.to[start].load(Ordering::Relaxed) as usize;
        self.to[start].store(DONE, Ordering::Relaxed);
        // The chain's slots are hinted into the cache `LOOKAHEAD` exchanges
        // before their turn (the chain is known from `to`; past its end the
        // hints are merely wasted).
        let follow = |slot: usize| match self.to.get(slot) {
            Some(to) => match to.load(Ordering::Relaxed) {
                to if to < DONE => to as usize,
                _ => usize::MAX,
            },
            None => usize::MAX,
        };
        let mut ahead = at;
        for _ in 0..LOOKAHEAD {
            if ahead >= complete {
                break;
            }
            prefetch_block(slot_ptr(ahead), block_bytes);
            ahead = follow(ahead);
        }
        loop {
            if at >= complete {
                // SAFETY: the one block bound for the slot past the array.
                unsafe { ptr::copy_nonoverlapping(carry_ptr, overflow, block) };
                return;
            }
            let target = slot_ptr(at);
            let next = self.to[at].load(Ordering::Relaxed);
            if next == EMPTY || at == start {
                // SAFETY: an empty slot, or our own start (picked up), that
                // only this chain reaches.
                unsafe { ptr::copy_nonoverlapping(carry_ptr, target, block) };
                return;
            }
            if at.is_multiple_of(self.cut) {
                let state = &self.cuts[at / self.cut];
                if state
                    .compare_exchange(CUT_FREE, CUT_MERGED, Ordering::Acquire, Ordering::Acquire)
                    .is_err()
                {
                    // Its own job picks (or picked) up the block: once it
                    // has, the slot is ours to fill.
                    while state.load(Ordering::Acquire) != CUT_TAKEN {
                        core::hint::spin_loop();
                    }
                    // SAFETY: the cut's block has been picked up.
                    unsafe { ptr::copy_nonoverlapping(carry_ptr, target, block) };
                    return;
                }
            }
            if ahead < complete {
                prefetch_block(slot_ptr(ahead), block_bytes);
                ahead = follow(ahead);
            }
            let next = next as usize;
            self.to[at].store(DONE, Ordering::Relaxed);
            // SAFETY: a complete slot whose unmoved block only this chain
            // reaches, and `carry`, a separate buffer of a block.
            unsafe { ptr::swap_nonoverlapping(carry_ptr, target, block) };
            at = next;
        }
    }
}

/// Hints every cache line of the `bytes` bytes at `start` into the cache.
#[inline]
pub(crate) fn prefetch_block<T>(start: *const T, bytes: usize) {
    for offset in (0..bytes).step_by(64) {
        prefetch_at(start, 0, offset);
    }
}
