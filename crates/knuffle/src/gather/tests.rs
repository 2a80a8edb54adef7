//! Every path of the gathers against the plain definition
//! `out[i] = src[order[i]]`: each item size, positive, negative and odd
//! strides, unaligned items, both offset widths, bitmaps at any bit offset,
//! pieces on one thread and on the pool, and the errors.

use super::*;
use crate::test_prelude::*;
use crate::{Knuffle, Seed};

/// A permutation of `0..n` followed by `extra` repeated rows (a gather
/// need not be a permutation).
fn order_of(n: usize, extra: usize, seed: &str) -> Vec<u64> {
    let mut order: Vec<u64> = (0..n as u64).collect();
    order.shuffle(&mut Seed::from_text(seed).rng());
    order.extend((0..extra).map(|k| (k * 7 % n.max(1)) as u64));
    if n == 0 {
        order.clear();
    }
    order
}

/// Gathers `rows` items of `item` bytes laid `stride` bytes apart in
/// `bytes` from `first` (the byte of row 0), with the kernel and by
/// definition, and compares.
fn check_fixed(
    bytes: &[u8],
    first: usize,
    stride: isize,
    item: usize,
    rows: usize,
    order: &[u64],
    parallel: bool,
) {
    let order = Order::new(order, rows).unwrap();
    let mut out = vec![0u8; order.len() * item + 1];
    let dst = out[1..].as_mut_ptr(); // unaligned on purpose
    let src = bytes[first..].as_ptr();
    // SAFETY: every row `r < rows` lies inside `bytes` (the callers lay
    // them out so), `out` is a separate buffer of `order.len()` items.
    unsafe {
        let column = FixedColumn::new(src, stride, item, dst).unwrap();
        gather_fixed(&[column], order, parallel);
    }
    for (i, &p) in order.indices().iter().enumerate() {
        let at = (first as isize + p as isize * stride) as usize;
        assert_eq!(
            &out[1 + i * item..][..item],
            &bytes[at..at + item],
            "row {i}"
        );
    }
}

#[test]
fn fixed_width_items_of_every_size_and_stride() {
    let bytes: Vec<u8> = (0..40_000u32).map(|b| (b * 31 % 251) as u8).collect();
    for item in [1, 2, 4, 8, 16] {
        for (stride_items, rows) in [(1isize, 1000), (3, 300), (-1, 1000), (-2, 500)] {
            let stride = stride_items * item as isize;
            let first = if stride < 0 {
                (rows - 1) * item * stride_items.unsigned_abs() + 1
            } else {
                1
            };
            for parallel in [false, true] {
                check_fixed(
                    &bytes,
                    first,
                    stride,
                    item,
                    rows,
                    &order_of(rows, 17, "fixed"),
                    parallel,
                );
            }
        }
    }
}

#[test]
fn many_pieces_on_the_pool_equal_one_thread() {
    let rows = 3 * PIECE_ROWS + 5;
    let bytes: Vec<u8> = (0..rows * 8 + 8).map(|b| (b % 253) as u8).collect();
    let order = order_of(rows, 0, "pieces");
    check_fixed(&bytes, 3, 8, 8, rows, &order, true);
    check_fixed(&bytes, 0, 8, 4, rows, &order, false);
}

#[test]
fn orders_outside_the_source_and_odd_items_are_refused() {
    assert_eq!(
        Order::new(&[0, 3, 1], 3).unwrap_err(),
        GatherError::OutsideSource { rows: 3 }
    );
    assert_eq!(Order::new(&[], 0).unwrap().len(), 0);
    let mut out = [0u8; 3];
    // SAFETY: `new` refuses before anything could be read or written.
    let made = unsafe { FixedColumn::new([0u8; 9].as_ptr(), 3, 3, out.as_mut_ptr()) };
    assert_eq!(made.unwrap_err(), GatherError::ItemSize(3));
    assert_eq!(
        GatherError::OutsideSource { rows: 3 }.to_string(),
        "the order has an index outside 0..3"
    );
}

/// Strings `s0`, `s1`, ... of varied lengths (some empty) as offsets and bytes.
fn strings<O: Offset>(rows: usize) -> (Vec<O>, Vec<u8>, Vec<Vec<u8>>) {
    let values: Vec<Vec<u8>> = (0..rows)
        .map(|r| format!("s{r}").repeat(r % 4).into_bytes())
        .collect();
    let mut offsets = vec![O::ZERO];
    let mut data = Vec::new();
    for v in &values {
        data.extend_from_slice(v);
        offsets.push(O::try_from(data.len()).ok().unwrap());
    }
    (offsets, data, values)
}

