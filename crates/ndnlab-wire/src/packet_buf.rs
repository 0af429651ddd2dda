//! Packet buffers whose reference count sits next to their bytes.
//!
//! A forwarder clones a packet's [`Bytes`] whenever it keeps it (a PIT entry's
//! Interest, a cached Data) and again for every hit it sends out; each clone and
//! drop touches the buffer's reference count. `Bytes::copy_from_slice` and
//! `Bytes::from(Vec)` keep that count in a header allocated on its own, at an address
//! no `Bytes` API reveals, so it cannot be prefetched: on a Content Store hit over a
//! table larger than the caches it is one more dependent memory access after the
//! packet itself (measured in docs/BENCHMARKS.md).
//!
//! [`packet_bytes`] copies a packet into one allocation that holds the count and
//! then the bytes, [`REFCOUNT_BEFORE`] bytes before the first one, through
//! [`Bytes::from_owner`]. A prefetch of the packet's first line (or of the address
//! that many bytes earlier) then also brings in its count. The allocation sizes
//! follow the allocator's size classes (four per doubling from 64 bytes), so a buffer
//! wastes at most a quarter of its size (16 bytes below 64); through Rust's global
//! allocator, whose requests carry the buffer's 8-byte alignment, mimalloc puts some
//! classes in the next one ([`packet_bytes_footprint`] says which).
//!
//! The copy goes through a zeroed stack buffer of the class's size, so it costs more
//! than `Bytes::copy_from_slice` as packets grow (`cargo bench -p ndnlab-wire --bench
//! codec -- buffer`: 43 against 41 ns at 200 bytes, 81 against 62 at 1,500, and 135
//! against 68 at 4,000 when classes went that far). Packets longer than [`INLINE_MAX`]
//! are copied the usual way: their bytes, not their count, dominate what they cost.

use bytes::Bytes;

/// The buffer: its bytes first, so that they start right after the count.
#[repr(C)]
struct Inline<const N: usize> {
    data: [u8; N],
    len: u32,
}

impl<const N: usize> AsRef<[u8]> for Inline<N> {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        &self.data[..self.len as usize]
    }
}

/// Copy `src` into an [`Inline`] of capacity `N` (`src.len() <= N`).
#[inline]
fn inline<const N: usize>(src: &[u8]) -> Bytes {
    let mut b = Inline {
        data: [0u8; N],
        len: src.len() as u32,
    };
    b.data[..src.len()].copy_from_slice(src);
    Bytes::from_owner(b)
}

/// How many bytes before a [`packet_bytes`] buffer's first byte its reference
/// count starts (`bytes` lays out its owner wrapper as the count, then the owner;
/// checked by a test). Prefetching `first - REFCOUNT_BEFORE` is harmless for any
/// other buffer: a prefetch never faults.
pub const REFCOUNT_BEFORE: usize = 8;

/// The longest packet [`packet_bytes`] keeps in one allocation with its count.
pub const INLINE_MAX: usize = 2048 - 16;

/// A copy of `src` in a buffer of its own whose reference count lies
/// [`REFCOUNT_BEFORE`] bytes before its first byte (up to [`INLINE_MAX`] bytes; longer
/// packets get `Bytes::copy_from_slice`).
pub fn packet_bytes(src: &[u8]) -> Bytes {
    // Capacity = allocator size class - 16 (8-byte count, 4-byte length, padding).
    macro_rules! classes {
        ($($n:literal)*) => {
            match src.len() {
                $(n if n <= $n - 16 => inline::<{ $n - 16 }>(src),)*
                _ => Bytes::copy_from_slice(src),
            }
        };
    }
    classes!(32 48 64 80 96 112 128 160 192 224 256 320 384 448 512 640 768 896 1024 1280 1536 1792 2048)
}

/// The bytes a general-purpose allocator sets aside for an allocation of `n` bytes:
/// mimalloc's size classes (bins), which jemalloc's resemble: whole 8-byte words, an
/// even number of them up to 64 bytes, then four classes per doubling (80, 96, 112,
/// 128, 160, ...). An 8,258-byte packet takes 10,240 bytes. Checked against
/// mimalloc's `mi_usable_size` by `ndnlab-core`'s test `cs_memory`.
pub const fn alloc_class(n: usize) -> usize {
    let w = n.div_ceil(8);
    let words = if w <= 1 {
        1
    } else if w <= 8 {
        (w + 1) & !1
    } else {
        // Round w up to a quarter of the power of two just below w - 1.
        let b = usize::BITS - 1 - (w - 1).leading_zeros();
        let step = 1usize << (b - 2);
        w.div_ceil(step) * step
    };
    words * 8
}

