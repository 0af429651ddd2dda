//! Shard dispatch (NDN-DPDK's Name Dispatch Table): which shard owns a packet.
//!
//! Interests go by a hash of their first `k` name components (an implicit digest
//! component is ignored so `/a/b/<digest>` goes where `/a/b` goes); Data and Nacks
//! by the first byte of the PIT token this core issued.

use ndnlab_wire::Name;

/// TLV-TYPE of ImplicitSha256DigestComponent.
const IMPLICIT_DIGEST: u64 = 1;

/// Length of an ImplicitSha256DigestComponent TLV (type, length, 32-byte digest).
const DIGEST_TLV_LEN: usize = 34;

/// Number of name components without a trailing implicit digest component.
#[inline]
pub fn len_without_digest(name: &Name) -> usize {
    let n = name.len();
    // A valid ImplicitSha256DigestComponent is exactly `01 20` + 32 bytes (decoding
    // enforces the length): a name shorter than that has none (the empty name too),
    // which one compare tells without locating the last component (~11 instructions
    // per Interest, twice on the burst path).
    let value = name.value_bytes();
    if value.len() < DIGEST_TLV_LEN || n == 0 {
        return n;
    }
    // The last component's TLV: two byte tests suffice.
    let start = name.prefix_bytes(n - 1).len();
    let last = &value[start..];
    if last.len() == DIGEST_TLV_LEN && u64::from(last[0]) == IMPLICIT_DIGEST {
        n - 1
    } else {
        n
    }
}

/// The shard (in `0..shards`) of an Interest (or of a token-less Data) named `name`.
#[inline]
pub fn dispatch_interest(name: &Name, k: usize, shards: usize) -> usize {
    if shards <= 1 {
        return 0;
    }
    let n = len_without_digest(name).min(k);
    let h = crate::hash::key(name.prefix_hash(n), n);
    // Fold to the high bits so the modulo sees well-mixed bits.
    ((h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % shards as u64) as usize
}

/// The shard of a Data or Nack carrying `token`; `None` if the token is not one of
/// ours (empty) or names a shard that does not exist (then dispatch by name).
#[inline]
pub fn dispatch_by_token(token: &[u8], shards: usize) -> Option<usize> {
    if token.len() != crate::token::TOKEN_LEN {
        return None;
    }
    let s = token[0] as usize;
    (s < shards).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_first_k_components_same_shard() {
        let a = Name::from_uri("/x/y/1").unwrap();
        let b = Name::from_uri("/x/y/2/3").unwrap();
        for shards in 1..8 {
            assert_eq!(
                dispatch_interest(&a, 2, shards),
                dispatch_interest(&b, 2, shards)
            );
            assert!(dispatch_interest(&a, 2, shards) < shards);
        }
        assert_eq!(dispatch_by_token(&[2, 0, 0, 0, 0, 0, 0, 0], 4), Some(2));
        assert_eq!(dispatch_by_token(&[9, 0, 0, 0, 0, 0, 0, 0], 4), None);
        assert_eq!(dispatch_by_token(&[1], 4), None);
    }

    #[test]
    fn digest_component_is_recognised_only_at_the_end() {
        let d = format!("sha256digest={}", "ab".repeat(32));
        let n = |s: &str| Name::from_uri(s).unwrap();
        assert_eq!(len_without_digest(&n("/")), 0);
        // Shorter than a digest TLV: no digest, whatever the last component.
        assert_eq!(len_without_digest(&n("/a/b/c")), 3);
        assert_eq!(len_without_digest(&n(&format!("/a/{}", "x".repeat(40)))), 2);
        assert_eq!(len_without_digest(&n(&format!("/a/b/{d}"))), 2);
        assert_eq!(len_without_digest(&n(&format!("/{d}"))), 0);
        assert_eq!(len_without_digest(&n(&format!("/a/{d}/c"))), 3);
        // 34-byte components of other types are not digests.
        let generic = format!("/a/{}", "x".repeat(32));
        assert_eq!(len_without_digest(&n(&generic)), 2);
        let params = format!("/a/params-sha256={}", "cd".repeat(32));
        assert_eq!(len_without_digest(&n(&params)), 2);
    }
}
