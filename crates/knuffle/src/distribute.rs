//! Moving every element of a scatter node to its bucket's region, in place,
//! with block moves: the distribution step of the large-array shuffle.
//!
//! The scheme is the in-place block distribution of IPS4o (M. Axtmann,
//! S. Witt, D. Ferizovic and P. Sanders, "In-Place Parallel Super Scalar
//! Samplesort", ESA 2017; "Engineering In-place (Shared-memory) Sorting
//! Algorithms", ACM TOPC 9(1), 2022), driven by random labels instead of
//! splitters, and made deterministic:
//!
//! 1. **Classification**, one stripe at a time (stripes are fixed by the
//!    length and the configuration, never by the number of threads, so they
//!    may run in parallel). Each element of the stripe is copied into its
//!    bucket's buffer of `B` elements; a full buffer is written back as a
//!    block at the stripe's front, which only ever overwrites elements
//!    already read, and its bucket is noted as the block's tag. At the end
//!    each stripe holds full blocks followed by a gap, and its buffers hold
//!    fewer than `B` elements per bucket.
//! 2. **Block permutation** (module `block_moves`). Bucket `b`'s blocks go
//!    to the block slots from `ceil(start_b / B)` on; slots of different
//!    buckets never overlap. Which block goes to which slot is decided by
//!    one sequential procedure (each bucket's slots read from the back; a
//!    block carried to the next free slot of its bucket, a block still
//!    unread there picked up in exchange, until a carried block lands in an
//!    empty slot). On one thread the blocks move as it goes; on several, it
//!    first runs on the tags alone and the blocks are then moved by
//!    independent jobs, with the same result.
//! 3. **Cleanup**, bucket by bucket in order: the part of a bucket's last
//!    block that runs past its region, and the buffered elements of every
//!    stripe, fill the region's ends.
//!
//! Every element is read and written about twice, always a block or a
//! buffer at a time; there are no dependent random accesses as in a cycle
//! walk. Extra memory: the buffers (stripes x buckets x `B` elements), a
//! byte per block for its tag (its bucket), four more for its destination
//! when the blocks are moved by jobs on several threads (5/1024 of the
//! array for 8-byte elements with 1 KiB blocks, 5/128 for bytes in blocks
//! of 128; the caller caps the number of blocks, see `scatter`), and
//! O(buckets x stripes) counters.
//!
//! Which bucket an element joins is decided by the labels alone, and where
//! it lands inside its region by this fixed procedure: the bucket shuffles
//! that follow make every arrangement equally likely (see `scatter`).

use alloc::vec;
use alloc::vec::Vec;
use core::mem::MaybeUninit;
use core::ptr;

use crate::block_moves::{CUT, Moves, SlotMap, permute_in_order};
use crate::labels::{CHUNK_BYTES, LabelStream, region_starts};
use crate::prefetch::prefetch_at;

/// How far ahead of the element being classified its stripe is prefetched.
const CLASSIFY_PREFETCH_BYTES: usize = 2048;

/// One stripe of a node during classification.
pub(crate) struct Stripe<'a, T> {
    /// Position of the stripe's first element in the node (its labels).
    start: usize,
    data: &'a mut [T],
    /// The tags of the stripe's block slots.
    tags: &'a mut [u8],
    /// `buckets` buffers of `block` elements each.
    buffers: &'a mut [MaybeUninit<T>],
    /// Elements left in each bucket's buffer.
    fill: Vec<usize>,
    /// Full blocks of each bucket.
    full: Vec<usize>,
    /// Full blocks at the stripe's front.
    blocks: usize,
    block: usize,
}

