//! Step 2 of the block distribution (module `distribute`): every full block
//! to a slot of its bucket, worked out first from the tags alone and then
//! carried out by independent jobs, so that it runs on any number of
//! threads and always gives the same result.
//!
//! **Where each block goes** ([`Moves::plan`]) is decided by one fixed
//! sequential procedure, the block permutation of IPS4o (M. Axtmann, S.
//! Witt, D. Ferizovic and P. Sanders, "In-Place Parallel Super Scalar
//! Samplesort", ESA 2017), run on the tags only: bucket `b`'s blocks go to
//! the slots from `first_slot[b]` on; each bucket's slots are read from the
//! back; a block is carried to the next free slot of its bucket, and a
//! block still unread there is picked up in exchange, until a carried block
//! lands in an empty slot. That is a few byte reads per block, a small
//! fraction of moving it, and it gives every full slot its destination
//! `to[slot]`.
//!
//! **Moving the blocks** follows the destinations. They form chains that
//! end in an empty slot (starting at a full slot that is no block's
//! destination) and cycles. Jobs start at every chain start and at every
//! `CUT`-th slot (a "cut"); a job carries its first block along its chain,
//! exchanging it at each slot, until it reaches an empty slot, its own
//! start, or a cut. A cut that no job has started yet is taken over by the
//! arriving job (an atomic claim per cut); a started cut's block has been
//! picked up, so the arriving job puts its carried block there and ends.
//! Each slot is thus handled by exactly one job, whatever the threads and
//! their timing; a cycle without a cut is left to a final sweep. The
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
    /// Works out every full block's destination: bucket `b`'s blocks go to
    /// slots `first_slot[b] ..` (the sequential procedure of the module
    /// documentation, on the tags alone); jobs start at every `cut`-th slot
    /// (and at every chain start).
    ///
    /// # Panics
    /// With more than `u32::MAX - 2` block slots (only reachable through a
    /// test configuration: the default caps a distribution at 2^23 blocks).
    pub(crate) fn plan(tags: &[u8], slots: &SlotMap, first_slot: &[usize], cut: usize) -> Moves {
        assert!(cut >= 1);
        let complete = slots.complete;
        assert!(
            u32::try_from(complete).is_ok_and(|c| c < DONE),
            "ShuffleConfig: too many blocks for one distribution"
        );
        let k = first_slot.len() - 1;
        // Full slots start as DONE (no destination yet), the others EMPTY.
        let mut to = vec![EMPTY; complete];
        for (stripe, &blocks) in slots.stripe_blocks.iter().enumerate() {
            let first = stripe * slots.slots_per_stripe;
            for entry in &mut to[first..(first + blocks).min(complete)] {
                *entry = DONE;
            }
        }
        let full = |to: &[u32], slot: usize| slot < complete && to[slot] != EMPTY;
        let mut write: Vec<usize> = first_slot[..k].to_vec();
        let mut read_end: Vec<usize> = first_slot[1..]
            .iter()
            .map(|&end| end.min(complete))
            .collect();
        for primary in 0..k {
            while read_end[primary] > write[primary] {
                read_end[primary] -= 1;
                let source = read_end[primary];
                if !full(&to, source) {
                    continue;
                }
                let mut bucket = usize::from(tags[source]);
                if bucket == primary && write[primary] == source {
                    write[primary] += 1;
                    to[source] = source as u32;
                    continue;
                }
                let mut carried = source;
                loop {
                    let dest = write[bucket];
                    write[bucket] += 1;
                    debug_assert!(dest < first_slot[bucket + 1], "bucket overfull");
                    to[carried] = dest as u32;
                    if dest < read_end[bucket] && full(&to, dest) {
                        // An unread block: picked up in exchange.
                        carried = dest;
                        bucket = usize::from(tags[dest]);
                    } else {
                        break;
                    }
                }
            }
        }
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
            // The chain's next two slots come in while this one is
            // exchanged.
            let next = next as usize;
            if next < complete {
                prefetch_block(slot_ptr(next), block_bytes);
                let after = self.to[next].load(Ordering::Relaxed) as usize;
                if after < complete {
                    prefetch_block(slot_ptr(after), block_bytes);
                }
            }
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
