//! The daemon's allocator: mimalloc, tuned so that what the forwarder frees goes
//! back to the kernel soon, which the memory bound of docs/RELIABILITY.md counts
//! on. A binary that runs the daemon declares it its global allocator:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: ndnlab_fwd::process::Allocator = ndnlab_fwd::process::Allocator;
//! ```
//!
//! mimalloc rather than glibc's malloc: glibc's free of packet buffers is about
//! 10% of the forwarding instructions (callgrind).

/// The allocator the daemon's memory bound is measured with.
pub use mimalloc::MiMalloc as Allocator;

/// mimalloc's `purge_delay` option (its index in mimalloc 3's `mi_option_e`).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
/// How long, in ms, freed memory stays resident before the forwarder returns it.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

extern "C" {
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    pub(crate) fn mi_collect(force: bool);
}

/// How often an I/O thread about to sleep runs the allocator's collection.
pub(crate) const COLLECT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Called by each I/O thread as it parks: at most every [`COLLECT_EVERY`], frees
/// the pages other threads emptied (read buffers are allocated here and freed by
/// the forwarding threads) and runs the purges that are due. mimalloc does both
/// only when the thread allocates again, so a forwarder that went quiet kept what
/// its last burst freed: a 256 MiB CS erased stayed resident (docs/RELIABILITY.md).
/// A busy thread does not park and collects as it allocates.
pub(crate) fn collect_when_parking() {
    use std::cell::Cell;
    use std::time::Instant;
    thread_local!(static LAST: Cell<Option<Instant>> = const { Cell::new(None) });
    let now = Instant::now();
    if LAST
        .get()
        .is_some_and(|t| now.duration_since(t) < COLLECT_EVERY)
    {
        return;
    }
    LAST.set(Some(now));
    // SAFETY: collects this thread's heap and the arenas' expired purges.
    unsafe { mi_collect(false) }
}

/// mimalloc 3 keeps freed pages resident for 1 s (10 s in its arenas) before it
/// returns them to the kernel; a forwarder frees its read buffers and cached Data at
/// the line rate, so at 2 Gbit/s that held 10-25 MiB beyond what it uses. 10 ms
/// (mimalloc 2's default) keeps the reuse and returns the rest
/// (docs/RELIABILITY.md). `MIMALLOC_PURGE_DELAY` in the environment wins.
///
/// Transparent huge pages are turned off for the process: mimalloc asks for them on
/// its arenas, and a 2 MiB page is resident as a whole once any byte of it is
/// touched, so every face's buffers and every partly used page cost up to 2 MiB:
/// 1 MiB per face at 256 faces and 25 MiB of the idle process, where the bound
/// counts 512 KiB and 17.5 MiB (docs/RELIABILITY.md). `MIMALLOC_ALLOW_THP` in the
/// environment wins.
pub fn tune() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc's option setters take any option index and value.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    }
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE takes a flag and no pointers; it only marks this
        // process's address space (and its children's) as not using huge pages.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

/// Whether transparent huge pages are off for this process.
pub fn thp_disabled() -> bool {
    // SAFETY: PR_GET_THP_DISABLE takes no pointers and returns the flag.
    unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 }
}

/// The allocator's purge delay in ms.
pub fn purge_delay_ms() -> std::ffi::c_long {
    // SAFETY: as above.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn allocator_purges_after_10_ms_without_huge_pages() {
        // The index names mimalloc's purge_delay: its default is 1,000 ms, or the
        // number `MIMALLOC_PURGE_DELAY` gives, and tuning sets 10 ms unless that
        // variable is set (the environment wins, whatever mimalloc made of it).
        // Huge pages: turned off unless `MIMALLOC_ALLOW_THP` is set, then left
        // as they were.
        let env_delay = std::env::var("MIMALLOC_PURGE_DELAY").ok();
        let allow_thp = std::env::var_os("MIMALLOC_ALLOW_THP").is_some();
        let before = super::purge_delay_ms();
        if let Some(Ok(v)) = env_delay.as_deref().map(str::parse::<std::ffi::c_long>) {
            assert_eq!(before, v, "MIMALLOC_PURGE_DELAY={v} read back");
        } else if env_delay.is_none() {
            assert_eq!(before, 1000, "mimalloc's default purge_delay");
        }
        let thp_before = super::thp_disabled();
        super::tune();
        let want = if env_delay.is_some() {
            before
        } else {
            super::PURGE_DELAY_MS
        };
        assert_eq!(super::purge_delay_ms(), want, "{env_delay:?}");
        if allow_thp {
            assert_eq!(super::thp_disabled(), thp_before, "MIMALLOC_ALLOW_THP set");
        } else {
            assert!(super::thp_disabled(), "huge pages still on");
        }
    }
}