fn check_varlen<O: Offset + core::fmt::Debug + PartialEq>(rows: usize, parallel: bool) {
    let (offsets, data, values) = strings::<O>(rows);
    let indices = order_of(rows, 9, "varlen");
    let order = Order::new(&indices, rows).unwrap();
    let n = order.len();
    let (mut ends, mut starts) = (vec![O::ZERO; n], vec![0u64; n]);
    let totals = varlen_lengths(
        order,
        &offsets,
        data.len(),
        &mut ends,
        &mut starts,
        parallel,
    )
    .unwrap();
    let mut out = vec![0u8; totals.iter().sum()];
    varlen_bytes(&data, &mut ends, &starts, &totals, &mut out, parallel);
    let mut start = 0;
    for (i, &p) in indices.iter().enumerate() {
        let end = to_usize(ends[i]);
        assert_eq!(&out[start..end], &values[p as usize][..], "row {i}");
        start = end;
    }
    assert_eq!(start, out.len());
}

#[test]
fn variable_length_columns_of_both_offset_widths() {
    for parallel in [false, true] {
        check_varlen::<i32>(1000, parallel);
        check_varlen::<i64>(PIECE_ROWS + 77, parallel);
        check_varlen::<i32>(1, parallel);
    }
}

#[test]
fn offsets_that_do_not_fit_the_data_are_refused() {
    let indices = [1u64, 0, 2];
    let order = Order::new(&indices, 3).unwrap();
    let (mut ends, mut starts) = (vec![0i32; 3], vec![0u64; 3]);
    for offsets in [[0, 2, 9, 4], [0, 3, 2, 4]] {
        let got = varlen_lengths(order, &offsets, 4, &mut ends, &mut starts, false);
        assert_eq!(got.unwrap_err(), GatherError::BadOffsets);
    }
}

/// Offsets of 16 bits, to reach their limit with little data.
impl Offset for i16 {
    const ZERO: Self = 0;
}

#[test]
fn a_gather_too_large_for_its_offsets_is_refused() {
    let (offsets, data, values) = strings::<i16>(3);
    assert_eq!(values[2].len(), 4);
    let indices = vec![2u64; 9000]; // 36,000 bytes: more than i16 holds
    let order = Order::new(&indices, 3).unwrap();
    let (mut ends, mut starts) = (vec![0i16; 9000], vec![0u64; 9000]);
    let got = varlen_lengths(order, &offsets, data.len(), &mut ends, &mut starts, false);
    assert_eq!(got.unwrap_err(), GatherError::TooLarge);
    let fits = Order::new(&indices[..8000], 3).unwrap(); // 32,000 bytes fit
    let (ends, starts) = (&mut ends[..8000], &mut starts[..8000]);
    assert!(varlen_lengths(fits, &offsets, data.len(), ends, starts, false).is_ok());
}

#[test]
fn bitmaps_at_any_bit_offset() {
    let bits: Vec<u8> = (0..200u32).map(|b| (b * 97 % 256) as u8).collect();
    for offset in [0, 1, 7, 8, 13] {
        for rows in [1, 8, 9, 1000, 1500] {
            let indices = order_of(rows, 3, "bits");
            let order = Order::new(&indices, rows).unwrap();
            for parallel in [false, true] {
                let mut out = vec![0xffu8; order.len().div_ceil(8)];
                gather_bits(order, &bits, offset, &mut out, parallel).unwrap();
                for (i, &p) in indices.iter().enumerate() {
                    let at = offset + p as usize;
                    assert_eq!((out[i / 8] >> (i % 8)) & 1, (bits[at / 8] >> (at % 8)) & 1);
                }
                let spare = order.len() % 8;
                if spare != 0 {
                    assert_eq!(out[out.len() - 1] >> spare, 0, "spare bits are 0");
                }
            }
        }
    }
}

#[test]
fn a_bitmap_shorter_than_its_rows_is_refused() {
    let indices = [1u64, 0, 2];
    let order = Order::new(&indices, 3).unwrap();
    let mut out = [0u8; 1];
    assert_eq!(
        gather_bits(order, &[0], 6, &mut out, false).unwrap_err(),
        GatherError::ShortBitmap
    );
    assert_eq!(
        gather_bits(order, &[0], usize::MAX - 1, &mut out, false).unwrap_err(),
        GatherError::ShortBitmap
    );
    assert!(gather_bits(order, &[0], 5, &mut out, false).is_ok());
}
