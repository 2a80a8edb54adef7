//! Splitting a node into buckets in place with O(buckets) extra
//! memory: the first step of the large-array shuffle for nodes so large
//! that the block distribution's tag table (one byte per block, module
//! `distribute`) would exceed its cap.
//!
//! The labels are counted first (the exact multinomial bucket sizes), then
//! the elements are moved by an American-flag cycle walk (P. M. McIlroy,
//! K. Bostic and M. D. McIlroy, "Engineering radix sort", Computing
//! Systems 6(1), 1993), driven by the labels instead of key digits.
//!
//! Invariant: slots `starts[b] .. front[b]` hold elements labelled `b`,
//! except the leader slot of the cycle in progress; every slot at or past
//! its region's front has never been written, so its element is the
//! original one and its label is `label(slot)`, read from the keystream
//! through the region's own cursor (the fronts only move forward, so each
//! cursor reads its stretch of the keystream once, in order). The leader
//! slot holds an element whose label `l` is known; it is swapped with the
//! front of region `l` until the leader slot holds an element of its own
//! region. Which slots are visited depends on the labels only, never on
//! the data or the threads.
//!
//! Extra memory: per bucket, a front, an end and one keystream chunk (256
//! bytes). Each element is read and written about once, but the walk jumps
//! between `buckets` streams and runs on one thread: it is slower per
//! element than the block distribution, which is why it only splits nodes
//! above the cap (2^23 blocks by default: 2^30 elements of up to 8 bytes,
//! 8 GiB of larger ones), into enough buckets (at least 64) to bring them
//! well under it.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use crate::labels::{CHUNK_BYTES, LabelStream};
use crate::prefetch::prefetch;

/// How far ahead of a region's front the walk prefetches.
const WALK_PREFETCH_BYTES: usize = 256;

/// The number of each label among the positions `range` (chunk-aligned
/// except at its end).
pub(crate) fn count_labels(labels: &LabelStream, range: Range<usize>) -> Vec<usize> {
    debug_assert_eq!(range.start % CHUNK_BYTES, 0);
    let mut stream = labels.clone();
    let mask = labels.mask();
    let mut counts = vec![0usize; labels.buckets()];
    let mut bytes = [0u8; CHUNK_BYTES];
    let mut pos = range.start;
    while pos < range.end {
        stream.fill_chunk(pos / CHUNK_BYTES, &mut bytes);
        let take = CHUNK_BYTES.min(range.end - pos);
        for &byte in &bytes[..take] {
            counts[usize::from(byte & mask)] += 1;
        }
        pos += take;
    }
    counts
}

/// Moves every element of `data` to the region of its label (`starts[b]
/// .. starts[b + 1]`, from `region_starts` of the counts of all labels of
/// `data`).
pub(crate) fn walk<T>(data: &mut [T], labels: &LabelStream, starts: &[usize]) {
    assert_eq!(
        starts.last(),
        Some(&data.len()),
        "the regions cover the data"
    );
    let mut fronts = Fronts::new(labels.clone(), starts);
    for b in 0..fronts.front.len() {
        while fronts.front[b] < fronts.end[b] {
            let (leader, mut label) = fronts.advance(b);
            while label != b {
                let (dest, next) = fronts.advance(label);
                // The counts guarantee a front never passes its region's
                // end; a bad count would be a bug, caught here.
                assert!(dest < fronts.end[label], "label counts must match");
                prefetch(data, dest, WALK_PREFETCH_BYTES);
                data.swap(leader, dest);
                label = next;
            }
        }
    }
}

/// The walk's view of the regions, O(1) per bucket: the region's front,
/// its end, the label of the (original) element at the front, and the
/// keystream chunk that covers the front.
struct Fronts {
    labels: LabelStream,
    front: Vec<usize>,
    end: Vec<usize>,
    front_label: Vec<u8>,
    chunk: Vec<usize>,
    bytes: Vec<[u8; CHUNK_BYTES]>,
}

impl Fronts {
    fn new(labels: LabelStream, starts: &[usize]) -> Fronts {
        let k = starts.len() - 1;
        let mut fronts = Fronts {
            labels,
            front: starts[..k].to_vec(),
            end: starts[1..].to_vec(),
            front_label: vec![0; k],
            chunk: vec![usize::MAX; k],
            bytes: vec![[0; CHUNK_BYTES]; k],
        };
        for (b, &start) in starts[..k].iter().enumerate() {
            fronts.front_label[b] = fronts.label_at(b, start);
        }
        fronts
    }

    /// The label of original position `pos`, through region `b`'s chunk.
    /// (At a region's end it reads one label past it, which is harmless:
    /// the keystream goes on.)
    #[inline(always)]
    fn label_at(&mut self, b: usize, pos: usize) -> u8 {
        let chunk = pos / CHUNK_BYTES;
        let bytes = &mut self.bytes[b];
        if chunk != self.chunk[b] {
            self.labels.fill_chunk(chunk, bytes);
            self.chunk[b] = chunk;
        }
        bytes[pos % CHUNK_BYTES] & self.labels.mask()
    }

    /// Moves region `b`'s front one slot on; returns the slot it was at and
    /// the label of the element there.
    #[inline(always)]
    fn advance(&mut self, b: usize) -> (usize, usize) {
        let slot = self.front[b];
        let label = usize::from(self.front_label[b]);
        self.front[b] = slot + 1;
        self.front_label[b] = self.label_at(b, slot + 1);
        (slot, label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::region_starts;
    #[allow(unused_imports)]
    use crate::test_prelude::*;

    #[test]
    fn every_element_lands_in_the_region_of_its_label() {
        let mut case = 0u8;
        for n in [0usize, 1, 2, 3, 255, 256, 257, 1000, 5000] {
            for bits in [1u32, 2, 5, 8] {
                case = case.wrapping_add(1);
                let labels = LabelStream::new([case; 32], bits);
                let counts = count_labels(&labels, 0..n);
                assert_eq!(counts.iter().sum::<usize>(), n);
                let starts = region_starts(&counts);
                let mut data: Vec<String> = (0..n).map(|i| i.to_string()).collect();
                walk(&mut data, &labels, &starts);
                let mut seen = vec![false; n];
                let mut bytes = [0u8; CHUNK_BYTES];
                let mut stream = labels.clone();
                for (b, pair) in starts.windows(2).enumerate() {
                    for element in &data[pair[0]..pair[1]] {
                        let original: usize = element.parse().unwrap();
                        assert!(!seen[original], "{original} twice");
                        seen[original] = true;
                        stream.fill_chunk(original / CHUNK_BYTES, &mut bytes);
                        let label = usize::from(bytes[original % CHUNK_BYTES] & labels.mask());
                        assert_eq!(label, b, "n={n} bits={bits}");
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn counts_of_pieces_add_up_to_the_whole() {
        let labels = LabelStream::new([9; 32], 3);
        let whole = count_labels(&labels, 0..10_000);
        let mut sum = vec![0; 8];
        for start in (0..10_000).step_by(4 * CHUNK_BYTES) {
            let piece = count_labels(&labels, start..(start + 4 * CHUNK_BYTES).min(10_000));
            for (s, c) in sum.iter_mut().zip(piece) {
                *s += c;
            }
        }
        assert_eq!(sum, whole);
    }
}
