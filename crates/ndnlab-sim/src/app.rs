//! Applications in virtual time: what the network asks of them.
//!
//! An application sits on an app face of a node (a local face, as a program on
//! the forwarder's host). It exchanges the frames an app face carries: bare
//! Interest/Data TLVs, or NDNLPv2 packets with a PIT token or a Nack. It never
//! reads a clock: every call passes the virtual time in.

use bytes::Bytes;

use ndnlab_des::Nanos;

/// An application driven in virtual time.
pub trait App {
    /// Frames from the forwarder arrived at `now` (taken from `frames`); frames
    /// to send go to `out`.
    fn on_frames(&mut self, now: Nanos, frames: &mut Vec<Bytes>, out: &mut Vec<Bytes>);
    /// The time asked for by [`App::next_timer`] has come (or passed).
    fn on_timer(&mut self, now: Nanos, out: &mut Vec<Bytes>);
    /// When the application next needs [`App::on_timer`] (`None`: not before a
    /// frame arrives). Asked after every call.
    fn next_timer(&self) -> Option<Nanos>;
}
