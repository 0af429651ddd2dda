//! NDN key and certificate naming conventions (certificate format v2):
//! key `/<identity>/KEY/<key-id>`, certificate
//! `/<identity>/KEY/<key-id>/<issuer-id>/<version>`.

use ndnlab_wire::{Component, Name};

/// The `KEY` component value.
pub const KEY_COMPONENT: &[u8] = b"KEY";
/// The issuer id of self-signed certificates (as ndn-cxx uses).
pub const SELF_ISSUER: &[u8] = b"self";

fn is_key_component(c: Option<Component<'_>>) -> bool {
    matches!(c, Some(c) if c.is_generic() && c.value == KEY_COMPONENT)
}

/// Whether `name` has the form `/<identity>/KEY/<key-id>`.
pub fn is_key_name(name: &Name) -> bool {
    name.len() >= 2 && is_key_component(name.get(name.len() - 2))
}

/// Whether `name` has the form `/<identity>/KEY/<key-id>/<issuer-id>/<version>`.
pub fn is_cert_name(name: &Name) -> bool {
    name.len() >= 4 && is_key_component(name.get(name.len() - 4))
}

/// `/<identity>/KEY/<key-id>`.
pub fn key_name(identity: &Name, key_id: &[u8]) -> Name {
    identity
        .append_generic(KEY_COMPONENT)
        .append_generic(key_id)
}

/// `/<key-name>/<issuer-id>/<version>`.
pub fn cert_name(key_name: &Name, issuer_id: &[u8], version: u64) -> Name {
    key_name.append_generic(issuer_id).append_version(version)
}

/// The key name of a certificate name, or of a key name (itself).
pub fn to_key_name(name: &Name) -> Option<Name> {
    if is_cert_name(name) {
        Some(name.prefix(name.len() - 2))
    } else if is_key_name(name) {
        Some(name.clone())
    } else {
        None
    }
}

/// The identity of a key or certificate name.
pub fn identity_of(name: &Name) -> Option<Name> {
    to_key_name(name).map(|k| k.prefix(k.len() - 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let id: Name = "/edu/ucla/alice".parse().unwrap();
        let k = key_name(&id, b"k1");
        assert_eq!(k.to_string(), "/edu/ucla/alice/KEY/k1");
        assert!(is_key_name(&k) && !is_cert_name(&k));
        let c = cert_name(&k, SELF_ISSUER, 5);
        assert!(is_cert_name(&c) && !is_key_name(&c));
        assert_eq!(to_key_name(&c).unwrap(), k);
        assert_eq!(identity_of(&c).unwrap(), id);
        assert_eq!(identity_of(&k).unwrap(), id);
        assert!(to_key_name(&id).is_none());
    }
}
