//! PIT tokens: 8 opaque bytes the core puts on every outgoing Interest and expects
//! echoed on Data/Nack (NDNLPv2 PitToken), so the PIT entry is found without a name
//! lookup (NDN-DPDK style). Layout: `[shard][generation: 3 bytes][entry index: 4 bytes]`.
//! The first byte names the shard, so a runtime can dispatch Data/Nack by it.
//! A token that does not decode, names another shard, or points to a recycled entry
//! (generation mismatch) is ignored and the core falls back to a name lookup.

use bytes::{BufMut, Bytes, BytesMut};

/// Length of the tokens this core issues.
pub const TOKEN_LEN: usize = 8;

/// A decoded PIT token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PitToken {
    /// Shard index.
    pub shard: u8,
    /// Generation of the PIT entry (low 24 bits).
    pub generation: u32,
    /// PIT entry index.
    pub index: u32,
}

impl PitToken {
    /// Encode into the 8 wire bytes.
    #[inline]
    pub fn to_bytes(self) -> [u8; TOKEN_LEN] {
        let g = self.generation.to_be_bytes();
        let i = self.index.to_be_bytes();
        [self.shard, g[1], g[2], g[3], i[0], i[1], i[2], i[3]]
    }

    /// Encode into `Bytes` for [`crate::LpMeta::pit_token`].
    #[inline]
    pub fn to_wire(self) -> Bytes {
        Bytes::copy_from_slice(&self.to_bytes())
    }

    /// Decode; `None` if the length is not ours.
    #[inline]
    pub fn decode(b: &[u8]) -> Option<PitToken> {
        if b.len() != TOKEN_LEN {
            return None;
        }
        Some(PitToken {
            shard: b[0],
            generation: u32::from_be_bytes([0, b[1], b[2], b[3]]),
            index: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
        })
    }
}

/// Carves token `Bytes` out of a shared arena chunk. When a chunk is used up it is
/// reclaimed in place if every token carved from it has been dropped (the runtime
/// drops a token once the Interest is sent), else a new chunk is allocated. Chunks
/// are 512 bytes: below glibc's 1 KiB "large request" threshold, whose allocation
/// runs `malloc_consolidate` (a 32 KiB chunk cost ~190 instructions per token in
/// callgrind, mostly that).
#[derive(Default)]
pub(crate) struct TokenArena {
    buf: BytesMut,
}

impl TokenArena {
    const CHUNK: usize = TOKEN_LEN * 64;

    #[inline]
    pub(crate) fn make(&mut self, t: PitToken) -> Bytes {
        if self.buf.capacity() < TOKEN_LEN {
            // Reuses the chunk when it is unique again, else allocates a new one.
            self.buf.reserve(Self::CHUNK);
        }
        self.buf.put_slice(&t.to_bytes());
        self.buf.split().freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let t = PitToken {
            shard: 3,
            generation: 0x00AB_CDEF,
            index: 0xDEAD_BEEF,
        };
        assert_eq!(PitToken::decode(&t.to_bytes()), Some(t));
        assert_eq!(PitToken::decode(&[1, 2, 3]), None);
        let mut arena = TokenArena::default();
        for i in 0..10_000 {
            let t = PitToken {
                shard: 1,
                generation: i,
                index: i * 3,
            };
            assert_eq!(PitToken::decode(&arena.make(t)), Some(t));
        }
        // Tokens kept alive across a chunk reclaim keep their bytes.
        let kept: Vec<(PitToken, Bytes)> = (0..200)
            .map(|i| {
                let t = PitToken {
                    shard: 2,
                    generation: i,
                    index: i,
                };
                (t, arena.make(t))
            })
            .collect();
        for _ in 0..1000 {
            drop(arena.make(PitToken {
                shard: 0,
                generation: 0,
                index: 0,
            }));
        }
        for (t, b) in kept {
            assert_eq!(PitToken::decode(&b), Some(t));
        }
    }
}
