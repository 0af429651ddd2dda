//! Decoding typical packets allocates nothing: the views record offsets into
//! the received buffer (names up to 20 components keep offsets inline).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use ndnlab_wire::{Data, DigestSha256, Interest, LpPacket, Name, Packet};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded to the system allocator with the same layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded to the system allocator with the same layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs_during(f: impl FnOnce()) -> usize {
    let before = ALLOCS.load(Ordering::Relaxed);
    f();
    ALLOCS.load(Ordering::Relaxed) - before
}

fn shared(b: Bytes) -> Bytes {
    // the first clone of a Vec-backed Bytes allocates its shared header: do it now
    let c = b.clone();
    drop(c);
    b
}

#[test]
fn decode_does_not_allocate() {
    let name: Name = "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p".parse().unwrap();
    let i = shared(
        Interest::builder(name.clone())
            .nonce(1)
            .lifetime_ms(100)
            .hop_limit(3)
            .build(),
    );
    let d = shared(
        Data::builder(name)
            .content(vec![0u8; 8000])
            .sign(&DigestSha256)
            .unwrap(),
    );
    let lp = shared(
        LpPacket::builder()
            .pit_token(vec![1u8; 8])
            .fragment(d.clone())
            .build(),
    );
    let n = allocs_during(|| {
        let x = Interest::decode(i.clone()).unwrap();
        assert_eq!(x.name().len(), 16);
        let y = Data::decode(d.clone()).unwrap();
        assert_eq!(y.content().len(), 8000);
        let Packet::Lp(z) = Packet::decode(lp.clone()).unwrap() else {
            panic!()
        };
        let f = Data::decode(z.fragment().unwrap()).unwrap();
        assert_eq!(f.name(), y.name());
    });
    assert_eq!(n, 0, "allocations while decoding");
}
