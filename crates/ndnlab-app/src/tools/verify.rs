//! Signature checks of the consumers (`get --verify`, `perf client --verify`).
//!
//! A DigestSha256 Data must carry the digest of its signed portion. A Data signed
//! with a key must name it in its KeyLocator and verify with that key's public
//! key, which comes from `--trust-anchor` (then only that key is accepted) or,
//! without one, from the certificate the KeyLocator names, fetched once per key
//! (integrity and a stable signer, not trust: a producer that serves its own
//! certificate is believed).

use std::collections::HashMap;
use std::path::Path;

use ndnlab_security::{naming::to_key_name, verify_data, Certificate};
use ndnlab_wire::{sig_type, Data, DigestSha256, Interest, KeyLocator, Name};

use crate::client::{Client, Outcome};

/// What the consumers check Data against.
#[derive(Debug, Default)]
pub struct DataVerifier {
    anchor: Option<Certificate>,
    /// Fetched certificates, by key name.
    certs: HashMap<Name, Certificate>,
}

impl DataVerifier {
    /// Verifies against `anchor` only, or (`None`) against fetched certificates.
    pub fn new(anchor: Option<Certificate>) -> Self {
        DataVerifier {
            anchor,
            certs: HashMap::new(),
        }
    }

    /// Reads a certificate file (binary, or base64 as `ndnlab key export-cert`
    /// and `ndnsec cert-dump` print).
    pub fn load_anchor(path: &Path) -> anyhow::Result<Certificate> {
        let bytes = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("cannot read trust anchor {}: {e}", path.display()))?;
        ndnlab_security::decode_cert_file(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|w| Certificate::decode(w).map_err(|e| e.to_string()))
            .map_err(|e| {
                anyhow::anyhow!(
                    "trust anchor {}: not an NDN certificate: {e}",
                    path.display()
                )
            })
    }

    /// The key name a key-signed Data names in its KeyLocator.
    fn key_of(data: &Data) -> Result<Name, String> {
        match &data.signature_info().key_locator {
            Some(KeyLocator::Name(n)) => to_key_name(n).ok_or_else(|| {
                format!(
                    "{}: KeyLocator {n} is not a key or certificate name",
                    data.name()
                )
            }),
            _ => Err(format!(
                "{}: signature without a KeyLocator name",
                data.name()
            )),
        }
    }

    /// Fetches, through `client`, the certificate `data`'s KeyLocator names,
    /// unless it is known or a trust anchor is set.
    pub async fn learn(
        &mut self,
        client: &Client,
        data: &Data,
        lifetime_ms: u64,
    ) -> anyhow::Result<()> {
        if self.anchor.is_some() || data.signature_info().sig_type == sig_type::DIGEST_SHA256 {
            return Ok(());
        }
        let key = Self::key_of(data).map_err(anyhow::Error::msg)?;
        if self.certs.contains_key(&key) {
            return Ok(());
        }
        let i = Interest::builder(key.clone())
            .can_be_prefix(true)
            .nonce(rand::random())
            .lifetime_ms(lifetime_ms)
            .build_view()?;
        let cert = match client.express(i).await? {
            Outcome::Data(r) => Certificate::from_data(r.data)
                .map_err(|e| anyhow::anyhow!("certificate for {key}: {e}"))?,
            other => anyhow::bail!("cannot fetch certificate {key}: {other:?}"),
        };
        anyhow::ensure!(
            cert.key_name() == key,
            "certificate {} answered for key {key}",
            cert.name()
        );
        self.certs.insert(key, cert);
        Ok(())
    }

    /// Checks `data` with what is known; the error names the Data and the reason.
    pub fn check(&self, data: &Data) -> Result<(), String> {
        if data.signature_info().sig_type == sig_type::DIGEST_SHA256 {
            return if DigestSha256::verify(data.signed_portion(), data.signature_value()) {
                Ok(())
            } else {
                Err(format!("{}: bad DigestSha256", data.name()))
            };
        }
        let key = Self::key_of(data)?;
        let cert = match &self.anchor {
            Some(a) if a.key_name() == key => a,
            Some(a) => {
                return Err(format!(
                    "{}: signed by {key}, not by the trust anchor {}",
                    data.name(),
                    a.key_name()
                ))
            }
            None => self
                .certs
                .get(&key)
                .ok_or_else(|| format!("{}: no certificate for {key}", data.name()))?,
        };
        verify_data(data, Some(cert.public_key()))
            .map_err(|e| format!("{}: signature rejected: {e}", data.name()))
    }

    /// [`Self::learn`] then [`Self::check`].
    pub async fn verify(
        &mut self,
        client: &Client,
        data: &Data,
        lifetime_ms: u64,
    ) -> anyhow::Result<()> {
        self.learn(client, data, lifetime_ms).await?;
        self.check(data).map_err(anyhow::Error::msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_security::{validity_from, KeySigner, KeyType, PrivateKey};
    use std::sync::Arc;
    use std::time::Duration;

    fn key(id: &str) -> (KeySigner, Certificate) {
        let k = Arc::new(PrivateKey::generate(KeyType::Ed25519).unwrap());
        let name = ndnlab_security::naming::key_name(&id.parse().unwrap(), b"k");
        let s = KeySigner::new(k.clone(), name.clone());
        let c = Certificate::build(
            &name,
            &k.public_key().unwrap(),
            b"self",
            1,
            validity_from(0, Duration::from_secs(1 << 40)),
            &s,
        )
        .unwrap();
        (s, c)
    }

    fn data(s: &KeySigner) -> Data {
        Data::builder("/p/x".parse().unwrap())
            .content(&b"hi"[..])
            .sign_view(s)
            .unwrap()
    }

    #[test]
    fn anchor_key_only_and_forged_values_are_rejected() {
        let (a, ca) = key("/p");
        let (b, _) = key("/q");
        let v = DataVerifier::new(Some(ca));
        v.check(&data(&a)).unwrap();
        let e = v.check(&data(&b)).unwrap_err();
        assert!(e.contains("not by the trust anchor /p/KEY"), "{e}");
        // the same packet with its last signature byte flipped
        let mut wire = data(&a).wire().to_vec();
        *wire.last_mut().unwrap() ^= 1;
        let forged = Data::decode(wire.into()).unwrap();
        let e = v.check(&forged).unwrap_err();
        assert!(e.contains("/p/x: signature rejected"), "{e}");
        let d = Data::builder("/p/d".parse().unwrap()).sign_digest();
        let mut wire = d.to_vec();
        *wire.last_mut().unwrap() ^= 1;
        let e = v.check(&Data::decode(wire.into()).unwrap()).unwrap_err();
        assert!(e.contains("bad DigestSha256"), "{e}");
        let e = DataVerifier::new(None).check(&data(&a)).unwrap_err();
        assert!(e.contains("no certificate"), "{e}");
    }
}
