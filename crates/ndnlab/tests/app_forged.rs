//! The consumers' `--verify` against a forging producer on a real `ndnlab fwd`:
//! `get` and `perf client` reject Data whose signature value was altered, Data
//! signed by another key than the one its KeyLocator names, and (with
//! `--trust-anchor`) Data signed by any key but the anchor's; they say so and
//! exit non-zero, and `get` leaves no file, partial or complete.

mod app_common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use app_common::*;
use bytes::Bytes;
use ndnlab_app::client::{Client, FaceUri};
use ndnlab_security::{naming, validity_from, Certificate, KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{Data, Name, SignError, SignatureInfo, Signer};

/// How the producer signs its Data.
#[derive(Clone, Copy, Debug)]
enum Signing {
    /// With the anchor's key: genuine.
    Anchor,
    /// With the anchor's key, then the last byte of the signature value flipped.
    BadValue,
    /// With another key, whose certificate it also serves.
    OtherKey,
    /// With another key, but naming the anchor's key in its KeyLocator.
    ClaimsAnchor,
}

struct Keyed {
    signer: KeySigner,
    cert: Certificate,
}

fn keyed(prefix: &str, id: &str) -> Keyed {
    let key = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
    let name = naming::key_name(&prefix.parse().unwrap(), id.as_bytes());
    let signer = KeySigner::new(key.clone(), name.clone());
    let cert = Certificate::build(
        &name,
        &key.public_key().unwrap(),
        b"self",
        1,
        validity_from(0, Duration::from_secs(1 << 40)),
        &signer,
    )
    .unwrap();
    Keyed { signer, cert }
}

/// Claims one key's KeyLocator, signs with another's.
struct Claiming<'a>(&'a KeySigner, &'a KeySigner);

impl Signer for Claiming<'_> {
    fn signature_info(&self) -> SignatureInfo {
        self.0.signature_info()
    }
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignError> {
        self.1.sign(portion)
    }
    fn max_signature_len(&self) -> usize {
        self.1.max_signature_len()
    }
}

/// A producer registered under `prefix` on `fwd`, answering every Interest: the
/// two certificates under their key names, otherwise a Data signed as `how`
/// says (a 3-segment object under `<prefix>/obj/v=1`, FinalBlockId segment 2).
/// Returns the anchor's certificate file.
fn forging_producer(fwd: &Fwd, prefix: &'static str, how: Signing) -> std::path::PathBuf {
    let anchor = keyed(prefix, "anchor");
    let other = keyed(prefix, "other");
    let certfile = fwd.dir.path().join(format!("anchor-{how:?}.ndncert"));
    std::fs::write(&certfile, anchor.cert.wire()).unwrap();
    let uri = FaceUri::resolve(Some(Path::new(fwd.sock()))).unwrap();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let client = Client::connect(&uri).await.unwrap();
            let mut producer = client.register(&prefix.parse().unwrap()).await.unwrap();
            ready_tx.send(()).unwrap();
            let last: Name = format!("{prefix}/obj/v=1")
                .parse::<Name>()
                .unwrap()
                .append_segment(2);
            while let Some(inc) = producer.recv().await {
                let name = inc.interest.name().clone();
                let wire = if anchor.cert.key_name().is_prefix_of(&name) {
                    anchor.cert.wire().clone()
                } else if other.cert.key_name().is_prefix_of(&name) {
                    other.cert.wire().clone()
                } else {
                    let b = Data::builder(name.clone())
                        .content(Bytes::from(format!("{name}\n")))
                        .final_block_id(last.last().unwrap());
                    let signed = match how {
                        Signing::Anchor | Signing::BadValue => b.sign(&anchor.signer),
                        Signing::OtherKey => b.sign(&other.signer),
                        Signing::ClaimsAnchor => b.sign(&Claiming(&anchor.signer, &other.signer)),
                    }
                    .unwrap();
                    let mut wire = signed.to_vec();
                    if let Signing::BadValue = how {
                        *wire.last_mut().unwrap() ^= 0x5a;
                    }
                    Bytes::from(wire)
                };
                if client.put_data(wire, inc.pit_token.as_ref()).await.is_err() {
                    break;
                }
            }
        });
    });
    ready_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("producer registered");
    certfile
}

fn get(fwd: &Fwd, name: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "get",
        name,
        "-o",
        out.to_str().unwrap(),
        "--socket",
        fwd.sock(),
    ];
    args.extend_from_slice(extra);
    run(&args, Duration::from_secs(60))
}

/// No output file and no temporary part file left in `out`'s directory.
fn assert_nothing_written(out: &Path) {
    assert!(!out.exists(), "{} was written", out.display());
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("ndnlab-part"))
        .collect();
    assert!(left.is_empty(), "partial files left: {left:?}");
}

