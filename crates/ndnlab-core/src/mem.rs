//! Memory layout report: sizes of the table entries, for the memory benchmark and
//! `docs/BENCHMARKS.md` (PIT entry <= 256 B; CS overhead <= 128 B per entry beyond
//! the packet).

use crate::cs::CsEntry;
use crate::pcct::Slot;
use crate::pit::{InRecord, OutRecord, PitEntry};

/// Sizes in bytes of the structures behind one PIT entry and one CS entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `size_of::<PitEntry>()` (one in-record and one out-record inline).
    pub pit_entry: usize,
    /// PIT slab cell (`Option<PitEntry>`) plus its generation counter.
    pub pit_cell: usize,
    /// In-record.
    pub in_record: usize,
    /// Out-record.
    pub out_record: usize,
    /// Name slot of the composite table (shared by the PIT entries and the CS entry of a name).
    pub slot: usize,
    /// CS entry (wire `Bytes`, freshness deadline, slot, indirect reference; no
    /// decoded view: a hit decodes the wire again).
    pub cs_entry: usize,
    /// The decoded `ndnlab_wire::Data` view (not stored in the CS: a hit decodes the
    /// wire again and builds it).
    pub data_view: usize,
    /// The decoded `ndnlab_wire::Interest` view (not stored in the PIT).
    pub interest_view: usize,
    /// Bucket (u32 key fingerprint + u32 value; open addressing, no control byte) of
    /// the name index ([`crate::index::U64Index`]).
    pub map_cell: usize,
}

/// The layout of this build.
pub fn layout() -> Layout {
    use std::mem::size_of;
    Layout {
        pit_entry: size_of::<PitEntry>(),
        pit_cell: size_of::<Option<PitEntry>>() + size_of::<u32>(),
        in_record: size_of::<InRecord>(),
        out_record: size_of::<OutRecord>(),
        slot: size_of::<Slot>(),
        cs_entry: size_of::<Option<CsEntry>>(),
        data_view: size_of::<ndnlab_wire::Data>(),
        interest_view: size_of::<ndnlab_wire::Interest>(),
        map_cell: size_of::<(u32, u32)>(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn pit_entry_fits_256_bytes() {
        let l = super::layout();
        println!("{l:?}");
        assert!(l.pit_cell + l.slot + l.map_cell <= 256, "{l:?}");
    }
}
