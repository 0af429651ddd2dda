//! Everything a run creates outside this process, and how it is torn down.
//!
//! The `processes` and `netns` runners start child processes (forwarders and
//! applications), keep their Unix sockets in temporary directories, and (netns)
//! create network namespaces joined by veth pairs. Each of these is entered in a
//! process-wide registry when it is created and left when the runner removes it:
//!
//! * children start through [`spawn`], each the leader of a process group of its
//!   own (a terminal's Ctrl-C does not reach it; killing the group reaches
//!   anything it started), and ask the kernel for SIGKILL should the thread that
//!   started them die (`PR_SET_PDEATHSIG`, which covers a runner killed with
//!   SIGKILL, where nothing else runs);
//! * [`Namespace`] is a network namespace, deleted with `ip netns delete` when
//!   dropped; the veth pairs of the netns runner live only inside such
//!   namespaces (both ends are created there), so deleting the namespaces
//!   deletes them;
//! * [`TempDir`] is a directory removed, with its contents, when dropped.
//!
//! A run that ends or fails drops its guards. For Ctrl-C, where no destructor
//! runs, `ndnlab run` calls [`install`]: its SIGINT/SIGTERM handler only writes
//! the signal's number to a pipe (async-signal-safe); a thread of its own reads
//! it, marks the registry as stopping (a thread that then tries to spawn or
//! create anything, or the campaign finishing a run, is parked for good), kills
//! every registered process group, deletes the namespaces, removes the
//! directories, and exits with 128 + the signal's number.
//!
//! A campaign killed with SIGKILL runs none of this: its children die with it
//! (`PR_SET_PDEATHSIG`), and what is left on disk, the socket directories
//! `ndnlab-lab-<pid>-<run>` of a `<pid>` that is gone, is removed by
//! [`sweep_stale`] when the next campaign starts ([`install`] calls it); the
//! netns runner deletes such a campaign's namespaces when it next builds one.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicI32, Ordering::SeqCst};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One thing to tear down.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    /// A process group (its id is the leader's pid).
    Group(i32),
    /// A network namespace, by name.
    Namespace(String),
    /// A directory, removed with everything in it.
    Dir(PathBuf),
}

struct Registry {
    items: Vec<Item>,
    /// Set by the signal's teardown: nothing new may be created.
    stopping: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    items: Vec::new(),
    stopping: false,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Parks the calling thread for good once a signal's teardown has started
/// (the teardown thread ends the process), so that nothing new starts, no
/// interrupted run is recorded as failed, and the campaign cannot return
/// before the teardown is done.
pub fn halt_if_stopping() {
    drop(lock_unless_stopping());
}

/// The registry, locked; halts instead once a teardown has started.
fn lock_unless_stopping() -> MutexGuard<'static, Registry> {
    let r = registry();
    if r.stopping {
        drop(r);
        loop {
            std::thread::park();
        }
    }
    r
}

/// Enters `item` unless a teardown has started (then the thread halts);
/// `create` runs under the lock, so an item is either created and registered,
/// or neither.
fn enter<T>(item: Item, create: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let mut r = lock_unless_stopping();
    let t = create()?;
    r.items.push(item);
    Ok(t)
}

fn leave(item: &Item) {
    let mut r = registry();
    if let Some(i) = r.items.iter().position(|x| x == item) {
        r.items.swap_remove(i);
    }
}

/// Starts `cmd` as the leader of a new process group, registered for teardown.
/// The caller kills the group and calls [`reaped`] when it is done with it.
pub fn spawn(cmd: &mut Command) -> anyhow::Result<Child> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    // SAFETY: prctl(2) is async-signal-safe and touches nothing of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut r = lock_unless_stopping();
    let child = cmd.spawn()?;
    r.items.push(Item::Group(child.id() as i32));
    Ok(child)
}

/// Kills a process group started by [`spawn`] and reaps its leader.
pub fn kill_group(child: &mut Child) {
    // SAFETY: kill(2) on the child's own process group.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
    leave(&Item::Group(child.id() as i32));
}

/// A network namespace, deleted (with the veth ends inside it) when dropped.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

impl Namespace {
    /// `ip netns add name`, registered for teardown.
    pub fn add(name: &str) -> anyhow::Result<Namespace> {
        enter(Item::Namespace(name.to_string()), || {
            crate::runner::netns::ip(&["netns", "add", name]).map(|_| ())
        })?;
        Ok(Namespace {
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        delete_namespace(&self.name);
        leave(&Item::Namespace(self.name.clone()));
    }
}

fn delete_namespace(name: &str) {
    let _ = Command::new("ip")
        .args(["netns", "delete", name])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// A directory, removed with its contents when dropped.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `path` afresh (removing what a dead campaign may have left there).
    pub fn new(path: PathBuf) -> anyhow::Result<TempDir> {
        enter(Item::Dir(path.clone()), || {
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))
        })?;
        Ok(TempDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        leave(&Item::Dir(self.path.clone()));
    }
}

/// The process groups with a live member (zombies do not count: a container's
/// init may never reap them).
fn live_groups() -> std::collections::BTreeSet<i32> {
    let mut out = std::collections::BTreeSet::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // after "pid (comm) ": state, ppid, pgrp
        let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().take(3).collect();
        if f.len() == 3 && f[0] != "Z" && f[0] != "X" {
            if let Ok(g) = f[2].parse() {
                out.insert(g);
            }
        }
    }
    out
}

