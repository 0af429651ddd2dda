//! The largest Data a run's producers send, in bytes on the wire.
//!
//! A forwarder refuses a packet longer than its `max_packet_size`, and NFD's is
//! fixed at 8800 bytes. Whether a run fits is decided before it starts, from
//! the Data its producers can send: each is built here with the longest name it
//! can carry, its MetaInfo and payload, and a SignatureInfo and SignatureValue
//! of its key type's full length, and measured. The names are those of every
//! path an app can take:
//! - a catalogue consumer's content names (the `inproc` and `sim` runners'
//!   [`crate::apps::names`]), the perf client's `<prefix>/seq=<i>` and the
//!   traffic client's `<prefix>/size-…/<i>` (the daemon runners' tools);
//! - a ping's `<prefix>/ping/<seq>`;
//! - a repository's own catalogue and a put's segments, with their FinalBlockId.
//!
//! The KeyLocator is the longer of the laboratory's key name for the node
//! (`/lab/<node>/KEY/<type>`) and a tool's own (`<prefix>/KEY/<8 bytes>`).

use std::time::Duration;

use ndnlab_app::tools::ping::ping_name;
use ndnlab_app::tools::signing::SignKind;
use ndnlab_app::tools::traffic::pattern::Pattern;
use ndnlab_wire::{Data, Name, OwnedComponent, SignError, SignatureInfo, Signer};

use crate::experiment::{AppSpec, Experiment};
use crate::topology::Topology;

use super::names::{content_name, places};

/// A signer whose SignatureValue is `len` zero bytes: the size of a real
/// signature of that key type at its full length, without a key.
struct Sized {
    info: SignatureInfo,
    len: usize,
}

impl Signer for Sized {
    fn signature_info(&self) -> SignatureInfo {
        self.info.clone()
    }

    fn sign(&self, _: &[u8]) -> Result<Vec<u8>, SignError> {
        Ok(vec![0; self.len])
    }

    fn max_signature_len(&self) -> usize {
        self.len
    }
}

/// The largest Data, in bytes, that the producers of `exp` on `topology` can send (0
/// without a producer). `Err` names a key whose value cannot be resolved
/// (a prefix, a signature, a topology).
pub fn largest_data(exp: &Experiment, topology: &Topology) -> Result<usize, String> {
    let producers: Vec<(&String, &AppSpec)> =
        exp.apps.iter().filter(|(_, a)| a.is_producer()).collect();
    if producers.is_empty() {
        return Ok(0);
    }
    let asked = longest_asked(exp, topology)?;
    let mut largest = 0;
    for (app, a) in producers {
        let nodes = topology
            .select(&a.nodes)
            .map_err(|e| format!("apps.{app}.nodes: {e}"))?;
        // the node's name is in the prefix (`{node}`) and the key name: the
        // longest gives the longest Data
        if let Some(node) = nodes.iter().max_by_key(|n| n.len()) {
            let signer = sized_signer(app, a, node)?;
            let prefix = name_of(&a.prefix_on(node), &format!("apps.{app}.prefix"))?;
            let mut names = Vec::new();
            match a.kind.as_str() {
                "put" => {
                    let segments = a.size.div_ceil(a.payload.max(1) as u64).max(1);
                    let versioned = prefix.append_version(super::producer::PUT_VERSION);
                    let last = OwnedComponent::segment(segments - 1);
                    let data = Data::builder(versioned.append_segment(segments - 1))
                        .freshness(Duration::from_millis(a.freshness_ms))
                        .final_block_id(last.as_component())
                        .content(vec![0u8; a.payload])
                        .sign(&signer)
                        .map_err(|e| format!("apps.{app}.signature: {e}"))?;
                    largest = largest.max(data.len());
                    continue;
                }
                "repository" => {
                    let last = a.catalogue.saturating_sub(1);
                    names.push(content_name(&prefix, a.name_components, last));
                    names.extend(asked.clone());
                }
                _ => names.extend(asked.clone()),
            }
            for name in names {
                let data = Data::builder(name)
                    .freshness(Duration::from_millis(a.freshness_ms))
                    .content(vec![0u8; a.payload])
                    .sign(&signer)
                    .map_err(|e| format!("apps.{app}.signature: {e}"))?;
                largest = largest.max(data.len());
            }
        }
    }
    Ok(largest)
}

fn name_of(uri: &str, key: &str) -> Result<Name, String> {
    Name::from_uri(uri).map_err(|e| format!("{key}: '{uri}': {e}"))
}

