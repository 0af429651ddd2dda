//! A small validator for consumers: trust anchors, the hierarchical trust
//! rule and certificate fetching through a caller-provided callback.
//!
//! The hierarchical rule: a key `/<identity>/KEY/<id>` may sign a packet (or
//! certificate) only if `<identity>` is a prefix of the packet's name. The
//! chain is followed through KeyLocators, certificates are fetched with the
//! [`CertFetcher`] (the app library implements it on its face; this crate
//! stays executor-free: the callback returns a boxed future), each one's
//! ValidityPeriod is checked against the validator's clock, and it must end in
//! a trust anchor within `max_depth` certificates.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use ndnlab_wire::{sig_type, Data, Interest, KeyLocator, Name, SignatureInfo};

use crate::naming::{identity_of, to_key_name};
use crate::verify::{verify_signature, Rejection};
use crate::{Certificate, PublicKey};

/// A boxed future, as returned by [`CertFetcher::fetch`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Fetches a certificate by KeyLocator name (a key name: any of its
/// certificates, CanBePrefix; or a certificate name). Returns the Data wire.
pub trait CertFetcher: Send + Sync {
    fn fetch<'a>(&'a self, name: &'a Name) -> BoxFuture<'a, Result<Bytes, String>>;
}

/// A fetcher that never finds anything: validation uses anchors and cache only.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFetch;

impl CertFetcher for NoFetch {
    fn fetch<'a>(&'a self, _name: &'a Name) -> BoxFuture<'a, Result<Bytes, String>> {
        Box::pin(async { Err("no certificate fetcher configured".to_string()) })
    }
}

/// A fetcher over a fixed set of certificates (tests, offline use).
#[derive(Debug, Clone, Default)]
pub struct StaticFetcher(pub Vec<Certificate>);

impl CertFetcher for StaticFetcher {
    fn fetch<'a>(&'a self, name: &'a Name) -> BoxFuture<'a, Result<Bytes, String>> {
        let found = self
            .0
            .iter()
            .find(|c| name.is_prefix_of(c.name()))
            .map(|c| c.wire().clone());
        Box::pin(async move { found.ok_or_else(|| "not found".to_string()) })
    }
}

type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Validates Data and signed Interests.
pub struct Validator {
    anchors: Vec<Certificate>,
    hmac_keys: HashMap<Name, PublicKey>,
    cache: Mutex<HashMap<Name, Certificate>>,
    hierarchical: bool,
    accept_digest: bool,
    max_depth: usize,
    clock: Clock,
}

impl Default for Validator {
    fn default() -> Self {
        Self::new()
    }
}

