//! The one way the zoo's algorithms move items: a swap that the observer
//! sees.

use crate::observer::Observer;

#[inline(always)]
pub(super) fn swap<T, O: Observer>(items: &mut [T], i: usize, j: usize, obs: &mut O) {
    items.swap(i, j);
    obs.swap(i, j);
}