impl<T> Stripe<'_, T> {
    /// Step 1 for this stripe.
    #[inline(never)]
    pub(crate) fn classify(&mut self, labels: &LabelStream) {
        let per_chunk = CHUNK_BYTES;
        let mask = usize::from(labels.mask());
        let block = self.block;
        debug_assert!(block.is_power_of_two());
        let block_mask = block - 1;
        let block_shift = block.trailing_zeros();
        let len = self.data.len();
        let src = self.data.as_mut_ptr();
        let buffers = self.buffers.as_mut_ptr().cast::<T>();
        let mut stream = labels.clone();
        let mut bytes = [0u8; CHUNK_BYTES];
        let mut written = 0;
        let mut pos = 0;
        // `next[b]`: where bucket b's next element goes in `buffers`.
        let mut next: Vec<usize> = (0..self.fill.len()).map(|b| b * block).collect();
        assert!(mask < next.len(), "a label must name a bucket");
        let next_ptr = next.as_mut_ptr();
        let full = &mut self.full[..];
        let tags = &mut self.tags[..];
        while pos < len {
            let global = self.start + pos;
            stream.fill_chunk(global / per_chunk, &mut bytes);
            let offset = global & (per_chunk - 1);
            let take = (per_chunk - offset).min(len - pos);
            let label_bytes = bytes.as_ptr();
            // The loop body is a handful of instructions (it is bound by
            // their number, not by memory): no bounds checks inside.
            for i in 0..take {
                let index = offset + i;
                // SAFETY: `index < per_chunk = CHUNK_BYTES`.
                let label = usize::from(unsafe { *label_bytes.add(index) }) & mask;
                // The hardware does not stream this far ahead on its own.
                prefetch_at(src, pos + i, CLASSIFY_PREFETCH_BYTES);
                // SAFETY: `label <= mask < next.len()`.
                let slot = unsafe { *next_ptr.add(label) };
                // SAFETY: `pos + i < len`; `slot` is inside the buffer of
                // `label`, which is not full.
                unsafe { ptr::copy_nonoverlapping(src.add(pos + i), buffers.add(slot), 1) };
                let after = slot + 1;
                if after & block_mask != 0 {
                    // SAFETY: as above.
                    unsafe { *next_ptr.add(label) = after };
                } else {
                    let start = after - block;
                    // SAFETY: `written + block <= pos + i + 1`: elements
                    // read = elements written back + elements buffered, so
                    // the block only covers slots already copied out.
                    unsafe {
                        ptr::copy_nonoverlapping(buffers.add(start), src.add(written), block);
                        *next_ptr.add(label) = start;
                    }
                    tags[written >> block_shift] = label as u8;
                    full[label] += 1;
                    written += block;
                }
            }
            pos += take;
        }
        self.blocks = written / block;
        for (b, fill) in self.fill.iter_mut().enumerate() {
            *fill = next[b] - b * block;
        }
    }
}

/// The shape of a node's distribution: stripe length, block length,
/// bucket count. A function of the node's length and the configuration
/// only.
pub(crate) struct Plan {
    pub(crate) len: usize,
    pub(crate) block: usize,
    pub(crate) stripe_len: usize,
    pub(crate) buckets: usize,
}

/// The block length a node of `len` elements uses: `block` (a power of
/// two), but never more than the node (a longer one would only be a larger
/// buffer, no block could fill).
pub(crate) fn capped_block(len: usize, block: usize) -> usize {
    let capped = block.min(len).max(1);
    1usize << (usize::BITS - 1 - capped.leading_zeros())
}

impl Plan {
    pub(crate) fn new(len: usize, block: usize, stripes: usize, buckets: usize) -> Plan {
        let block = capped_block(len, block);
        let stripe_len = len.div_ceil(stripes).div_ceil(block).max(1) * block;
        Plan {
            len,
            block,
            stripe_len,
            buckets,
        }
    }

    fn stripes(&self) -> usize {
        self.len.div_ceil(self.stripe_len)
    }

    /// Elements in all buffers: a block per bucket and stripe.
    ///
    /// # Panics
    /// When that does not fit a `usize` (an absurd configuration).
    fn buffer_len(&self) -> usize {
        self.stripes()
            .checked_mul(self.buckets)
            .and_then(|len| len.checked_mul(self.block))
            .expect("ShuffleConfig: stripes x buckets x block_len is too large")
    }
}

/// Aborts the process if dropped: it is forgotten when the distribution
/// completes, so it only drops when a panic unwinds through the steps,
/// where some elements exist twice (a buffered copy and a stale slot) and
/// others only in a buffer, so unwinding could drop an element twice. The
/// sizes are checked before it is armed, so no step panics unless the
/// distribution itself has a bug (an allocation that fails afterwards, the
/// plan of step 2 or a job's carry block, aborts in any case).
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        // A panic while unwinding aborts; with `std`, abort directly.
        #[cfg(feature = "std")]
        std::process::abort();
        #[cfg(not(feature = "std"))]
        panic!("knuffle: the block distribution was interrupted by a panic");
    }
}

