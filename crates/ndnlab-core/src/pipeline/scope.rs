//! Scope control: `/localhost` packets never cross a non-local face; `/localhop`
//! Interests from a non-local face go only to local faces (NFD `scope-prefix`).

use ndnlab_wire::Name;

use crate::face::FaceInfo;

/// TLV of the GenericNameComponent `localhost`.
const LOCALHOST: &[u8] = b"\x08\x09localhost";
/// TLV of the GenericNameComponent `localhop`.
const LOCALHOP: &[u8] = b"\x08\x08localhop";

/// Whether `name` is under `/localhost`.
#[inline]
pub fn is_localhost(name: &Name) -> bool {
    name.value_bytes().starts_with(LOCALHOST)
}

/// Whether `name` is under `/localhop`.
#[inline]
pub fn is_localhop(name: &Name) -> bool {
    name.value_bytes().starts_with(LOCALHOP)
}

/// NFD `wouldViolateScope`: may an Interest named `name` that arrived on `inface`
/// leave on `outface`?
#[inline]
pub fn would_violate_scope(inface: &FaceInfo, name: &Name, outface: &FaceInfo) -> bool {
    if outface.is_local() {
        return false;
    }
    if is_localhost(name) {
        return true;
    }
    is_localhop(name) && !inface.is_local()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::{FaceScope, LinkType};

    #[test]
    fn scope_rules() {
        let local = FaceInfo {
            scope: FaceScope::Local,
            link: LinkType::PointToPoint,
            ..Default::default()
        };
        let net = FaceInfo::default();
        let lh = Name::from_uri("/localhost/nfd").unwrap();
        let hop = Name::from_uri("/localhop/x").unwrap();
        let other = Name::from_uri("/localhostx").unwrap();
        assert!(is_localhost(&lh) && !is_localhost(&other) && is_localhop(&hop));
        assert!(would_violate_scope(&local, &lh, &net));
        assert!(!would_violate_scope(&net, &lh, &local));
        assert!(would_violate_scope(&net, &hop, &net));
        assert!(!would_violate_scope(&local, &hop, &net));
        assert!(!would_violate_scope(&net, &other, &net));
    }
}
