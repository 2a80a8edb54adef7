//! Cache hints: ask for a cache line before it is needed, so that the
//! random accesses of Durstenfeld's loop, the distribution and the walk
//! overlap their misses instead of waiting for each in turn.

/// Hints the cache to fetch, for writing, the element `ahead_bytes` past
/// element `index`. A hint only: it never faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], index: usize, ahead_bytes: usize) {
    prefetch_at(data.as_ptr(), index, ahead_bytes);
}

/// [`prefetch`] from a raw base pointer (for code that writes through raw
/// pointers, where holding a shared reference to the data would alias).
#[inline(always)]
pub(crate) fn prefetch_at<T>(base: *const T, index: usize, ahead_bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let ptr = base
            .wrapping_add(index)
            .cast::<i8>()
            .wrapping_add(ahead_bytes);
        // SAFETY: a prefetch has no architectural effect and never faults.
        unsafe {
            core::arch::x86_64::_mm_prefetch(ptr, core::arch::x86_64::_MM_HINT_ET0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (base, index, ahead_bytes);
}

/// Hints the cache to fetch the line at `at` for reading. A hint only: it
/// never faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch_read(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and never faults.
    unsafe {
        core::arch::x86_64::_mm_prefetch(at.cast::<i8>(), core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
