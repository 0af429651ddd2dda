//! CPU time, the one clock every ndnlab measurement uses when wall time would
//! count other processes on a shared machine against the code measured.
//!
//! * [`thread_time`]: the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`),
//!   nanosecond resolution: what benchmarks time a loop with;
//! * [`process_time`]: this process's CPU time (user + system, `getrusage`);
//! * [`process_seconds`]: any process's CPU seconds by pid (`/proc/<pid>/stat`,
//!   clock-tick resolution);
//! * [`seconds_by_thread_name`]: this process's CPU seconds per thread name
//!   (`/proc/self/task`), threads of the same name summed, for CPU splits.

use std::time::Duration;

/// CPU time used by the calling thread so far.
///
/// # Panics
/// If the thread CPU clock cannot be read (it always can on Linux).
pub fn thread_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time (user + system) used by this process so far, all threads.
pub fn process_time() -> Duration {
    // SAFETY: getrusage only writes into the struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CPU seconds (user + system) used so far by process `pid`; `None` if it is
/// gone or its stat file cannot be read.
pub fn process_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat).map(|(_, secs)| secs)
}

/// CPU seconds (user + system) of every thread of this process, summed by
/// thread name, sorted by name.
pub fn seconds_by_thread_name() -> Vec<(String, f64)> {
    let mut by_name: Vec<(String, f64)> = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return by_name;
    };
    for t in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue; // the thread exited meanwhile
        };
        let Some((name, cpu)) = parse_stat(&stat) else {
            continue;
        };
        match by_name.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += cpu,
            None => by_name.push((name.to_string(), cpu)),
        }
    }
    by_name.sort_by(|a, b| a.0.cmp(&b.0));
    by_name
}

/// The command name and utime + stime in seconds of a `/proc/.../stat` line.
/// The name is in parentheses and may itself hold spaces and parentheses, so
/// the fields are counted from the last `)`.
fn parse_stat(stat: &str) -> Option<(&str, f64)> {
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let name = stat.get(open + 1..close)?;
    let mut f = stat.get(close + 2..)?.split_whitespace().skip(11);
    let utime: f64 = f.next()?.parse().ok()?;
    let stime: f64 = f.next()?.parse().ok()?;
    Some((name, (utime + stime) / clock_ticks()))
}

/// Clock ticks per second, the unit of the stat files' times.
fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_time_advances_with_work() {
        let t0 = thread_time();
        let mut x = 1u64;
        // spins until the clock moves: ends whatever the machine's speed
        while thread_time() == t0 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        assert!(thread_time() > t0);
        assert!(process_time() > Duration::ZERO);
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let ticks = clock_ticks();
        let line = format!(
            "42 (a) b (c) S 1 2 3 4 5 6 7 8 9 10 {} {} 0 0",
            ticks * 3.0,
            ticks
        );
        assert_eq!(parse_stat(&line), Some(("a) b (c", 4.0)));
        assert_eq!(parse_stat("42 (short) S 1 2"), None);
    }

    #[test]
    fn this_process_and_its_named_threads_are_found() {
        assert!(process_seconds(std::process::id()).is_some_and(|s| s >= 0.0));
        assert_eq!(process_seconds(u32::MAX), None);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::Builder::new()
            .name("cpu-probe".into())
            .spawn(move || {
                ready_tx.send(()).unwrap();
                let _ = rx.recv();
            })
            .unwrap();
        ready_rx.recv().unwrap();
        let threads = seconds_by_thread_name();
        assert!(
            threads.iter().any(|(n, s)| n == "cpu-probe" && *s >= 0.0),
            "{threads:?}"
        );
        assert!(threads.windows(2).all(|w| w[0].0 < w[1].0));
        drop(tx);
        t.join().unwrap();
    }
}
