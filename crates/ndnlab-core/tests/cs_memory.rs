//! The memory the CS charges its entries ([`ndnlab_core::cs::charge`]) against what
//! the allocator `ndnlab fwd` runs on (mimalloc) really sets aside.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use mimalloc::MiMalloc;
use ndnlab_wire::packet_buf::{alloc_class, packet_bytes_footprint, INLINE_MAX};

extern "C" {
    /// mimalloc's usable size of a block (in the library `mimalloc` links).
    fn mi_usable_size(p: *const c_void) -> usize;
}

/// The usable size mimalloc gives an allocation of `n` bytes (8-byte aligned).
fn usable(n: usize) -> usize {
    let layout = Layout::from_size_align(n, 8).unwrap();
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
    while n <= 64 * 1024 {
        assert_eq!(alloc_class(n), usable(n), "{n} bytes");
        n += if n < 4096 { 1 } else { 61 };
    }
}

#[test]
fn packet_copies_take_their_footprint() {
    // Inline copies are one block of the class their length falls in; longer ones
    // their bytes' block plus `Bytes`' 24-byte shared header.
    for len in [0, 1, 100, 200, 1500, INLINE_MAX, INLINE_MAX + 1, 8258, 8800] {
        let expect = if len <= INLINE_MAX {
            usable(len + 16).max(usable(32))
        } else {
            usable(len) + usable(24)
        };
        assert_eq!(packet_bytes_footprint(len), expect, "{len} bytes");
    }
}
