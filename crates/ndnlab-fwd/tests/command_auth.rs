//! `[[management.authorize]]` (NFD's `authorizations`) over the daemon's Unix
//! socket: commands signed by an authorized key are run; unsigned ones,
//! DigestSha256, unknown keys, bad signatures, stale or replayed timestamps and
//! keys without the module's privilege are refused the way NFD refuses them
//! (no reply, or 403 `authorization rejected`), counted in `status/limits`, and
//! change nothing.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::{temp_dir, RawFace, TestFwd};
use ndnlab_fwd::config::AuthorizeEntry;
use ndnlab_proto::mgmt::command::{command_interest_signed, SignedForm};
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::{ControlParameters as P, ControlResponse};
use ndnlab_security::{naming, validity_from, Certificate, KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{Interest, Name, SignError, SignatureInfo, Signer};

/// A key with a self-signed certificate written to `dir/<label>.ndncert`.
struct Key {
    signer: KeySigner,
    certfile: String,
}

fn key(dir: &Path, identity: &str, label: &str) -> Key {
    let private = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
    let key_name = naming::key_name(&identity.parse().unwrap(), label.as_bytes());
    let signer = KeySigner::new(private.clone(), key_name.clone());
    let now = unix_ms() / 1000;
    let cert = Certificate::build(
        &key_name,
        &private.public_key().unwrap(),
        b"self",
        now * 1000,
        validity_from(now, Duration::from_secs(86400)),
        &signer,
    )
    .unwrap();
    let path = dir.join(format!("{label}.ndncert"));
    std::fs::write(&path, cert.wire()).unwrap();
    Key {
        signer,
        certfile: path.to_string_lossy().into_owned(),
    }
}

/// The wall clock in milliseconds, strictly increasing from call to call (as
/// ndn-cxx's and ndnlab's command signers keep their timestamps).
fn unix_ms() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut prev = LAST.load(Ordering::SeqCst);
    loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange(prev, next, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return next,
            Err(p) => prev = p,
        }
    }
}

fn grant(k: &Key, privileges: &[&str]) -> AuthorizeEntry {
    AuthorizeEntry {
        certfile: k.certfile.clone(),
        privileges: privileges.iter().map(|p| p.to_string()).collect(),
    }
}

fn route(prefix: &str) -> P {
    P {
        name: Some(prefix.parse().unwrap()),
        ..Default::default()
    }
}

/// A `rib/register` of `prefix` signed by `signer` at `time_ms`.
fn signed(signer: &dyn Signer, module: &str, verb: &str, p: &P, time_ms: u64) -> Bytes {
    command_interest_signed(
        module,
        verb,
        p,
        SignedForm::V03,
        time_ms,
        rand::random(),
        signer,
    )
    .unwrap()
}

/// Sends `wire` and returns the reply's ControlResponse, or `None` if the
/// forwarder answered a following well-signed probe first (the command was
/// dropped without a reply: management answers in order).
fn send(c: &mut RawFace, wire: &Bytes, probe: &Key) -> Option<ControlResponse> {
    let name = Interest::decode(wire.clone()).unwrap().name().clone();
    c.send_raw(wire).unwrap();
    let probe_wire = signed(&probe.signer, "cs", "config", &P::default(), unix_ms());
    let probe_name = Interest::decode(probe_wire.clone()).unwrap().name().clone();
    c.send_raw(&probe_wire).unwrap();
    let first = c.recv_data(&"/localhost/nfd".parse().unwrap()).unwrap();
    let resp = |d: &ndnlab_wire::Data| ControlResponse::decode(&d.content()).unwrap();
    if first.name() == &probe_name {
        assert_eq!(resp(&first).code, 200, "the probe is authorized");
        return None;
    }
    assert_eq!(first.name(), &name, "reply has exactly the Interest's name");
    let probe_reply = c.recv_data(&probe_name).unwrap();
    assert_eq!(resp(&probe_reply).code, 200);
    Some(resp(&first))
}

fn rib_prefixes(c: &mut RawFace) -> Vec<String> {
    decode_records(DatasetKind::Rib, &c.dataset("rib", "list").unwrap())
        .unwrap()
        .iter()
        .filter_map(|r| r.text("name").map(str::to_string))
        .collect()
}

