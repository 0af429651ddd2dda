//! Harness for the `ndnlab fwd` process tests: real daemons on temp Unix sockets and
//! ephemeral 127.0.0.1 ports ([`FwdProcess`], `tests/fwd_process`), python-ndn apps
//! (interop/fwd_*.py), `ndnlab ctl`.
#![allow(dead_code)]

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

#[path = "../fwd_process/mod.rs"]
mod fwd_process;
pub use fwd_process::FwdProcess;
#[allow(unused_imports)]
pub use ndnlab_testkit::{python, python_home, temp_dir, workspace, Lines, Py};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ndnlab"))
}

/// An `ndnlab fwd` process of this crate's binary.
pub struct Fwd(FwdProcess);

impl Fwd {
    /// Writes `fwd.toml` (`extra` appended to a config with the temp socket) and starts.
    pub fn start(tag: &str, extra: &str) -> Fwd {
        Fwd(FwdProcess::start(bin(), tag, extra))
    }
}

impl Deref for Fwd {
    type Target = FwdProcess;
    fn deref(&self) -> &FwdProcess {
        &self.0
    }
}

impl DerefMut for Fwd {
    fn deref_mut(&mut self) -> &mut FwdProcess {
        &mut self.0
    }
}
