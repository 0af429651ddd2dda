//! What the simulated network counts: packets handled by forwarders, and every
//! frame or packet lost, by where and why.

/// Losses by cause, and work done, over the whole network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drops {
    /// Frames lost on a link (random loss).
    pub link_lost: u64,
    /// Frames refused by a full link transmit queue (tail drop).
    pub link_queue_full: u64,
    /// Frames larger than the link MTU.
    pub link_over_mtu: u64,
    /// Frames the link service dropped (bad LpPacket, reassembly limits).
    pub lp: u64,
    /// Packets that did not decode.
    pub decode: u64,
    /// Packets refused by a full forwarding-thread input queue.
    pub input_queue: u64,
    /// Packets sent with a congestion mark set by a link's marker.
    pub marks_set: u64,
}

impl Drops {
    /// Every loss (marks are not losses).
    pub fn total(&self) -> u64 {
        self.link_lost
            + self.link_queue_full
            + self.link_over_mtu
            + self.lp
            + self.decode
            + self.input_queue
    }

    /// `(reason, count)` for tables.
    pub fn by_reason(&self) -> [(&'static str, u64); 6] {
        [
            ("link_lost", self.link_lost),
            ("link_queue_full", self.link_queue_full),
            ("link_over_mtu", self.link_over_mtu),
            ("lp", self.lp),
            ("decode", self.decode),
            ("input_queue", self.input_queue),
        ]
    }
}
