//! Shard dispatch (NDN-DPDK's Name Dispatch Table): which shard owns a packet.
//!
//! Interests go by a hash of their first `k` name components (an implicit digest
//! component is ignored so `/a/b/<digest>` goes where `/a/b` goes); Data and Nacks
//! by the first byte of the PIT token this core issued.

use ndnlab_wire::Name;

/// TLV-TYPE of ImplicitSha256DigestComponent.
const IMPLICIT_DIGEST: u64 = 1;

/// Number of name components without a trailing implicit digest component.
#[inline]
pub fn len_without_digest(name: &Name) -> usize {
    let n = name.len();
    match name.get(n.wrapping_sub(1)) {
        Some(c) if n > 0 && c.typ == IMPLICIT_DIGEST => n - 1,
        _ => n,
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
}