impl Validator {
    /// No anchors yet; hierarchical rule on; DigestSha256 rejected; depth 5;
    /// the system clock.
    pub fn new() -> Self {
        Validator {
            anchors: Vec::new(),
            hmac_keys: HashMap::new(),
            cache: Mutex::new(HashMap::new()),
            hierarchical: true,
            accept_digest: false,
            max_depth: 5,
            clock: Arc::new(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
            }),
        }
    }

    /// Adds a trust anchor (trusted without a signature check; its
    /// ValidityPeriod is still enforced).
    pub fn add_anchor(&mut self, cert: Certificate) -> &mut Self {
        self.anchors.push(cert);
        self
    }

    /// Adds a shared HMAC secret for packets whose KeyLocator is `key_name`.
    pub fn add_hmac_key(&mut self, key_name: Name, secret: &[u8]) -> &mut Self {
        self.hmac_keys.insert(key_name, PublicKey::hmac(secret));
        self
    }

    /// Turns the hierarchical rule on or off.
    pub fn hierarchical(&mut self, on: bool) -> &mut Self {
        self.hierarchical = on;
        self
    }

    /// Accepts DigestSha256 "signatures" (integrity only).
    pub fn accept_digest_sha256(&mut self, on: bool) -> &mut Self {
        self.accept_digest = on;
        self
    }

    /// Maximum number of fetched certificates in a chain.
    pub fn max_depth(&mut self, n: usize) -> &mut Self {
        self.max_depth = n;
        self
    }

    /// Replaces the clock (Unix seconds), e.g. a fake clock in tests.
    pub fn clock(&mut self, f: impl Fn() -> u64 + Send + Sync + 'static) -> &mut Self {
        self.clock = Arc::new(f);
        self
    }

    /// Validates a Data packet.
    pub async fn validate_data(
        &self,
        data: &Data,
        fetcher: &dyn CertFetcher,
    ) -> Result<(), Rejection> {
        self.validate(
            data.name(),
            data.signature_info(),
            data.signed_portion(),
            data.signature_value(),
            fetcher,
        )
        .await
    }

    /// Decodes and validates a Data packet (a truncated packet is `Malformed`).
    pub async fn validate_data_wire(
        &self,
        wire: Bytes,
        fetcher: &dyn CertFetcher,
    ) -> Result<Data, Rejection> {
        let data = Data::decode(wire).map_err(|e| Rejection::Malformed(e.to_string()))?;
        self.validate_data(&data, fetcher).await?;
        Ok(data)
    }

    /// Validates a signed Interest (v0.3).
    pub async fn validate_interest(
        &self,
        interest: &Interest,
        fetcher: &dyn CertFetcher,
    ) -> Result<(), Rejection> {
        let (Some(info), Some(value), Some(portion)) = (
            interest.signature_info(),
            interest.signature_value(),
            interest.signed_portion(),
        ) else {
            return Err(Rejection::Unsigned);
        };
        // the hierarchical rule applies to the name without the params digest
        let name: Name = interest
            .name()
            .iter()
            .filter(|c| !c.is_params_digest())
            .collect();
        self.validate(&name, info, &portion, value, fetcher).await
    }

    fn find_trusted(&self, locator: &Name, key_name: &Name) -> Option<Certificate> {
        let by_name = |c: &&Certificate| c.name() == locator || c.key_name() == *key_name;
        if let Some(c) = self.anchors.iter().find(by_name) {
            return Some(c.clone());
        }
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .get(key_name)
            .filter(|c| c.name() == locator || c.key_name() == *locator)
            .cloned()
    }

    fn check_validity(&self, cert: &Certificate) -> Result<(), Rejection> {
        if cert.is_valid_at((self.clock)()) {
            Ok(())
        } else {
            Err(Rejection::Expired {
                cert: cert.name().to_string(),
                not_before: cert.validity().not_before.to_string(),
                not_after: cert.validity().not_after.to_string(),
            })
        }
    }

    fn check_hierarchy(&self, key_name: &Name, subject: &Name) -> Result<(), Rejection> {
        if !self.hierarchical {
            return Ok(());
        }
        match identity_of(key_name) {
            Some(id) if id.is_prefix_of(subject) => Ok(()),
            _ => Err(Rejection::NotAuthorized {
                key: key_name.to_string(),
                name: subject.to_string(),
            }),
        }
    }

    async fn validate(
        &self,
        name: &Name,
        info: &SignatureInfo,
        portion: &[u8],
        value: &[u8],
        fetcher: &dyn CertFetcher,
    ) -> Result<(), Rejection> {
        if info.sig_type == sig_type::DIGEST_SHA256 {
            if !self.accept_digest {
                return Err(Rejection::TypeNotAccepted(info.sig_type));
            }
            return verify_signature(info, portion, value, None);
        }
        let locator = match &info.key_locator {
            None => return Err(Rejection::MissingKeyLocator),
            Some(KeyLocator::Digest(d)) => {
                // KeyDigest: only keys we already trust can match
                let key = self
                    .anchors
                    .iter()
                    .map(|c| c.public_key())
                    .chain(self.hmac_keys.values())
                    .find(|k| k.digest()[..] == d[..])
                    .ok_or_else(|| Rejection::UnknownKey(format!("KeyDigest {}", hex(d))))?;
                return verify_signature(info, portion, value, Some(key));
            }
            Some(KeyLocator::Name(n)) => n.clone(),
        };
        if info.sig_type == sig_type::HMAC_WITH_SHA256 {
            let key = self
                .hmac_keys
                .get(&locator)
                .ok_or_else(|| Rejection::UnknownKey(locator.to_string()))?;
            return verify_signature(info, portion, value, Some(key));
        }

        // Walk up the chain: fetched certificates, then a trusted one.
        let mut chain: Vec<Certificate> = Vec::new();
        let mut locator = locator;
        let mut subject = name.clone();
        let trusted = loop {
            let key_name =
                to_key_name(&locator).ok_or_else(|| Rejection::UnknownKey(locator.to_string()))?;
            self.check_hierarchy(&key_name, &subject)?;
            if let Some(t) = self.find_trusted(&locator, &key_name) {
                self.check_validity(&t)?;
                break t;
            }
            if chain.len() >= self.max_depth {
                return Err(Rejection::NoTrustAnchor(format!(
                    "chain longer than {}",
                    self.max_depth
                )));
            }
            let wire = fetcher
                .fetch(&locator)
                .await
                .map_err(|why| Rejection::FetchFailed {
                    name: locator.to_string(),
                    why,
                })?;
            let cert = Certificate::decode(wire).map_err(|e| Rejection::BadCertificate {
                name: locator.to_string(),
                why: e.to_string(),
            })?;
            if cert.key_name() != key_name {
                return Err(Rejection::BadCertificate {
                    name: cert.name().to_string(),
                    why: format!("fetched for key {key_name}"),
                });
            }
            self.check_validity(&cert)?;
            if cert.is_self_signed() {
                return Err(Rejection::NoTrustAnchor(format!(
                    "self-signed {} is not a trust anchor",
                    cert.name()
                )));
            }
            let next = match &cert.data().signature_info().key_locator {
                Some(KeyLocator::Name(n)) => n.clone(),
                _ => return Err(Rejection::MissingKeyLocator),
            };
            subject = cert.name().clone();
            chain.push(cert);
            locator = next;
        };

        // Verify bottom-up: the packet with the first key, each certificate with the next.
        let first_key = chain.first().unwrap_or(&trusted).public_key();
        verify_signature(info, portion, value, Some(first_key))?;
        for (i, cert) in chain.iter().enumerate() {
            let signer = chain.get(i + 1).unwrap_or(&trusted);
            let d = cert.data();
            verify_signature(
                d.signature_info(),
                d.signed_portion(),
                d.signature_value(),
                Some(signer.public_key()),
            )
            .map_err(|e| Rejection::BadCertificate {
                name: cert.name().to_string(),
                why: e.to_string(),
            })?;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        for cert in chain {
            cache.insert(cert.key_name(), cert);
        }
        Ok(())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Drives a future to completion on the current thread (for tools and tests
/// that have no async runtime; the fetchers they use complete immediately or
/// block).
pub fn block_on<F: Future>(fut: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::naming::{key_name, SELF_ISSUER};
    use crate::{validity_from, KeySigner, KeyType, PrivateKey};

    const NOW: u64 = 1_750_000_000;

    struct Pki {
        root: Certificate,
        site: Certificate,
        site_signer: KeySigner,
        alice_signer: KeySigner,
        alice: Certificate,
    }

    fn make_key(id: &str, t: KeyType) -> (Arc<PrivateKey>, Name) {
        (
            Arc::new(PrivateKey::generate(t).unwrap()),
            key_name(&id.parse().unwrap(), b"k"),
        )
    }

    fn pki(alice_valid: Duration) -> Pki {
        let (rk, rn) = make_key("/lab", KeyType::EcdsaP256);
        let root_signer = KeySigner::new(rk.clone(), rn.clone());
        let year = Duration::from_secs(365 * 86400);
        let root = Certificate::build(
            &rn,
            &rk.public_key().unwrap(),
            SELF_ISSUER,
            1,
            validity_from(NOW - 10, year),
            &root_signer,
        )
        .unwrap();
        let (sk, sn) = make_key("/lab/site", KeyType::Ed25519);
        let site = Certificate::build(
            &sn,
            &sk.public_key().unwrap(),
            b"lab",
            1,
            validity_from(NOW - 10, year),
            &root_signer,
        )
        .unwrap();
        let site_signer = KeySigner::new(sk, sn);
        let (ak, an) = make_key("/lab/site/alice", KeyType::Rsa2048);
        let alice = Certificate::build(
            &an,
            &ak.public_key().unwrap(),
            b"site",
            1,
            validity_from(NOW - 10, alice_valid),
            &site_signer,
        )
        .unwrap();
        Pki {
            root,
            site,
            site_signer,
            alice_signer: KeySigner::new(ak, an),
            alice,
        }
    }

    fn validator(p: &Pki) -> Validator {
        let mut v = Validator::new();
        v.add_anchor(p.root.clone()).clock(|| NOW);
        v
    }

    fn data(name: &str, s: &KeySigner) -> Data {
        Data::builder(name.parse().unwrap())
            .content(&b"payload"[..])
            .sign_view(s)
            .unwrap()
    }

    #[test]
    fn chain_is_fetched_and_checked() {
        let p = pki(Duration::from_secs(3600));
        let v = validator(&p);
        let fetch = StaticFetcher(vec![p.site.clone(), p.alice.clone()]);
        let d = data("/lab/site/alice/file/v=1", &p.alice_signer);
        block_on(v.validate_data(&d, &fetch)).unwrap();
        // second time: certificates are cached, no fetcher needed
        block_on(v.validate_data(&d, &NoFetch)).unwrap();
    }

    #[test]
    fn rejections_have_reasons() {
        let p = pki(Duration::from_secs(3600));
        let v = validator(&p);
        let fetch = StaticFetcher(vec![p.site.clone(), p.alice.clone()]);
        // hierarchical rule: alice may not sign outside her namespace
        let d = data("/lab/site/bob/file", &p.alice_signer);
        assert_eq!(
            block_on(v.validate_data(&d, &fetch)).unwrap_err().reason(),
            "not-authorized"
        );
        // forged: one flipped bit in the content
        let d = data("/lab/site/alice/x", &p.alice_signer);
        let mut w = d.wire().to_vec();
        let pos = w.windows(7).position(|x| x == b"payload").unwrap();
        w[pos] ^= 1;
        let r = block_on(v.validate_data_wire(Bytes::from(w), &fetch)).unwrap_err();
        assert_eq!(r, Rejection::BadSignature);
        // truncated
        let w = d.wire().slice(..d.wire().len() - 3);
        assert_eq!(
            block_on(v.validate_data_wire(w, &fetch))
                .unwrap_err()
                .reason(),
            "malformed"
        );
        // missing certificate
        assert_eq!(
            block_on(v.validate_data(&d, &NoFetch))
                .unwrap_err()
                .reason(),
            "fetch-failed"
        );
        // DigestSha256 not accepted by default
        let dd = Data::builder("/lab/x".parse().unwrap())
            .sign_view(&ndnlab_wire::DigestSha256)
            .unwrap();
        assert_eq!(
            block_on(v.validate_data(&dd, &fetch)).unwrap_err().reason(),
            "type-not-accepted"
        );
        // wrong type: an ECDSA signature type claimed over an RSA key's KeyLocator
        let mut info = p.alice_signer.info().clone();
        info.sig_type = sig_type::SHA256_WITH_ECDSA;
        let forged = Data::builder("/lab/site/alice/y".parse().unwrap())
            .signature_info(info)
            .sign_view(&p.alice_signer)
            .unwrap();
        assert_eq!(
            block_on(v.validate_data(&forged, &fetch))
                .unwrap_err()
                .reason(),
            "wrong-signature-type"
        );
    }

    #[test]
    fn expired_certificate() {
        let p = pki(Duration::from_secs(5));
        let mut v = validator(&p);
        v.clock(|| NOW + 100);
        let fetch = StaticFetcher(vec![p.site.clone(), p.alice.clone()]);
        let d = data("/lab/site/alice/file", &p.alice_signer);
        assert_eq!(
            block_on(v.validate_data(&d, &fetch)).unwrap_err().reason(),
            "expired"
        );
    }

    #[test]
    fn signed_interest_and_untrusted_root() {
        let p = pki(Duration::from_secs(3600));
        let v = validator(&p);
        let fetch = StaticFetcher(vec![p.site.clone()]);
        let signer = crate::InterestSigner::new(p.site_signer.clone()).with_seq_num(1);
        let i = Interest::builder("/lab/site/cmd".parse().unwrap())
            .app_params(&b"x"[..])
            .sign_view(&signer)
            .unwrap();
        let si = i.signature_info().unwrap();
        assert!(si.nonce.is_some() && si.time.is_some() && si.seq_num == Some(1));
        block_on(v.validate_interest(&i, &fetch)).unwrap();
        let unsigned = Interest::builder("/lab/site/cmd".parse().unwrap())
            .build_view()
            .unwrap();
        assert_eq!(
            block_on(v.validate_interest(&unsigned, &fetch)).unwrap_err(),
            Rejection::Unsigned
        );
        // a validator without anchors reaches the self-signed root and refuses it
        let mut none = Validator::new();
        none.clock(|| NOW);
        let fetch = StaticFetcher(vec![p.site.clone(), p.root.clone()]);
        assert_eq!(
            block_on(none.validate_interest(&i, &fetch))
                .unwrap_err()
                .reason(),
            "no-trust-anchor"
        );
    }

    #[test]
    fn hmac_and_key_digest() {
        let secret = [7u8; 32];
        let k = Arc::new(PrivateKey::from_hmac_secret(&secret));
        let kn: Name = "/shared/KEY/h".parse().unwrap();
        let mut v = Validator::new();
        v.add_hmac_key(kn.clone(), &secret);
        let d = data("/anything", &KeySigner::new(k.clone(), kn));
        block_on(v.validate_data(&d, &NoFetch)).unwrap();
        let d = data("/anything", &KeySigner::with_key_digest(k).unwrap());
        block_on(v.validate_data(&d, &NoFetch)).unwrap();
        let other = Arc::new(PrivateKey::from_hmac_secret(&[8u8; 32]));
        let d = data("/anything", &KeySigner::with_key_digest(other).unwrap());
        assert_eq!(
            block_on(v.validate_data(&d, &NoFetch))
                .unwrap_err()
                .reason(),
            "unknown-key"
        );
    }
}