/// The longest name each consumer of `exp` can ask for, whichever runner's
/// apps ask (one per consumer; a get asks for a put's segments, which the put
/// bounds).
fn longest_asked(exp: &Experiment, topology: &Topology) -> Result<Vec<Name>, String> {
    let mut out = Vec::new();
    for (app, a) in exp.apps.iter().filter(|(_, a)| a.is_consumer()) {
        let key = format!("apps.{app}.prefix");
        let mut candidates = Vec::new();
        match a.kind.as_str() {
            "get" => continue,
            "ping" => candidates.push(ping_name(&name_of(&a.prefix, &key)?, u64::MAX)),
            _ => {
                for (p, each, components) in places(exp, topology, a)? {
                    let p = name_of(&p, &key)?;
                    let total = exp.apps.get(&a.from).map_or(a.catalogue, |g| {
                        if g.kind == "repository" {
                            g.catalogue
                        } else {
                            a.catalogue
                        }
                    });
                    let last = total.saturating_sub(1).max(each.saturating_sub(1));
                    candidates.push(content_name(&p, components, last));
                    let mut b = Name::builder();
                    b.extend_name(&p).push_sequence(last);
                    candidates.push(b.build());
                    let pattern = Pattern::parse(&format!("name={p},components={components}"))
                        .map_err(|e| format!("{key}: {e}"))?;
                    candidates.push(pattern.name_for(last));
                }
            }
        }
        if let Some(n) = candidates.into_iter().max_by_key(Name::encoded_len) {
            out.push(n);
        }
    }
    Ok(out)
}

/// A signer of the size `a`'s Data is signed with on `node`.
fn sized_signer(app: &str, a: &AppSpec, node: &str) -> Result<Sized, String> {
    let kind: SignKind = a
        .signature
        .parse()
        .map_err(|e| format!("apps.{app}.signature: {e}"))?;
    Ok(match kind {
        SignKind::Digest => Sized {
            info: ndnlab_wire::DigestSha256.signature_info(),
            len: ndnlab_wire::DigestSha256.max_signature_len(),
        },
        SignKind::Key(kt) => {
            let lab = super::keys::key_name(node, kt, a.trusted)
                .map_err(|e| format!("apps.{app}: {e}"))?;
            let prefix = name_of(&a.prefix_on(node), &format!("apps.{app}.prefix"))?;
            let tool = ndnlab_security::naming::key_name(&prefix, &[0xff; 8]);
            let key = [lab, tool]
                .into_iter()
                .max_by_key(Name::encoded_len)
                .expect("two names");
            Sized {
                info: SignatureInfo::new(kt.sig_type()).with_key_name(key),
                len: kt.max_signature_len(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(text: &str) -> Experiment {
        crate::experiment::parse(text, "t.toml").unwrap().1
    }

    #[test]
    fn a_digest_signed_perf_exchange_measures_what_the_producer_sends() {
        let e = exp(r#"
            [topology]
            kind = "line"
            n = 1
            [apps.c]
            kind = "consumer"
            prefix = "/lab"
            catalogue = 100
            [apps.p]
            kind = "producer"
            prefix = "/lab"
            payload = 8192
        "#);
        let got = largest_data(&e, &Topology::of(&e).unwrap()).unwrap();
        // the longest name the consumers ask for, signed as the producer signs
        let asked = longest_asked(&e, &Topology::of(&e).unwrap()).unwrap();
        let real = Data::builder(asked[0].clone())
            .freshness(Duration::from_millis(e.apps["p"].freshness_ms))
            .content(vec![7u8; 8192])
            .sign(&ndnlab_wire::DigestSha256)
            .unwrap();
        assert_eq!(got, real.len());
        assert!(got > 8192 && got < 8192 + 100, "{got}");
    }

    #[test]
    fn rsa_signatures_and_long_names_count() {
        let short = exp(r#"
            [topology]
            kind = "line"
            n = 2
            [apps.c]
            kind = "consumer"
            prefix = "/a"
            [apps.p]
            kind = "producer"
            nodes = ["last"]
            prefix = "/a"
            payload = 8192
            signature = "rsa-2048"
        "#);
        let rsa = largest_data(&short, &Topology::of(&short).unwrap()).unwrap();
        assert!(rsa > 8192 + 256, "{rsa}");
        let mut long = short.clone();
        long.apps.get_mut("c").unwrap().name_components = 40;
        assert!(largest_data(&long, &Topology::of(&long).unwrap()).unwrap() > rsa + 40 * 3);
    }

    #[test]
    fn a_puts_segments_carry_their_final_block_id() {
        let e = exp(r#"
            [topology]
            kind = "line"
            n = 1
            [apps.g]
            kind = "get"
            prefix = "/obj"
            [apps.p]
            kind = "put"
            prefix = "/obj"
            payload = 1000
            size = 10000
        "#);
        let got = largest_data(&e, &Topology::of(&e).unwrap()).unwrap();
        let last = OwnedComponent::segment(9);
        let real = Data::builder(
            Name::from_uri("/obj")
                .unwrap()
                .append_version(1)
                .append_segment(9),
        )
        .freshness(Duration::from_millis(e.apps["p"].freshness_ms))
        .final_block_id(last.as_component())
        .content(vec![0u8; 1000])
        .sign(&ndnlab_wire::DigestSha256)
        .unwrap();
        assert_eq!(got, real.len());
    }
}
