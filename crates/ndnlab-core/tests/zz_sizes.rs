#[test]
fn sizes() {
    use std::mem::size_of;
    eprintln!("Name {} Interest {} Data {} Nack {} LpMeta {} OutPacket {} Transmit {} InPacket {} PitEntry {}",
        size_of::<ndnlab_wire::Name>(), size_of::<ndnlab_wire::Interest>(), size_of::<ndnlab_wire::Data>(),
        size_of::<ndnlab_wire::Nack>(), size_of::<ndnlab_core::LpMeta>(), size_of::<ndnlab_core::OutPacket>(),
        size_of::<ndnlab_core::Transmit>(), size_of::<ndnlab_core::InPacket>(), 0);
}
