//! Children left behind by a killed campaign: every process group a runner
//! starts is registered here, and `ndnlab run` installs a SIGINT/SIGTERM handler
//! that kills them all before the process exits (130). Runners still kill their
//! children themselves when a run ends or fails; this covers Ctrl-C, where no
//! destructor runs. The handler only reads atomics and calls `kill` and `_exit`,
//! which are async-signal-safe.

use std::sync::atomic::{AtomicI32, Ordering::SeqCst};

/// Process groups alive at once, at most.
const SLOTS: usize = 4096;

static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Remembers a process group to kill on a signal.
pub fn register(pgid: u32) {
    for s in &GROUPS {
        if s.compare_exchange(0, pgid as i32, SeqCst, SeqCst).is_ok() {
            return;
        }
    }
}

/// Forgets a process group (it was reaped).
pub fn unregister(pgid: u32) {
    for s in &GROUPS {
        let _ = s.compare_exchange(pgid as i32, 0, SeqCst, SeqCst);
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    for s in &GROUPS {
        let g = s.load(SeqCst);
        if g > 0 {
            // SAFETY: kill(2) is async-signal-safe.
            unsafe {
                libc::kill(-g, libc::SIGKILL);
            }
        }
    }
    // SAFETY: _exit(2) is async-signal-safe.
    unsafe { libc::_exit(128 + sig) }
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    // SAFETY: the handler is async-signal-safe (see the module documentation).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}
