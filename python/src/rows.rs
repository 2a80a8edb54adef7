//! Rows wider than 8 bytes (structured records, rows of a 2-D array): put
//! them in the order of a permutation computed on 8-byte indices, so that
//! every array of `n` rows gets the order `permutation(n)` gives, whatever
//! its element type.

use rayon::prelude::*;

use crate::threads;

/// Rearranges `data`, `n` rows of `width` bytes, so that row `i` becomes the
/// old row `order[i]`, through `copy` (an empty buffer with room for the
/// data, reserved by the caller so that a lack of memory is an error before
/// anything moves).
pub fn gather(
    data: &mut [u8],
    width: usize,
    order: &[u64],
    mut copy: Vec<u8>,
    threads: usize,
) -> Result<(), String> {
    if width == 0 || data.is_empty() {
        return Ok(());
    }
    debug_assert_eq!(data.len(), width * order.len());
    copy.extend_from_slice(data);
    let source = copy;
    let copy_row = |(row, &from): (&mut [u8], &u64)| {
        let start = from as usize * width;
        row.copy_from_slice(&source[start..start + width]);
    };
    if threads::use_pool(threads, data.len()) {
        threads::pool(threads)?.install(|| {
            data.par_chunks_mut(width)
                .zip(order.par_iter())
                .for_each(copy_row)
        });
    } else {
        data.chunks_mut(width).zip(order.iter()).for_each(copy_row);
    }
    Ok(())
}