#[test]
fn get_verify_rejects_forged_data_and_writes_nothing() {
    let fwd = Fwd::start();
    for (prefix, how, extra, says) in [
        (
            "/forge/value",
            Signing::BadValue,
            vec!["--verify"],
            "signature rejected",
        ),
        (
            "/forge/claim",
            Signing::ClaimsAnchor,
            vec!["--verify"],
            "signature rejected",
        ),
        (
            "/forge/other",
            Signing::OtherKey,
            vec![],
            "not by the trust anchor",
        ),
    ] {
        let anchor = forging_producer(&fwd, prefix, how);
        let mut extra: Vec<String> = extra.into_iter().map(String::from).collect();
        if let Signing::OtherKey = how {
            extra.extend([
                "--trust-anchor".into(),
                anchor.to_string_lossy().into_owned(),
            ]);
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let out = fwd.dir.path().join(format!("{how:?}.out"));
        let o = get(&fwd, &format!("{prefix}/obj/v=1"), &out, &extra);
        let err = stderr(&o);
        assert!(!o.status.success(), "{how:?}: get succeeded");
        assert!(err.contains(says) && err.contains(prefix), "{how:?}: {err}");
        assert!(err.contains("no output file written"), "{how:?}: {err}");
        assert_nothing_written(&out);
    }
}

#[test]
fn get_verify_accepts_the_anchor_and_only_the_anchor_decides() {
    let fwd = Fwd::start();
    // Genuine Data from the anchor's key: accepted with the anchor.
    let anchor = forging_producer(&fwd, "/genuine", Signing::Anchor);
    let out = fwd.dir.path().join("genuine.out");
    let a = anchor.to_string_lossy().into_owned();
    let o = get(&fwd, "/genuine/obj/v=1", &out, &["--trust-anchor", &a]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
    // Another key's Data verify against the certificate they name (integrity),
    // and only the trust anchor rejects them (the previous test).
    forging_producer(&fwd, "/another", Signing::OtherKey);
    let out = fwd.dir.path().join("another.out");
    let o = get(&fwd, "/another/obj/v=1", &out, &["--verify"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn perf_client(fwd: &Fwd, prefix: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "perf",
        "client",
        "--prefix",
        prefix,
        "--duration",
        "1",
        "--interval",
        "1",
        "--window",
        "4",
        "--json",
        "--socket",
        fwd.sock(),
    ];
    args.extend_from_slice(extra);
    run(&args, Duration::from_secs(60))
}

fn summary(o: &std::process::Output) -> serde_json::Value {
    json_lines(&stdout(o))
        .into_iter()
        .find(|v| v["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary: {}", stdout(o)))
}

#[test]
fn perf_client_verify_counts_forged_data_and_fails() {
    let fwd = Fwd::start();
    let anchor = forging_producer(&fwd, "/pforge/value", Signing::BadValue);
    let o = perf_client(&fwd, "/pforge/value", &["--verify"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("failed signature verification") && err.contains("signature rejected"),
        "{err}"
    );
    let s = summary(&o);
    assert!(s["rejected"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["data"], 0, "{s}");
    // Another key than the anchor's.
    forging_producer(&fwd, "/pforge/other", Signing::OtherKey);
    let a = anchor.to_string_lossy().into_owned();
    let o = perf_client(&fwd, "/pforge/other", &["--trust-anchor", &a]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not by the trust anchor"),
        "{}",
        stderr(&o)
    );
    // Genuine Data: accepted, none rejected.
    let anchor = forging_producer(&fwd, "/pforge/genuine", Signing::Anchor);
    let a = anchor.to_string_lossy().into_owned();
    for extra in [vec!["--verify"], vec!["--trust-anchor", &a]] {
        let o = perf_client(&fwd, "/pforge/genuine", &extra);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let s = summary(&o);
        assert_eq!(s["rejected"], 0, "{s}");
        assert!(s["data"].as_u64().unwrap() > 0, "{s}");
    }
}

#[test]
fn perf_client_verify_checks_a_real_perf_server() {
    let fwd = Fwd::start();
    let _server = spawn(&[
        "perf",
        "server",
        "--prefix",
        "/psrv",
        "--sign",
        "ed25519",
        "--payload",
        "1000",
        "--socket",
        fwd.sock(),
    ]);
    let mut last = None;
    let ok = wait_until(Duration::from_secs(30), || {
        let o = perf_client(&fwd, "/psrv", &["--verify"]);
        let done = o.status.success();
        last = Some(o);
        done
    });
    let o = last.unwrap();
    assert!(ok, "{}", stderr(&o));
    let s = summary(&o);
    assert_eq!(s["rejected"], 0, "{s}");
}
