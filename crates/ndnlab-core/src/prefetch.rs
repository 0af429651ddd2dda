//! Software prefetch, for the staged burst pipeline in [`crate::Forwarder::handle_burst`].
//!
//! This is the crate's only `unsafe`: `_mm_prefetch` is a `#[target_feature(enable =
//! "sse")]` intrinsic, which Rust makes `unsafe` to call from a function without that
//! attribute even though SSE is part of the x86_64 baseline. A prefetch is a hint:
//! it never faults, whatever the address, and has no architectural effect, so no
//! invariant can be broken. On other architectures this is a no-op.

/// Ask the CPU to bring the cache line holding `p` into all cache levels.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: PREFETCHT0 cannot fault and has no architectural effect for any
    // address; the `sse` target feature it needs is enabled (checked by the cfg).
    #[allow(unsafe_code)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

/// Prefetch a slice element if the index is in bounds.
#[inline(always)]
pub(crate) fn prefetch_at<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        prefetch(x as *const T);
    }
}

/// Prefetch both lines of a slice element that may straddle two (its first and last
/// byte; an element of up to 64 bytes has no line between), if the index is in bounds.
#[inline(always)]
pub(crate) fn prefetch_whole_at<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        let p = (x as *const T).cast::<u8>();
        prefetch(p);
        prefetch(p.wrapping_add(std::mem::size_of::<T>() - 1));
    }
}
