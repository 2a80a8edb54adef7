//! The zoo's sorting algorithms: random keys of a given width sorted
//! stably, and a merge sort whose comparator is a coin flip, each applying
//! its result to the items as observed swaps.

use super::moves::swap;
use crate::choices::Choices;
use crate::observer::Observer;

/// The .NET `Double.CompareTo` order of 64 random bits read as a double, as
/// a key: every NaN ties with every other NaN below all numbers, and
/// `-0.0 == +0.0`.
pub(super) fn double_order(bits: u64) -> u128 {
    let x = f64::from_bits(bits);
    if x.is_nan() {
        return 0;
    }
    let bits = if x == 0.0 { 0 } else { bits };
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    u128::from(ordered) + 1
}

/// Calls `f` with a scratch slice of `len` default values, on the stack
/// when small.
#[inline]
pub(super) fn with_scratch<X: Copy + Default, F: FnOnce(&mut [X])>(len: usize, f: F) {
    if len <= 8 {
        let mut buffer = [X::default(); 8];
        f(&mut buffer[..len]);
    } else if len <= 32 {
        let mut buffer = [X::default(); 32];
        f(&mut buffer[..len]);
    } else {
        let mut buffer = vec![X::default(); len];
        f(&mut buffer);
    }
}

/// Stable sort by random keys of `bits` bits (mapped through `order`).
#[inline(never)] // keeps its scratch buffers out of the other algorithms' frames
pub(super) fn sort_by_keys<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
    bits: u32,
    order: fn(u128) -> u128,
) {
    let n = items.len();
    with_scratch::<(u128, usize), _>(n, |keyed| {
        for (index, slot) in keyed.iter_mut().enumerate() {
            let key = choices.key(bits);
            if !obs.is_quiet() {
                let digits = bits.div_ceil(4) as usize;
                obs.note(&format!(
                    "key for position {index}: {key:0digits$x} ({bits} random bits)"
                ));
            }
            *slot = (order(key), index);
        }
        // Stable: ties keep input order (the index breaks them).
        keyed.sort_unstable();
        with_scratch::<usize, _>(n, |target| {
            for (slot, &(_, index)) in target.iter_mut().zip(keyed.iter()) {
                *slot = index;
            }
            arrange(items, target, obs);
        });
    });
}

/// Rearranges `items` so that position `p` holds the item that was at
/// `from[p]`, reporting the change as swaps (selection order).
pub(super) fn arrange<T: Copy, O: Observer>(items: &mut [T], from: &mut [usize], obs: &mut O) {
    let n = items.len();
    if obs.is_quiet() {
        // Apply by cycles without reporting.
        let mut done = 0u64;
        let small = n <= 64;
        if small {
            for start in 0..n {
                if done & (1 << start) != 0 {
                    continue;
                }
                let first = items[start];
                let mut p = start;
                loop {
                    done |= 1 << p;
                    let q = from[p];
                    if q == start {
                        items[p] = first;
                        break;
                    }
                    items[p] = items[q];
                    p = q;
                }
            }
            return;
        }
    }
    // where_is[k] = current position of the item originally at k.
    let mut where_is: Vec<usize> = (0..n).collect();
    let mut at: Vec<usize> = (0..n).collect();
    for p in 0..n {
        let q = where_is[from[p]];
        if q != p {
            swap(items, p, q, obs);
            let (a, b) = (at[p], at[q]);
            at.swap(p, q);
            where_is[a] = q;
            where_is[b] = p;
        }
    }
}

/// Top-down merge sort of positions whose comparator is a coin flip (the
/// JavaScript `sort(() => Math.random() - 0.5)` idiom). Hand-written: Rust's
/// own sorts may panic on an inconsistent comparator.
#[inline(never)] // keeps its scratch buffers out of the other algorithms' frames
pub(super) fn sort_with_coin<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
) {
    let n = items.len();
    with_scratch::<usize, _>(n, |order| {
        for (p, slot) in order.iter_mut().enumerate() {
            *slot = p;
        }
        with_scratch::<usize, _>(n, |buffer| merge_sort(order, buffer, choices, obs));
        arrange(items, order, obs);
    });
}

pub(super) fn merge_sort<C: Choices, O: Observer>(
    order: &mut [usize],
    buffer: &mut [usize],
    choices: &mut C,
    obs: &mut O,
) {
    let n = order.len();
    if n < 2 {
        return;
    }
    let mid = n / 2;
    {
        let (left, right) = order.split_at_mut(mid);
        let (bl, br) = buffer.split_at_mut(mid);
        merge_sort(left, bl, choices, obs);
        merge_sort(right, br, choices, obs);
    }
    buffer[..n].copy_from_slice(order);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        let coin = choices.below(2);
        obs.draw(2, coin);
        if !obs.is_quiet() {
            let first = if coin == 0 { buffer[i] } else { buffer[j] };
            obs.note(&format!(
                "compare item from position {} with item from position {}: coin says {} first",
                buffer[i], buffer[j], first
            ));
        }
        if coin == 0 {
            order[k] = buffer[i];
            i += 1;
        } else {
            order[k] = buffer[j];
            j += 1;
        }
        k += 1;
    }
    while i < mid {
        order[k] = buffer[i];
        i += 1;
        k += 1;
    }
    while j < n {
        order[k] = buffer[j];
        j += 1;
        k += 1;
    }
}
