//! The memory the CS charges its entries ([`ndnlab_core::cs::charge`]) against what
//! the allocator `ndnlab fwd` runs on (mimalloc) really sets aside.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use mimalloc::MiMalloc;
use ndnlab_wire::packet_buf::{alloc_class, inline_blocks, packet_bytes_footprint, INLINE_MAX};

extern "C" {
    /// mimalloc's usable size of a block (in the library `mimalloc` links).
    fn mi_usable_size(p: *const c_void) -> usize;
}

/// The usable size mimalloc gives an allocation of `n` bytes through Rust's global
/// allocator interface, aligned as `Vec<u8>` (1).
fn usable(n: usize) -> usize {
    usable_aligned(n, 1)
}

/// The same with an alignment of `align` bytes.
fn usable_aligned(n: usize, align: usize) -> usize {
    let layout = Layout::from_size_align(n, align).unwrap();
    // SAFETY: a non-zero size; the block is freed with the layout it was allocated with.
    unsafe {
        let p = MiMalloc.alloc(layout);
        assert!(!p.is_null());
        let u = mi_usable_size(p as *const c_void);
        MiMalloc.dealloc(p, layout);
        u
    }
}

#[test]
fn alloc_class_is_mimallocs_usable_size() {
    let mut n = 1;
    let mut wrong = Vec::new();
    while n <= 64 * 1024 {
        if alloc_class(n) != usable(n) {
            wrong.push((n, alloc_class(n), usable(n)));
        }
        n += if n < 4096 { 1 } else { 61 };
    }
    assert!(
        wrong.is_empty(),
        "(bytes, class, usable): {:?}",
        &wrong[..wrong.len().min(40)]
    );
}

#[test]
fn packet_copies_take_their_footprint() {
    // An inline copy is one 8-byte-aligned block of its class, which mimalloc's
    // aligned path may put in the next class; longer copies take their bytes' block
    // (a `Vec<u8>`) plus `Bytes`' 24-byte shared header.
    for &(class, block) in inline_blocks() {
        assert_eq!(usable_aligned(class, 8), block, "inline class {class}");
    }
    for len in [
        0,
        1,
        100,
        140,
        200,
        1500,
        INLINE_MAX,
        INLINE_MAX + 1,
        8258,
        8800,
    ] {
        let expect = if len <= INLINE_MAX {
            let class = inline_blocks()
                .iter()
                .map(|&(c, _)| c)
                .find(|&c| c >= len + 16)
                .unwrap();
            usable_aligned(class, 8)
        } else {
            usable(len) + usable_aligned(24, 8)
        };
        assert_eq!(packet_bytes_footprint(len), expect, "{len} bytes");
    }
}