/// How a node's parallelizable steps run (on the calling thread, or on a
/// thread pool); the result is the same either way.
pub(crate) trait Steps<T> {
    /// Runs step 1 on every stripe.
    fn classify(&self, stripes: &mut [Stripe<'_, T>]);
    /// Whether [`Steps::jobs`] may run jobs on several threads (step 2 is
    /// then planned first and moved by jobs; else it moves as it goes).
    fn threads(&self) -> bool;
    /// Runs `job(0) .. job(jobs - 1)`, each once, in any order and on any
    /// threads, but only on the calling thread if `T` is not `Send`.
    fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync));
    /// The spacing of step 2's cuts (see `block_moves`); tests vary it, the
    /// result is the same for any.
    fn cut(&self) -> usize {
        CUT
    }
}

/// The node's elements and overflow block, for the jobs of step 2.
struct Shared<T> {
    data: *mut T,
    overflow: *mut T,
}

// SAFETY: the pointers are only used by the jobs of `Moves`, each slot by
// one job at a time (module `block_moves`); `Steps::jobs` only runs them
// on other threads when `T` is `Send`.
unsafe impl<T> Sync for Shared<T> {}

/// Runs the three steps on `data`, the parallelizable parts through
/// `steps`. Returns the region starts (`buckets + 1` entries).
pub(crate) fn distribute<T>(data: &mut [T], plan: &Plan, steps: &impl Steps<T>) -> Vec<usize> {
    let k = plan.buckets;
    let block = plan.block;
    let n = data.len();
    debug_assert_eq!(n, plan.len);
    // The sizes are checked, and the buffers allocated, before the first
    // element is copied.
    let buffer_len = plan.buffer_len();
    let mut tags = vec![0u8; n / block];
    let mut buffers: Vec<MaybeUninit<T>> = Vec::with_capacity(buffer_len);
    // SAFETY: `MaybeUninit` needs no initialization.
    unsafe { buffers.set_len(buffer_len) };
    let mut overflow: Vec<MaybeUninit<T>> = Vec::with_capacity(block);
    // SAFETY: as above.
    unsafe { overflow.set_len(block) };
    let guard = AbortOnUnwind;

    let mut stripes: Vec<Stripe<'_, T>> = Vec::with_capacity(plan.stripes());
    {
        let mut rest = &mut data[..];
        let mut rest_tags = &mut tags[..];
        let mut rest_buffers = &mut buffers[..];
        let mut start = 0;
        while !rest.is_empty() {
            let len = plan.stripe_len.min(rest.len());
            let (stripe, tail) = core::mem::take(&mut rest).split_at_mut(len);
            let (stripe_tags, tags_tail) =
                core::mem::take(&mut rest_tags).split_at_mut(len / block);
            let (stripe_buffers, buffers_tail) =
                core::mem::take(&mut rest_buffers).split_at_mut(k * block);
            stripes.push(Stripe {
                start,
                data: stripe,
                tags: stripe_tags,
                buffers: stripe_buffers,
                fill: vec![0; k],
                full: vec![0; k],
                blocks: 0,
                block,
            });
            rest = tail;
            rest_tags = tags_tail;
            rest_buffers = buffers_tail;
            start += len;
        }
    }
    steps.classify(&mut stripes);

    // Region starts, block slots, and what each stripe leaves behind.
    let sizes: Vec<usize> = (0..k)
        .map(|b| stripes.iter().map(|s| s.full[b] * block + s.fill[b]).sum())
        .collect();
    let starts = region_starts(&sizes);
    debug_assert_eq!(starts[k], n);
    let blocks_of: Vec<usize> = (0..k)
        .map(|b| stripes.iter().map(|s| s.full[b]).sum())
        .collect();
    let stripe_blocks: Vec<usize> = stripes.iter().map(|s| s.blocks).collect();
    let fills: Vec<Vec<usize>> = stripes
        .iter_mut()
        .map(|s| core::mem::take(&mut s.fill))
        .collect();
    drop(stripes);

    let slots = SlotMap {
        block,
        slots_per_stripe: plan.stripe_len / block,
        stripe_blocks,
        complete: n / block,
    };
    let first_slot: Vec<usize> = starts.iter().map(|&s| s.div_ceil(block)).collect();

    let (data_ptr, overflow_ptr) = (data.as_mut_ptr(), overflow.as_mut_ptr().cast::<T>());
    if steps.threads() && Moves::fits(slots.complete) {
        let moves = Moves::plan(&tags, &slots, &first_slot, steps.cut());
        let shared = Shared {
            data: data_ptr,
            overflow: overflow_ptr,
        };
        let job = |job: usize| {
            let shared = &shared;
            // SAFETY: `data` and `overflow` as planned, each job run once,
            // nothing else touching the elements until `jobs` returns.
            unsafe { moves.run_job(job, shared.data, shared.overflow) }
        };
        steps.jobs(moves.jobs(), &job);
        // SAFETY: as above, after every job.
        unsafe { moves.finish(data_ptr, overflow_ptr) };
    } else {
        // SAFETY: the node's complete slots and the overflow block, used by
        // nothing else meanwhile.
        unsafe { permute_in_order(&tags, &slots, &first_slot, data_ptr, overflow_ptr) };
    }

    let buffers_ptr = buffers.as_ptr().cast::<T>();
    let data_ptr = data.as_mut_ptr();
    for b in 0..k {
        let (region_start, region_end) = (starts[b], starts[b + 1]);
        let blocks = blocks_of[b];
        let blocks_from = first_slot[b] * block;
        let blocks_to = blocks_from + blocks * block;
        // The gaps of the region: before its first block slot, after its
        // last block.
        let head = region_start..blocks_from.min(region_end);
        let tail = blocks_to.max(head.end)..region_end;
        let mut gaps = head.chain(tail);
        let mut put = |from: *const T| {
            let to = gaps.next().expect("the gaps hold the rest of the bucket");
            // SAFETY: `to` is a gap slot of region `b` (stale or unused),
            // `from` an element of bucket `b` outside every gap of `b`.
            unsafe { ptr::copy_nonoverlapping(from, data_ptr.add(to), 1) };
        };
        if blocks > 0 && blocks_to > region_end {
            // The last block runs past the region (into later regions'
            // head gaps, or beyond the array: then it is in `overflow`).
            let last = blocks_to - block;
            let inside = region_end - last;
            if last / block == slots.complete {
                // SAFETY: `overflow` holds the block; `last..region_end`
                // is inside the array and region `b`.
                unsafe {
                    ptr::copy_nonoverlapping(
                        overflow.as_ptr().cast::<T>(),
                        data_ptr.add(last),
                        inside,
                    );
                }
                for element in &overflow[inside..] {
                    put(element.as_ptr());
                }
            } else {
                for position in region_end..blocks_to {
                    // SAFETY: in bounds (a complete block slot).
                    put(unsafe { data_ptr.add(position) });
                }
            }
        }
        for (s, fill) in fills.iter().enumerate() {
            let buffer = s * k * block + b * block;
            for i in 0..fill[b] {
                // SAFETY: the buffered elements of bucket `b` in stripe `s`.
                put(unsafe { buffers_ptr.add(buffer + i) });
            }
        }
        debug_assert!(gaps.next().is_none(), "every gap slot filled");
    }
    core::mem::forget(guard);
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    /// The label of original position `pos`, read straight off the stream.
    fn label_of(labels: &LabelStream, pos: usize) -> usize {
        let mut stream = labels.clone();
        let mut bytes = [0u8; CHUNK_BYTES];
        stream.fill_chunk(pos / CHUNK_BYTES, &mut bytes);
        usize::from(bytes[pos % CHUNK_BYTES] & labels.mask())
    }

    /// Both steps on the calling thread, in order.
    struct InOrder<'a>(&'a LabelStream);

    impl<T> Steps<T> for InOrder<'_> {
        fn classify(&self, stripes: &mut [Stripe<'_, T>]) {
            for stripe in stripes {
                stripe.classify(self.0);
            }
        }

        fn threads(&self) -> bool {
            false
        }

        fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync)) {
            (0..jobs).for_each(job);
        }
    }

    #[test]
    fn every_element_lands_in_the_region_of_its_label() {
        // Many shapes: block lengths that do and do not divide the length,
        // one to many stripes, 2 to 256 buckets, buckets left empty,
        // regions shorter than a block (the overflow and the spill into
        // later regions' head gaps). Strings, so that an element dropped
        // twice or lost would show (crash or wrong multiset).
        let mut case = 0u8;
        for n in [0usize, 1, 2, 3, 7, 31, 64, 65, 127, 1000, 4099] {
            for block in [1usize, 2, 4, 8, 64] {
                for stripes in [1usize, 2, 5] {
                    for bits in [1u32, 3, 6, 8] {
                        case = case.wrapping_add(1);
                        let labels = LabelStream::new([case; 32], bits);
                        let plan = Plan::new(n, block, stripes, labels.buckets());
                        let mut data: Vec<String> = (0..n).map(|i| i.to_string()).collect();
                        let starts = distribute(&mut data, &plan, &InOrder(&labels));
                        assert_eq!(starts.len(), labels.buckets() + 1);
                        assert_eq!(starts[labels.buckets()], n);
                        let mut seen = vec![false; n];
                        for (b, pair) in starts.windows(2).enumerate() {
                            for element in &data[pair[0]..pair[1]] {
                                let original: usize = element.parse().unwrap();
                                assert!(!seen[original], "{original} twice");
                                seen[original] = true;
                                assert_eq!(
                                    label_of(&labels, original),
                                    b,
                                    "n={n} block={block} stripes={stripes} bits={bits}"
                                );
                            }
                        }
                        assert!(seen.iter().all(|&s| s));
                    }
                }
            }
        }
    }

    /// Step 1 in order; step 2's jobs in a chosen order or on threads,
    /// with cuts every `cut` slots.
    struct Jobs<'a> {
        labels: &'a LabelStream,
        cut: usize,
        order: Order,
    }

    #[derive(Clone, Copy, Debug)]
    enum Order {
        Forward,
        Backward,
        /// Three threads taking jobs from a shared counter.
        Threads,
    }

    impl<T> Steps<T> for Jobs<'_> {
        fn classify(&self, stripes: &mut [Stripe<'_, T>]) {
            InOrder(self.labels).classify(stripes);
        }

        fn jobs(&self, jobs: usize, job: &(dyn Fn(usize) + Sync)) {
            match self.order {
                Order::Forward => (0..jobs).for_each(job),
                Order::Backward => (0..jobs).rev().for_each(job),
                Order::Threads => {
                    let next = core::sync::atomic::AtomicUsize::new(0);
                    std::thread::scope(|scope| {
                        for _ in 0..3 {
                            scope.spawn(|| {
                                loop {
                                    let i =
                                        next.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                                    if i >= jobs {
                                        break;
                                    }
                                    job(i);
                                }
                            });
                        }
                    });
                }
            }
        }

        fn threads(&self) -> bool {
            true
        }

        fn cut(&self) -> usize {
            self.cut
        }
    }

    #[test]
    fn the_block_moves_give_the_same_result_in_any_order_on_any_threads() {
        // Cuts at every slot (every chain split into one-block pieces, each
        // handed over between jobs), a few, and the default; jobs forward,
        // backward, and racing on three threads. Strings, so that a block
        // moved twice or lost would show.
        // Under Miri, which checks the jobs' atomics and raw pointers for
        // undefined behaviour and data races, a small case: `cargo +nightly
        // miri test -p knuffle --lib the_block_moves` (passes, 75 s).
        let cases: &[(usize, usize, usize, u32)] = if cfg!(miri) {
            &[(300, 2, 3, 3)]
        } else {
            &[
                (4099, 4, 5, 3),
                (20_000, 8, 8, 6),
                (50_001, 16, 3, 8),
                (3000, 1, 2, 8),
            ]
        };
        for (case, &(n, block, stripes, bits)) in cases.iter().enumerate() {
            let labels = LabelStream::new([case as u8 + 7; 32], bits);
            let plan = Plan::new(n, block, stripes, labels.buckets());
            let original: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            let mut expected = original.clone();
            distribute(&mut expected, &plan, &InOrder(&labels));
            for cut in [1usize, 2, 3, 64, CUT] {
                for order in [Order::Forward, Order::Backward, Order::Threads] {
                    let mut data = original.clone();
                    let steps = Jobs {
                        labels: &labels,
                        cut,
                        order,
                    };
                    distribute(&mut data, &plan, &steps);
                    assert!(
                        data == expected,
                        "n={n} block={block} cut={cut} order={order:?}"
                    );
                }
            }
        }
    }
}