/// Tears down everything registered: process groups (waiting up to 2 s for
/// them to die), then namespaces, then directories. Nothing can be registered
/// afterwards.
pub fn teardown() {
    let items = {
        let mut r = registry();
        r.stopping = true;
        std::mem::take(&mut r.items)
    };
    let groups: Vec<i32> = items
        .iter()
        .filter_map(|i| match i {
            Item::Group(g) => Some(*g),
            _ => None,
        })
        .collect();
    for g in &groups {
        // SAFETY: kill(2) on process groups this process created.
        unsafe {
            libc::kill(-g, libc::SIGKILL);
        }
    }
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        let live = live_groups();
        if !groups.iter().any(|g| live.contains(g)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for i in &items {
        if let Item::Namespace(n) = i {
            delete_namespace(n);
        }
    }
    for i in &items {
        if let Item::Dir(d) = i {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The start of the name of a run's socket directory in the temporary
/// directory: `ndnlab-lab-<pid>-<run>`.
const SOCKET_DIR_PREFIX: &str = "ndnlab-lab-";

/// The socket directory of run `run_id` of this campaign (short: Unix socket
/// paths are limited), which [`sweep_stale_in`] recognises once this process is
/// gone.
pub fn socket_dir(run_id: usize) -> PathBuf {
    std::env::temp_dir().join(format!(
        "{SOCKET_DIR_PREFIX}{}-{run_id}",
        std::process::id()
    ))
}

/// Removes the socket directories `ndnlab-lab-<pid>-<run>` in `parent` whose
/// `<pid>` is no longer running (a campaign killed with SIGKILL). Returns how
/// many it removed.
pub fn sweep_stale_in(parent: &Path) -> usize {
    let Ok(dir) = std::fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SOCKET_DIR_PREFIX))
            .and_then(|r| r.split_once('-'))
            .and_then(|(pid, run)| run.parse::<u64>().ok().and(pid.parse::<u32>().ok()))
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() && std::fs::remove_dir_all(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// [`sweep_stale_in`] the temporary directory.
pub fn sweep_stale() -> usize {
    sweep_stale_in(&std::env::temp_dir())
}

/// The pipe's write end, for the signal handler.
static PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    let b = sig as u8;
    // SAFETY: write(2) is async-signal-safe; the byte outlives the call.
    unsafe {
        libc::write(PIPE.load(SeqCst), (&b as *const u8).cast(), 1);
    }
}

/// Installs the SIGINT and SIGTERM handling (see the module documentation),
/// once [`sweep_stale`] removed what killed campaigns left. Idempotent.
pub fn install() {
    let mut fds = [0; 2];
    if PIPE.load(SeqCst) >= 0 {
        return;
    }
    sweep_stale();
    // SAFETY: pipe2(2) fills the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    if PIPE.compare_exchange(-1, fds[1], SeqCst, SeqCst).is_err() {
        return;
    }
    let read_end = fds[0];
    let spawned = std::thread::Builder::new()
        .name("lab-signals".into())
        .spawn(move || {
            let mut b = 0u8;
            loop {
                // SAFETY: reads one byte into `b`.
                let n = unsafe { libc::read(read_end, (&mut b as *mut u8).cast(), 1) };
                if n == 1 {
                    break;
                }
            }
            eprintln!("ndnlab: interrupted; stopping every process, removing namespaces and temporary directories");
            teardown();
            // SAFETY: _exit(2) ends the process without running anything of the
            // other threads, which may still be in the middle of a run.
            unsafe { libc::_exit(128 + b as i32) }
        });
    if spawned.is_err() {
        return;
    }
    // SAFETY: the handler is async-signal-safe (see the module documentation).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_group_leaves_no_process() {
        let mut cmd = Command::new("sh");
        // the leader starts a grandchild in its group
        cmd.args(["-c", "sleep 30 & sleep 30"]);
        let mut c = spawn(&mut cmd).unwrap();
        let pgid = c.id() as i32;
        assert!(registry().items.contains(&Item::Group(pgid)));
        kill_group(&mut c);
        assert!(!registry().items.contains(&Item::Group(pgid)));
        let gone = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            !live_groups().contains(&pgid)
        });
        assert!(gone, "the whole group is gone");
    }

    #[test]
    fn temp_dirs_are_removed_on_drop() {
        let p = std::env::temp_dir().join(format!("ndnlab-cleanup-{}", std::process::id()));
        let d = TempDir::new(p.clone()).unwrap();
        std::fs::write(d.path().join("x"), b"x").unwrap();
        assert!(registry().items.contains(&Item::Dir(p.clone())));
        drop(d);
        assert!(!p.exists());
        assert!(!registry().items.contains(&Item::Dir(p)));
    }

    #[test]
    fn the_sweep_removes_only_the_socket_dirs_of_dead_campaigns() {
        let parent = std::env::temp_dir().join(format!("ndnlab-sweep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&parent);
        // A pid that is gone: a child that has been waited for.
        let mut dead = Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        dead.wait().unwrap();
        let me = std::process::id();
        let stale = parent.join(format!("ndnlab-lab-{dead_pid}-3"));
        let live = parent.join(format!("ndnlab-lab-{me}-3"));
        let other = parent.join(format!("ndnlab-lab-{dead_pid}-x"));
        for d in [&stale, &live, &other] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("a.sock"), b"").unwrap();
        }
        let removed = sweep_stale_in(&parent);
        if Path::new(&format!("/proc/{dead_pid}")).exists() {
            ndnlab_testkit::skip(format!("pid {dead_pid} was reused before the sweep"));
        } else {
            assert_eq!(removed, 1);
            assert!(!stale.exists(), "the dead campaign's directory is removed");
        }
        assert!(live.exists(), "a running campaign's directory is kept");
        assert!(other.exists(), "a name not of the runner's form is kept");
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
