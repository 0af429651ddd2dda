//! `ndnlab key ...` and `ndnlab bench sign` end to end, on temporary keychains.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-key-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn ndnlab(keychain: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .arg("key")
        .arg("--keychain")
        .arg(keychain)
        .args(args)
        .env_remove("NDNLAB_PASSPHRASE")
        .output()
        .expect("run ndnlab")
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn fails(o: Output, needle: &str) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected failure, got {:?}",
        o.status
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(needle), "stderr {err:?} lacks {needle:?}");
}

#[test]
fn gen_list_export_import_delete() {
    let a = tmp("a");
    let b = tmp("b");
    let out = ok(ndnlab(&a, &["gen", "/test/alice", "--type", "ed25519"]));
    assert!(out.contains("/test/alice/KEY/"), "{out}");
    ok(ndnlab(&a, &["gen", "/test/alice", "--type", "hmac"]));
    ok(ndnlab(&a, &["gen", "/test/bob", "-t", "rsa-1024"]));

    let list: serde_json::Value =
        serde_json::from_str(&ok(ndnlab(&a, &["list", "--json"]))).unwrap();
    let keys = list["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 3);
    let mut types: Vec<&str> = keys.iter().map(|k| k["type"].as_str().unwrap()).collect();
    types.sort();
    assert_eq!(types, ["ed25519", "hmac", "rsa-1024"]);
    let human = ok(ndnlab(&a, &["list"]));
    assert!(
        human.contains("rsa-1024") && human.contains("CERTIFICATES"),
        "{human}"
    );

    // export (binary and base64), import into another keychain
    let cert_file = a.join("bob.cert");
    ok(ndnlab(
        &a,
        &[
            "export-cert",
            "/test/bob",
            "-o",
            cert_file.to_str().unwrap(),
        ],
    ));
    let b64 = ok(ndnlab(&a, &["export-cert", "/test/bob"]));
    let b64_file = a.join("bob.b64");
    std::fs::write(&b64_file, b64).unwrap();
    let imported = ok(ndnlab(&b, &["import", b64_file.to_str().unwrap()]));
    assert!(imported.contains("/test/bob/KEY/"), "{imported}");
    ok(ndnlab(&b, &["import", cert_file.to_str().unwrap()]));
    // a certificate-only import has no key to list, but it can be exported again
    let again = ok(ndnlab(
        &b,
        &["export-cert", imported.split_whitespace().nth(1).unwrap()],
    ));
    assert_eq!(
        again.split_whitespace().collect::<String>(),
        std::fs::read_to_string(&b64_file)
            .unwrap()
            .split_whitespace()
            .collect::<String>()
    );

    // clear errors
    fails(
        ndnlab(&a, &["export-cert", "/nobody"]),
        "unknown identity /nobody",
    );
    fails(
        ndnlab(&a, &["gen", "/x", "--type", "dsa"]),
        "unknown key type",
    );
    std::fs::write(a.join("junk"), b"junk").unwrap();
    fails(
        ndnlab(&a, &["import", a.join("junk").to_str().unwrap()]),
        "not a certificate",
    );
    std::fs::write(a.join("junk"), b"\x06\x10abc").unwrap();
    let o = ndnlab(&a, &["import", a.join("junk").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(err.matches("malformed packet").count(), 1, "{err}");

    let out = ok(ndnlab(&a, &["delete", "/test/alice"]));
    assert!(out.contains("deleted 3 file(s)"), "{out}");
    fails(
        ndnlab(&a, &["delete", "/test/alice"]),
        "unknown key or certificate",
    );
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn encrypted_keys_and_corrupt_files() {
    let a = tmp("enc");
    let pass = a.with_extension("pass");
    std::fs::write(&pass, "correct horse\n").unwrap();
    ok(ndnlab(
        &a,
        &[
            "gen",
            "/enc",
            "-t",
            "ecdsa-p256",
            "--passphrase-file",
            pass.to_str().unwrap(),
        ],
    ));
    let list: serde_json::Value =
        serde_json::from_str(&ok(ndnlab(&a, &["list", "--json"]))).unwrap();
    assert_eq!(list["keys"][0]["storage"], "pkcs8-encrypted");
    assert_eq!(list["keys"][0]["type"], "ecdsa-p256");
    // no file but the key and the certificate, no temporaries
    let files: Vec<_> = std::fs::read_dir(a.join("keys")).unwrap().collect();
    assert_eq!(files.len(), 1);

    // a corrupted (truncated) plain key file is reported as such
    ok(ndnlab(&a, &["gen", "/plain", "-t", "ecdsa-p384"]));
    for e in std::fs::read_dir(a.join("keys")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().unwrap() == "p8" {
            let bytes = std::fs::read(&p).unwrap();
            std::fs::write(&p, &bytes[..10]).unwrap();
        }
    }
    fails(ndnlab(&a, &["list"]), "corrupt keychain file");
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_file(&pass).unwrap();
}

#[test]
fn bench_sign_json() {
    let o = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args([
            "bench",
            "sign",
            "--type",
            "ed25519",
            "--payload",
            "1024",
            "--threads",
            "1",
            "--duration",
            "0.05",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&ok(o).into_bytes()).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["type"], "ed25519");
    assert!(r["signed_per_s"].as_f64().unwrap() > 0.0);
    assert!(r["verified_per_s"].as_f64().unwrap() > 0.0);
}
