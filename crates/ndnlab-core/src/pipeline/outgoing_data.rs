//! Outgoing Data pipeline (NFD `onOutgoingData`).

use bytes::Bytes;

use crate::counters::DropReason;
use crate::face::FaceId;
use crate::packet::{LpMeta, OutPacket, Transmit};
use crate::tables::Tables;

impl Tables {
    /// Send the Data TLV `wire` to `to` with `meta` (downstream token, IncomingFaceId
    /// for local faces). `localhost`: the Data's name is under `/localhost` (such Data
    /// never leave on a non-local face).
    #[inline(always)]
    pub(crate) fn outgoing_data(
        &mut self,
        to: FaceId,
        wire: Bytes,
        localhost: bool,
        mut meta: LpMeta,
    ) {
        let Some(face) = self.faces.get_mut(&to.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return;
        };
        if !face.is_local() {
            if localhost {
                self.drop_packet(DropReason::LocalhostViolation);
                return;
            }
            meta.incoming_face_id = None;
        }
        face.counters.n_out_data += 1;
        self.counters.n_out_data += 1;
        self.out.push_back(Transmit {
            face: to,
            packet: OutPacket::Data(wire),
            meta,
        });
    }
}
