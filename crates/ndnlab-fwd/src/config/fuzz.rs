//! Fuzz harness of the daemon's configuration file. The cargo-fuzz target
//! `fuzz/fuzz_targets/fwd_config.rs` and the stable property test
//! (`tests/fuzz_props.rs`) call the same function: one harness, two drivers.

use std::path::Path;

use super::FwdConfig;

/// Any UTF-8 as `fwd.toml`: parsing and validation fail with a message (never a
/// panic), and an accepted file's strategy entries resolve.
pub fn fwd_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cfg) = FwdConfig::from_toml(text, Path::new("fuzz.toml")) else {
        return;
    };
    let _ = cfg.validate();
}
