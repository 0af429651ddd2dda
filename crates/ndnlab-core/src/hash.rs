//! Hashing helpers: table keys are the 64-bit prefix hashes that `ndnlab_wire::Name`
//! computes in one pass over the name; the maps only need to spread them.

use std::hash::{BuildHasher, Hasher};

use ndnlab_wire::Name;
use smallvec::SmallVec;

/// Prefix hashes of one name: `h[i]` is the hash of its first `i` components.
pub type PrefixHashes = SmallVec<[u64; 24]>;

/// Computes the hashes of every prefix of `name` (lengths `0..=name.len()`) in one pass.
#[inline(always)]
pub fn prefix_hashes(name: &Name) -> PrefixHashes {
    let n = name.len() + 1;
    // `from_buf_and_len` is a plain array copy; `from_elem` pushes element by element
    // (~100 instructions per packet, measured with callgrind).
    let mut h: PrefixHashes = if n <= 24 {
        SmallVec::from_buf_and_len([0; 24], n)
    } else {
        SmallVec::from_elem(0, n)
    };
    name.prefix_hashes(&mut h);
    h
}

/// Names up to this many components hash into a stack buffer ([`PrefixHashBuf`]).
pub const INLINE_HASHES: usize = 24;

/// Stack room for a name's prefix hashes, filled by [`PrefixHashBuf::compute`]:
/// unlike [`prefix_hashes`], the hashes are not returned by value (a 200-byte
/// `SmallVec` move, a `memcpy` call per packet).
pub struct PrefixHashBuf {
    inline: [u64; INLINE_HASHES],
    heap: Vec<u64>,
}

impl PrefixHashBuf {
    /// An empty buffer (no allocation).
    #[inline(always)]
    pub fn new() -> Self {
        PrefixHashBuf {
            inline: [0; INLINE_HASHES],
            heap: Vec::new(),
        }
    }

    /// The prefix hashes of `name` (lengths `0..=name.len()`), computed in place.
    #[inline(always)]
    pub fn compute(&mut self, name: &Name) -> &[u64] {
        let n = name.len() + 1;
        let out: &mut [u64] = if n <= INLINE_HASHES {
            &mut self.inline[..n]
        } else {
            self.heap.resize(n, 0);
            &mut self.heap
        };
        name.prefix_hashes(out);
        out
    }
}

impl Default for PrefixHashBuf {
    fn default() -> Self {
        Self::new()
    }
}

/// Mixes a name hash with its prefix length into a map key (two prefixes of
/// different lengths never share a key because of an accidental hash equality).
#[inline]
pub fn key(hash: u64, len: usize) -> u64 {
    hash ^ (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A hasher for keys that already are good 64-bit hashes: one multiply-xorshift so
/// both the low (bucket) and high (tag) bits of the result are well spread.
#[derive(Default, Clone, Copy)]
pub struct PreHashed(u64);

impl Hasher for PreHashed {
    #[inline]
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0xA076_1D64_78BD_642F);
        x ^ (x >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are used; stay correct for anything else.
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.0 ^= u64::from(n);
    }
}

/// `BuildHasher` for [`PreHashed`].
#[derive(Default, Clone, Copy)]
pub struct BuildPreHashed;

impl BuildHasher for BuildPreHashed {
    type Hasher = PreHashed;
    #[inline]
    fn build_hasher(&self) -> PreHashed {
        PreHashed(0)
    }
}

/// A `HashMap` keyed by pre-computed hashes.
pub type HashMapU64<V> = std::collections::HashMap<u64, V, BuildPreHashed>;
