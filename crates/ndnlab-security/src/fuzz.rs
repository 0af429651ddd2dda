//! Fuzz harnesses of the security decoders (certificates, KeyLocator chains),
//! one function per target. The cargo-fuzz targets in `fuzz/fuzz_targets/` and the
//! stable property tests (`tests/fuzz_props.rs`) call the same functions: one
//! harness, two drivers.
//!
//! Keys are Ed25519 from fixed seeds (deterministic signatures), so a corpus entry
//! means the same thing in every run.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{tlv, Data, Interest, Name};

use crate::naming::key_name;
use crate::validator::{block_on, BoxFuture, CertFetcher, Validator};
use crate::{decode_cert_file, validity_from, Certificate, KeySigner, PrivateKey};

/// The validator's clock (Unix seconds) and the certificates' start of validity.
const NOW: u64 = 1_800_000_000;
const VALID_FROM: u64 = 1_700_000_000;

/// Any bytes as a certificate file (binary or base64) into [`Certificate::decode`]:
/// every accessor of an accepted certificate is total.
pub fn certificate(data: &[u8]) {
    let Ok(wire) = decode_cert_file(data) else {
        return;
    };
    let Ok(c) = Certificate::decode(wire) else {
        return;
    };
    let _ = (c.key_name(), c.identity(), c.issuer_id(), c.validity());
    let _ = (
        c.is_valid_at(0),
        c.is_valid_at(u64::MAX),
        c.is_self_signed(),
    );
    let _ = (c.public_key().digest(), c.public_key().key_type());
    let _ = c.verify_self_signature();
}

/// Ed25519 key from a fixed seed (PKCS#8 v1).
fn ed25519(seed: u8) -> Arc<PrivateKey> {
    let mut der = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    der.extend([seed; 32]);
    Arc::new(PrivateKey::from_pkcs8_der(&der).expect("fixed Ed25519 key"))
}

fn name(uri: &str) -> Name {
    Name::from_uri(uri).expect("fixed name")
}

/// The trust anchor `/fuzz/KEY/a/self/v=1` and the certificate
/// `/fuzz/site/KEY/b/fuzz/v=1` it signed, with the key of the latter.
struct Chain {
    anchor: Certificate,
    site: Certificate,
    site_key: Arc<PrivateKey>,
}

fn chain() -> &'static Chain {
    static CHAIN: OnceLock<Chain> = OnceLock::new();
    CHAIN.get_or_init(|| {
        let validity = validity_from(VALID_FROM, Duration::from_secs(20 * 365 * 86_400));
        let root = ed25519(1);
        let root_key = key_name(&name("/fuzz"), b"a");
        let root_pub = root.public_key().expect("public key");
        let root_signer = KeySigner::new(root.clone(), root_key.clone());
        let anchor =
            Certificate::build(&root_key, &root_pub, b"self", 1, validity, &root_signer).unwrap();
        let site_key = ed25519(2);
        let site_name = key_name(&name("/fuzz/site"), b"b");
        let site_pub = site_key.public_key().expect("public key");
        let site =
            Certificate::build(&site_name, &site_pub, b"fuzz", 1, validity, &root_signer).unwrap();
        Chain {
            anchor,
            site,
            site_key,
        }
    })
}

/// Serves the certificates of the input, in order, whatever name is asked.
struct InOrder(Mutex<std::vec::IntoIter<Bytes>>);

impl CertFetcher for InOrder {
    fn fetch<'a>(&'a self, _name: &'a Name) -> BoxFuture<'a, Result<Bytes, String>> {
        let next = self.0.lock().unwrap_or_else(|p| p.into_inner()).next();
        Box::pin(async move { next.ok_or_else(|| "no more certificates".to_string()) })
    }
}

/// The input is a sequence of TLVs: a Data or signed Interest to validate, then
/// the certificates the validator fetches, served in order. The validator trusts
/// the fixed anchor and an HMAC key `/fuzz/hmac`, has a fixed clock, and follows
/// KeyLocators up to 5 certificates. Checks: no panic, whatever the chain; a packet
/// accepted is not a DigestSha256 one (refused by this validator).
pub fn key_locator_chain(data: &[u8]) {
    let wire = Bytes::copy_from_slice(data);
    let mut parts = Vec::new();
    for e in tlv::elements(&wire) {
        let Ok(e) = e else { break };
        parts.push(wire.slice(e.range()));
    }
    let mut parts = parts.into_iter();
    let Some(packet) = parts.next() else {
        return;
    };
    let mut v = Validator::new();
    v.add_anchor(chain().anchor.clone())
        .add_hmac_key(name("/fuzz/hmac"), b"secret")
        .clock(|| NOW)
        .max_depth(5);
    let fetcher = InOrder(Mutex::new(parts.collect::<Vec<_>>().into_iter()));
    if packet.first() == Some(&0x05) {
        if let Ok(i) = Interest::decode(packet) {
            if block_on(v.validate_interest(&i, &fetcher)).is_ok() {
                let info = i.signature_info().expect("a valid Interest is signed");
                assert_ne!(info.sig_type, ndnlab_wire::sig_type::DIGEST_SHA256);
            }
        }
    } else if let Ok(d) = block_on(v.validate_data_wire(packet, &fetcher)) {
        assert_ne!(
            d.signature_info().sig_type,
            ndnlab_wire::sig_type::DIGEST_SHA256
        );
    }
}

/// A valid input of [`key_locator_chain`]: Data `/fuzz/site/data` signed by the
/// site key, then the site certificate (signed by the anchor). Seeds the corpus
/// and the property test, which checks that it validates.
pub fn key_locator_chain_seed() -> Vec<u8> {
    let c = chain();
    let signer = KeySigner::new(c.site_key.clone(), c.site.name().clone());
    let data = Data::builder(name("/fuzz/site/data"))
        .content(Bytes::from_static(b"hello"))
        .sign(&signer)
        .expect("sign");
    let mut out = data.to_vec();
    out.extend_from_slice(c.site.wire());
    out
}

/// Whether [`key_locator_chain`]'s validator accepts this input (for the seed check).
pub fn key_locator_chain_accepts(data: &[u8]) -> bool {
    let wire = Bytes::copy_from_slice(data);
    let parts: Vec<Bytes> = tlv::elements(&wire)
        .map_while(Result::ok)
        .map(|e| wire.slice(e.range()))
        .collect();
    let mut parts = parts.into_iter();
    let Some(packet) = parts.next() else {
        return false;
    };
    let mut v = Validator::new();
    v.add_anchor(chain().anchor.clone()).clock(|| NOW);
    let fetcher = InOrder(Mutex::new(parts.collect::<Vec<_>>().into_iter()));
    block_on(v.validate_data_wire(packet, &fetcher)).is_ok()
}