fn drops(c: &mut RawFace) -> Vec<(String, u64)> {
    let text = String::from_utf8(c.dataset("status", "limits").unwrap().to_vec()).unwrap();
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((
                k.strip_prefix("drop.command-")?.to_string(),
                v.parse().ok()?,
            ))
        })
        .collect()
}

/// Signs with another key but claims `claimed`'s KeyLocator: a forged signature.
struct Forger<'a> {
    claimed: &'a KeySigner,
    real: &'a KeySigner,
}

impl Signer for Forger<'_> {
    fn signature_info(&self) -> SignatureInfo {
        self.claimed.signature_info()
    }
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignError> {
        self.real.sign(portion)
    }
    fn max_signature_len(&self) -> usize {
        self.real.max_signature_len()
    }
}

#[test]
fn commands_need_an_authorized_key_fresh_timestamp_and_valid_signature() {
    let dir = temp_dir("cmd-auth-keys");
    let admin = key(&dir, "/admin", "a1");
    let operator = key(&dir, "/operator", "o1");
    let intruder = key(&dir, "/intruder", "i1");
    let fwd = TestFwd::start("cmd-auth", |c| {
        c.management.authorize = Some(vec![
            grant(&admin, &["faces", "fib", "rib", "strategy-choice"]),
            grant(&operator, &["cs"]),
        ]);
    });
    let mut c = fwd.client();
    let now = unix_ms;

    // Accepted: signed by the anchor's key, for a module it holds.
    let ok = signed(&admin.signer, "rib", "register", &route("/ok"), now());
    assert_eq!(send(&mut c, &ok, &operator).unwrap().code, 200);

    // Dropped without a reply (NFD: NO_SIGNATURE / INVALID_KEY_LOCATOR are SILENT).
    let unsigned = Interest::builder(ndnlab_proto::mgmt::command::command_name(
        "rib",
        "register",
        &route("/unsigned"),
    ))
    .nonce(1)
    .build();
    assert_eq!(send(&mut c, &unsigned, &operator), None, "unsigned");
    let digest = ndnlab_app::client::mgmt::command_interest("rib", "register", &route("/digest"));
    assert_eq!(send(&mut c, &digest, &operator), None, "DigestSha256");

    // 403 "authorization rejected".
    let refused = |c: &mut RawFace, wire: Bytes, what: &str| {
        let r = send(c, &wire, &operator).unwrap_or_else(|| panic!("{what}: no reply"));
        assert_eq!(
            (r.code, r.text.as_str()),
            (403, "authorization rejected"),
            "{what}"
        );
    };
    refused(
        &mut c,
        signed(
            &intruder.signer,
            "rib",
            "register",
            &route("/intruder"),
            now(),
        ),
        "unknown key",
    );
    let forged = Forger {
        claimed: &admin.signer,
        real: &intruder.signer,
    };
    refused(
        &mut c,
        signed(&forged, "rib", "register", &route("/forged"), now()),
        "bad signature",
    );
    refused(
        &mut c,
        signed(
            &admin.signer,
            "rib",
            "register",
            &route("/stale"),
            now() - 600_000,
        ),
        "stale timestamp",
    );
    refused(
        &mut c,
        signed(
            &admin.signer,
            "rib",
            "register",
            &route("/future"),
            now() + 600_000,
        ),
        "timestamp in the future",
    );
    // The extremes of the SignatureTime field: outside the grace period, never
    // wrapping into it.
    for (k, t) in [0, i64::MAX as u64, u64::MAX].into_iter().enumerate() {
        let p = route(&format!("/extreme/{k}"));
        refused(
            &mut c,
            signed(&admin.signer, "rib", "register", &p, t),
            "extreme timestamp",
        );
    }
    // A second command carrying an accepted timestamp (a replay) is refused; a
    // later one is accepted.
    let t = now();
    let first = signed(&admin.signer, "rib", "register", &route("/first"), t);
    assert_eq!(send(&mut c, &first, &operator).unwrap().code, 200);
    refused(
        &mut c,
        signed(&admin.signer, "rib", "register", &route("/replayed"), t),
        "replayed timestamp",
    );
    refused(
        &mut c,
        signed(&admin.signer, "rib", "register", &route("/older"), t - 1),
        "older timestamp",
    );
    refused(
        &mut c,
        signed(
            &operator.signer,
            "rib",
            "register",
            &route("/operator"),
            now(),
        ),
        "module not granted",
    );
    let later = signed(&admin.signer, "rib", "register", &route("/later"), t + 1);
    assert_eq!(send(&mut c, &later, &operator).unwrap().code, 200);

    // Nothing the refused commands asked for happened.
    let mut rib = rib_prefixes(&mut c);
    rib.retain(|p| !p.starts_with("/localhost"));
    rib.sort();
    assert_eq!(rib, ["/first", "/later", "/ok"]);

    // Counted, by reason.
    let d = drops(&mut c);
    let get = |r: &str| d.iter().find(|(k, _)| k == r).map(|(_, v)| *v);
    assert_eq!(get("unsigned"), Some(1));
    assert_eq!(get("bad-key-locator"), Some(1));
    assert_eq!(get("unknown-key"), Some(1));
    assert_eq!(get("bad-signature"), Some(1));
    assert_eq!(get("bad-timestamp"), Some(5));
    assert_eq!(get("replayed"), Some(2));
    assert_eq!(get("unauthorized"), Some(1));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_older_signed_form_is_checked_too() {
    let dir = temp_dir("cmd-auth-legacy");
    let admin = key(&dir, "/admin", "a1");
    let intruder = key(&dir, "/intruder", "i1");
    let fwd = TestFwd::start("cmd-auth-legacy", |c| {
        c.management.authorize = Some(vec![grant(&admin, &["rib", "cs"])]);
    });
    let mut c = fwd.client();
    let legacy = |s: &dyn Signer, prefix: &str| {
        command_interest_signed(
            "rib",
            "register",
            &route(prefix),
            SignedForm::Legacy,
            unix_ms(),
            rand::random(),
            s,
        )
        .unwrap()
    };
    assert_eq!(
        send(&mut c, &legacy(&admin.signer, "/old-ok"), &admin)
            .unwrap()
            .code,
        200
    );
    let forged = Forger {
        claimed: &admin.signer,
        real: &intruder.signer,
    };
    let r = send(&mut c, &legacy(&forged, "/old-forged"), &admin).unwrap();
    assert_eq!(r.code, 403);
    assert!(!rib_prefixes(&mut c).contains(&"/old-forged".to_string()));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn certfile_any_accepts_every_command_of_its_modules_only() {
    let dir = temp_dir("cmd-auth-any");
    let admin = key(&dir, "/admin", "a1");
    let fwd = TestFwd::start("cmd-auth-any", |c| {
        c.management.authorize = Some(vec![
            AuthorizeEntry {
                certfile: "any".into(),
                privileges: vec!["rib".into()],
            },
            grant(&admin, &["cs"]),
        ]);
    });
    let mut c = fwd.client();
    let digest = ndnlab_app::client::mgmt::command_interest("rib", "register", &route("/any"));
    assert_eq!(send(&mut c, &digest, &admin).unwrap().code, 200);
    // strategy-choice is granted to nobody: even the admin key is refused.
    let set = P {
        name: Some("/s".parse().unwrap()),
        strategy: Some("/localhost/nfd/strategy/multicast".parse::<Name>().unwrap()),
        ..Default::default()
    };
    let wire = signed(&admin.signer, "strategy-choice", "set", &set, unix_ms());
    assert_eq!(send(&mut c, &wire, &admin).unwrap().code, 403);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_bad_certfile_stops_the_daemon_with_its_key_named() {
    let dir = temp_dir("cmd-auth-bad");
    std::fs::write(dir.join("junk.ndncert"), b"not a certificate").unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (file, what) in [
        ("missing.ndncert", "cannot read"),
        ("junk.ndncert", "not an NDN certificate"),
    ] {
        let mut cfg = ndnlab_fwd::FwdConfig::default();
        cfg.faces.unix.enabled = false;
        cfg.management.authorize = Some(vec![AuthorizeEntry {
            certfile: dir.join(file).to_string_lossy().into_owned(),
            privileges: vec!["rib".into()],
        }]);
        let e = match rt.block_on(ndnlab_fwd::Daemon::start(cfg)) {
            Ok(_) => panic!("{file}: started"),
            Err(e) => format!("{e:#}"),
        };
        assert!(
            e.contains("management.authorize[0].certfile") && e.contains(what),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