/// The block each class of [`packet_bytes`]' inline buffers takes: the buffer is
/// allocated 8-byte aligned (its count), and mimalloc's aligned allocation puts some
/// classes in the next one (measured through `mi_usable_size` by `ndnlab-core`'s test
/// `cs_memory`).
const INLINE_BLOCKS: [(usize, usize); 23] = [
    (32, 32),
    (48, 64),
    (64, 64),
    (80, 96),
    (96, 96),
    (112, 128),
    (128, 128),
    (160, 192),
    (192, 192),
    (224, 256),
    (256, 256),
    (320, 384),
    (384, 384),
    (448, 512),
    (512, 512),
    (640, 768),
    (768, 768),
    (896, 1024),
    (1024, 1024),
    (1280, 1536),
    (1536, 1792),
    (1792, 2048),
    (2048, 2048),
];

/// What a [`packet_bytes`] copy of `len` bytes holds in the allocator: one block
/// (count, bytes and length together) up to [`INLINE_MAX`]; beyond, the bytes' own
/// block plus the 24-byte header `Bytes` allocates at its first clone.
pub const fn packet_bytes_footprint(len: usize) -> usize {
    if len > INLINE_MAX {
        return alloc_class(len) + alloc_class(24);
    }
    let mut i = 0;
    while INLINE_BLOCKS[i].0 < len + 16 {
        i += 1;
    }
    INLINE_BLOCKS[i].1
}

/// The inline classes and the blocks they take (for the allocator test).
pub fn inline_blocks() -> &'static [(usize, usize)] {
    &INLINE_BLOCKS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocator_classes_are_four_per_doubling() {
        let pairs = [
            (1, 8),
            (9, 16),
            (17, 32),
            (64, 64),
            (65, 80),
            (129, 160),
            (2048, 2048),
            (2049, 2560),
            (8192, 8192),
            (8258, 10240),
            (10241, 12288),
        ];
        for (n, class) in pairs {
            assert_eq!(alloc_class(n), class, "{n}");
        }
        assert_eq!(packet_bytes_footprint(0), 32);
        assert_eq!(packet_bytes_footprint(100), 128);
        assert_eq!(packet_bytes_footprint(140), 192, "class 160 takes 192");
        assert_eq!(packet_bytes_footprint(INLINE_MAX), 2048);
        assert_eq!(packet_bytes_footprint(8258), 10240 + 32);
    }

    #[test]
    fn copies_every_size_class_exactly() {
        for len in [
            0,
            1,
            15,
            16,
            17,
            47,
            48,
            49,
            111,
            112,
            113,
            200,
            1000,
            2032,
            4079,
            INLINE_MAX,
            INLINE_MAX + 1,
            9000,
        ] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let b = packet_bytes(&src);
            assert_eq!(&b[..], &src[..], "len {len}");
            let c = b.slice(1.min(len)..);
            drop(b);
            assert_eq!(
                &c[..],
                &src[1.min(len)..],
                "slice outlives its parent, len {len}"
            );
        }
    }

    #[test]
    fn hot_field_rewrites_copy_and_leave_the_received_buffer_alone() {
        // A `from_owner` buffer never reports itself unique, so the rewrite copies.
        let wire = crate::Interest::builder("/a/b".parse().unwrap())
            .nonce(1)
            .hop_limit(9)
            .build();
        let received = packet_bytes(&wire);
        let mut i = crate::Interest::decode(received.clone()).unwrap();
        i.set_hop_limit(8);
        assert_eq!(i.hop_limit(), Some(8));
        assert_eq!(&received[..], &wire[..], "the received buffer is unchanged");
        let again = crate::Interest::decode(i.wire().clone()).unwrap();
        assert_eq!(
            (again.hop_limit(), again.name().to_string()),
            (Some(8), "/a/b".to_string())
        );
    }

    #[test]
    fn count_lies_refcount_before_the_first_byte() {
        // Read the word at `first - REFCOUNT_BEFORE` while clones come and go: it must be
        // the reference count (1, then 3, then 1 again).
        let b = packet_bytes(&[0x06; 200]);
        let at = b.as_ptr().wrapping_sub(REFCOUNT_BEFORE) as usize;
        // SAFETY: `at` is inside the allocation `bytes::Bytes::from_owner` made for `b`
        // (the count precedes the owner), alive while `b` is; an aligned usize read.
        #[allow(unsafe_code)]
        let count = || unsafe { std::ptr::read_volatile(at as *const usize) };
        assert_eq!(count(), 1);
        let (c1, c2) = (b.clone(), b.slice(10..20));
        assert_eq!(count(), 3);
        drop((c1, c2));
        assert_eq!(count(), 1);
    }
}
