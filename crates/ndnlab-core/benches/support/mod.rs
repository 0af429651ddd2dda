//! Shared by the core's benches: a seeded generator, and packets in buffers like a
//! runtime's. They time with `ndnlab_testkit::cpu::thread_time`.
#![allow(dead_code)] // each bench uses a part

use bytes::Bytes;

/// The benches' xorshift64 generator (seeded; deterministic runs).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A uniformly random permutation of `0..n` (Fisher-Yates).
    pub fn permutation(&mut self, n: usize) -> Vec<u32> {
        let mut p: Vec<u32> = (0..n as u32).collect();
        for k in (1..n).rev() {
            p.swap(k, (self.next() % (k as u64 + 1)) as usize);
        }
        p
    }
}

/// Packets in buffers like the ones the runtime's UDP face receives into: each datagram
/// copied out of a long-lived receive buffer by [`ndnlab_wire::packet_bytes`].
///
/// The builders' outputs stand in for the receive buffer. They are all built before
/// any is copied: built and copied in turn, a builder's output and its copy would take
/// every other block of the allocator's size class, spreading the copies over twice
/// the memory (measured: a 384-byte stride between 192-byte copies).
pub fn received(wires: Vec<Bytes>) -> Vec<Bytes> {
    wires.iter().map(|w| ndnlab_wire::packet_bytes(w)).collect()
}
