//! Realtime Data Retrieval (RDR) version discovery, as ndn-tools does it:
//! the consumer asks `<prefix>/32=metadata` (CanBePrefix, MustBeFresh); the
//! producer answers `<prefix>/32=metadata/v=<t>/seg=0` whose Content is the
//! Name TLV of the latest version, `<prefix>/v=<version>`.

use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::tlv::types;
use ndnlab_wire::{Component, Data, Interest, Name, Signer};

use crate::client::{Client, Outcome};

/// The keyword component `32=metadata`.
pub const METADATA: Component<'static> = Component::new(types::KEYWORD_NAME_COMPONENT, b"metadata");

/// FreshnessPeriod of metadata packets (ndn-tools uses 10 ms).
pub const METADATA_FRESHNESS: Duration = Duration::from_millis(10);

/// `<prefix>/32=metadata`.
pub fn metadata_name(prefix: &Name) -> Name {
    prefix.append(METADATA)
}

/// Whether `interest` asks for the metadata of `prefix`.
pub fn is_metadata_interest(prefix: &Name, interest: &Interest) -> bool {
    let n = interest.name();
    n.len() == prefix.len() + 1 && prefix.is_prefix_of(n) && n.last() == Some(METADATA)
}

/// The signed metadata Data pointing at `versioned`.
pub fn metadata_data(
    prefix: &Name,
    versioned: &Name,
    signer: &dyn Signer,
    now_ms: u64,
) -> Result<Bytes, ndnlab_wire::SignError> {
    let mut b = Name::builder();
    b.extend_name(prefix)
        .push(METADATA)
        .push_version(now_ms)
        .push_segment(0);
    Data::builder(b.build())
        .freshness(METADATA_FRESHNESS)
        .content(versioned.to_wire())
        .final_block_id(Component::new(types::SEGMENT_NAME_COMPONENT, &[0]))
        .sign(signer)
}

/// Why discovery failed.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("version discovery for {prefix}: {outcome}")]
    NoAnswer { prefix: String, outcome: String },
    #[error("version discovery for {prefix}: bad metadata: {why}")]
    BadMetadata { prefix: String, why: String },
    #[error(transparent)]
    Client(#[from] crate::client::ClientError),
}

/// Parses a metadata Data: the versioned name under `prefix`.
pub fn parse_metadata(prefix: &Name, data: &Data) -> Result<Name, String> {
    let n = data.name();
    let ok = n.len() >= prefix.len() + 3
        && n.get(n.len() - 3) == Some(METADATA)
        && n.get(n.len() - 2).and_then(|c| c.as_version()).is_some()
        && n.get(n.len() - 1).and_then(|c| c.as_segment()).is_some();
    if !ok {
        return Err(format!("{n} is not a metadata name"));
    }
    let versioned =
        Name::decode(data.content()).map_err(|e| format!("content is not a Name: {e}"))?;
    if !prefix.is_prefix_of(&versioned) || versioned.last().and_then(|c| c.as_version()).is_none() {
        return Err(format!("{versioned} is not a version of {prefix}"));
    }
    Ok(versioned)
}

/// Asks for the latest version of `prefix` (up to `attempts` tries).
pub async fn discover(
    client: &Client,
    prefix: &Name,
    lifetime_ms: u64,
    attempts: u32,
) -> Result<Name, DiscoveryError> {
    let mut last = String::new();
    for _ in 0..attempts.max(1) {
        let interest = Interest::builder(metadata_name(prefix))
            .can_be_prefix(true)
            .must_be_fresh(true)
            .nonce(rand::random())
            .lifetime_ms(lifetime_ms)
            .build_view()
            .map_err(|e| DiscoveryError::BadMetadata {
                prefix: prefix.to_string(),
                why: e.to_string(),
            })?;
        match client.express(interest).await? {
            Outcome::Data(r) => {
                return parse_metadata(prefix, &r.data).map_err(|why| DiscoveryError::BadMetadata {
                    prefix: prefix.to_string(),
                    why,
                })
            }
            Outcome::Nack(reason) => {
                last = format!("nack {}", reason.as_str());
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Outcome::Timeout => last = "timeout".into(),
        }
    }
    Err(DiscoveryError::NoAnswer {
        prefix: prefix.to_string(),
        outcome: last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::DigestSha256;

    #[test]
    fn metadata_roundtrip() {
        let prefix: Name = "/files/a".parse().unwrap();
        let versioned = prefix.append_version(17);
        let d =
            Data::decode(metadata_data(&prefix, &versioned, &DigestSha256, 99).unwrap()).unwrap();
        assert_eq!(d.name().to_string(), "/files/a/32=metadata/v=99/seg=0");
        assert_eq!(parse_metadata(&prefix, &d).unwrap(), versioned);
        let i = Interest::builder(metadata_name(&prefix))
            .can_be_prefix(true)
            .build_view()
            .unwrap();
        assert!(is_metadata_interest(&prefix, &i));
        assert!(d.matches_name(i.name(), true));
        // metadata of another prefix is refused
        assert!(parse_metadata(&"/other".parse().unwrap(), &d).is_err());
    }
}
