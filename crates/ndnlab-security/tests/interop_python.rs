//! Live interop with python-ndn 0.5.2 (interop/security_python.py): python-ndn
//! signs Data and signed Interests with every type it has and we verify them
//! (and reject one-bit corruptions); we sign with every type and python-ndn
//! verifies; certificates cross-parse both ways.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_security::naming::{key_name, SELF_ISSUER};
use ndnlab_security::{
    validity_from, verify_data, verify_interest, Certificate, InterestSigner, KeySigner, KeyType,
    PrivateKey, PublicKey, Rejection,
};
use ndnlab_wire::{content_type, Data, DigestSha256, Interest, Name, Signer};

use ndnlab_testkit::{python, workspace as root};

fn run_python(cmd: &str, dir: &Path) -> serde_json::Value {
    let out = Command::new(python())
        .arg(root().join("interop/security_python.py"))
        .arg(cmd)
        .arg(dir)
        .output()
        .expect("cannot run python");
    assert!(
        out.status.success(),
        "python {cmd} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("python output is JSON")
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-sec-interop-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Flips one bit of the first occurrence of `marker` (or of the last byte).
fn flip(wire: &[u8], marker: Option<&[u8]>) -> Bytes {
    let mut w = wire.to_vec();
    let pos = match marker {
        Some(m) => w
            .windows(m.len())
            .position(|x| x == m)
            .expect("marker in packet"),
        None => w.len() - 1,
    };
    w[pos] ^= 0x04;
    Bytes::from(w)
}

fn sig_type_name(t: &str) -> u64 {
    match t {
        "digest" => 0,
        t => t.parse::<KeyType>().unwrap().sig_type(),
    }
}

#[test]
fn python_signs_we_verify() {
    let dir = tempdir("py-signs");
    let manifest = run_python("sign", &dir);
    let types = manifest.as_object().unwrap();
    assert_eq!(types.len(), 7, "python-ndn signed every type: {manifest}");
    for (t, entry) in types {
        let read = |f: &str| Bytes::from(std::fs::read(dir.join(f)).unwrap());
        let key: Option<PublicKey> = match t.as_str() {
            "digest" => None,
            "hmac" => Some(PublicKey::hmac(&read("hmac.key"))),
            _ => {
                // python-ndn's self-signed certificate parses, has the right
                // form and its signature verifies with its own key
                let cert = Certificate::decode(read(&format!("{t}.cert"))).unwrap();
                assert_eq!(
                    cert.name().to_string(),
                    entry["cert_name"].as_str().unwrap()
                );
                assert_eq!(cert.data().content_type(), content_type::KEY);
                assert_eq!(
                    cert.key_name().to_string(),
                    entry["key_name"].as_str().unwrap()
                );
                assert_eq!(cert.public_key().key_type(), t.parse::<KeyType>().unwrap());
                cert.verify_self_signature()
                    .unwrap_or_else(|e| panic!("{t} cert self-signature: {e}"));
                Some(cert.public_key().clone())
            }
        };
        let data_wire = read(&format!("{t}.data"));
        let data = Data::decode(data_wire.clone()).unwrap();
        assert_eq!(data.signature_type(), sig_type_name(t));
        verify_data(&data, key.as_ref()).unwrap_or_else(|e| panic!("{t} data: {e}"));

        let int_wire = read(&format!("{t}.interest"));
        let interest = Interest::decode(int_wire.clone()).unwrap();
        let si = interest.signature_info().unwrap();
        assert!(si.nonce.is_some() && si.time == Some(1_700_000_000_000) && si.seq_num == Some(42));
        verify_interest(&interest, key.as_ref()).unwrap_or_else(|e| panic!("{t} interest: {e}"));

        // one flipped bit anywhere we try is rejected
        let content_marker = format!("python-ndn {t}");
        for bad in [
            flip(&data_wire, None),
            flip(&data_wire, Some(content_marker.as_bytes())),
        ] {
            let rejected = match Data::decode(bad) {
                Err(_) => true,
                Ok(d) => verify_data(&d, key.as_ref()) == Err(Rejection::BadSignature),
            };
            assert!(rejected, "{t}: corrupted Data accepted");
        }
        // in the name: covered by the signature, not by the parameters digest
        let bad = Interest::decode(flip(&int_wire, Some(b"cmd"))).unwrap();
        assert_eq!(
            verify_interest(&bad, key.as_ref()),
            Err(Rejection::BadSignature),
            "{t}"
        );
        // in the signature value: the parameters digest catches it at decode
        assert!(Interest::decode(flip(&int_wire, None)).is_err(), "{t}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn we_sign_python_verifies() {
    let dir = tempdir("we-sign");
    let types = [
        "digest",
        "rsa-1024",
        "rsa-2048",
        "rsa-3072",
        "rsa-4096",
        "ecdsa-p256",
        "ecdsa-p384",
        "ed25519",
        "hmac",
    ];
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut manifest = serde_json::Map::new();
    let mut certs = Vec::new();
    for t in types {
        let kn = key_name(&format!("/ndnlab/{t}").parse::<Name>().unwrap(), b"k1");
        let signer: Arc<dyn Signer> = match t {
            "digest" => Arc::new(DigestSha256),
            _ => {
                let kt: KeyType = t.parse().unwrap();
                let key = Arc::new(PrivateKey::generate(kt).unwrap());
                if kt == KeyType::Hmac {
                    std::fs::write(dir.join("hmac.key"), key.hmac_secret().unwrap()).unwrap();
                } else {
                    let signer = KeySigner::new(key.clone(), kn.clone());
                    let cert = Certificate::build(
                        &kn,
                        &key.public_key().unwrap(),
                        SELF_ISSUER,
                        now * 1000,
                        validity_from(now, Duration::from_secs(86400)),
                        &signer,
                    )
                    .unwrap();
                    std::fs::write(dir.join(format!("{t}.cert")), cert.wire()).unwrap();
                    certs.push((t, cert));
                }
                Arc::new(KeySigner::new(key, kn.clone()))
            }
        };
        let data = Data::builder(format!("/ndnlab/{t}/data").parse().unwrap())
            .content(format!("hello from ndnlab {t}").into_bytes())
            .freshness_ms(1000)
            .sign(signer.as_ref())
            .unwrap();
        let interest = Interest::builder(format!("/ndnlab/{t}/cmd").parse().unwrap())
            .app_params(&b"params"[..])
            .sign(&InterestSigner::from_arc(signer.clone()).with_seq_num(7))
            .unwrap();
        std::fs::write(dir.join(format!("{t}.data")), &data).unwrap();
        std::fs::write(
            dir.join(format!("{t}.data.bad")),
            flip(&data, Some(b"ndnlab ".as_slice())),
        )
        .unwrap();
        std::fs::write(dir.join(format!("{t}.interest")), &interest).unwrap();
        std::fs::write(
            dir.join(format!("{t}.interest.bad")),
            flip(&interest, Some(b"cmd")),
        )
        .unwrap();
        manifest.insert(
            t.to_string(),
            serde_json::json!({ "key_name": kn.to_string() }),
        );
    }
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::Value::Object(manifest).to_string(),
    )
    .unwrap();
    let result = run_python("verify", &dir);
    for t in types {
        let r = &result[t];
        assert_eq!(r["data"], true, "python-ndn rejected our {t} Data: {r}");
        assert_eq!(
            r["interest"], true,
            "python-ndn rejected our {t} Interest: {r}"
        );
        assert_eq!(
            r["data_bad"], false,
            "python-ndn accepted a corrupted {t} Data"
        );
        assert_eq!(
            r["interest_bad"], false,
            "python-ndn accepted a corrupted {t} Interest"
        );
    }
    // our certificates parse in python-ndn with the same fields
    for (t, cert) in &certs {
        let c = &result[*t]["cert"];
        assert_eq!(c["name"], cert.name().to_string(), "{t}");
        assert_eq!(c["content_type"], 2);
        assert_eq!(c["not_before"], cert.validity().not_before.to_string());
        assert_eq!(c["not_after"], cert.validity().not_after.to_string());
        assert_eq!(c["self_signature_ok"], true, "{t}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
