//! `[[management.authorize]]`: which keys may send which management commands
//! (NFD's `authorizations` section). Absent, every command from a local face is
//! accepted, as before; present, a command must be signed by the key of a
//! certificate listed for its module (or the entry says `certfile = "any"`).
//! The certificates are loaded by the management task (`mgmt/auth.rs`) at
//! startup; here only the keys are checked.

use std::path::Path;

use serde::Deserialize;

use super::{invalid, ConfigError, ManagementSection};

/// The modules a privilege can name (NFD's, plus `rib`, which NFD grants in the
/// RIB's `localhost_security` section instead).
pub const PRIVILEGES: [&str; 5] = ["faces", "fib", "rib", "cs", "strategy-choice"];

/// Longest accepted `management.command_grace_period_s` (an hour).
const MAX_GRACE_S: u64 = 3600;

/// One `[[management.authorize]]` entry (NFD's `authorize { certfile ...;
/// privileges { ... } }`).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AuthorizeEntry {
    /// An NDN certificate file (binary, or base64 as `ndnsec cert-dump` and
    /// `ndnlab key export-cert` print), relative to the configuration file's
    /// directory; or `"any"`: any signer, even none (NFD's `certfile any`).
    pub certfile: String,
    /// Modules the certificate's key may command: faces, fib, rib, cs,
    /// strategy-choice.
    pub privileges: Vec<String>,
}

impl AuthorizeEntry {
    /// Whether this is NFD's `certfile any`.
    pub fn is_any(&self) -> bool {
        self.certfile == "any"
    }
}

impl ManagementSection {
    /// Checks the authorization keys, naming the bad one.
    pub(super) fn check_authorize(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_GRACE_S).contains(&self.command_grace_period_s) {
            return Err(invalid(
                "management.command_grace_period_s",
                format!("must be within 1..={MAX_GRACE_S} seconds"),
            ));
        }
        let Some(entries) = &self.authorize else {
            return Ok(());
        };
        if entries.is_empty() {
            return Err(invalid(
                "management.authorize",
                "is empty: remove it to accept every command from local faces, or add an entry",
            ));
        }
        for (i, e) in entries.iter().enumerate() {
            if e.certfile.is_empty() {
                return Err(invalid(
                    format!("management.authorize[{i}].certfile"),
                    "is empty (a certificate file, or \"any\")",
                ));
            }
            for (j, p) in e.privileges.iter().enumerate() {
                if !PRIVILEGES.contains(&p.as_str()) {
                    return Err(invalid(
                        format!("management.authorize[{i}].privileges[{j}]"),
                        format!(
                            "unknown module '{p}' (expected one of {})",
                            PRIVILEGES.join(", ")
                        ),
                    ));
                }
                if e.privileges[..j].contains(p) {
                    return Err(invalid(
                        format!("management.authorize[{i}].privileges[{j}]"),
                        format!("'{p}' is listed twice"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Makes relative certificate paths relative to the configuration file's
    /// directory (as NFD does).
    pub(super) fn resolve_certfiles(&mut self, config_path: &Path) {
        let dir = config_path.parent().unwrap_or(Path::new(""));
        for e in self.authorize.iter_mut().flatten() {
            if !e.is_any() && Path::new(&e.certfile).is_relative() {
                e.certfile = dir.join(&e.certfile).to_string_lossy().into_owned();
            }
        }
    }
}
