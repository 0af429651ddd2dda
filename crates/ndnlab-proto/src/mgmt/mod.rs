//! The NFD management protocol, shared by the daemon (which answers it) and the
//! client library (which asks):
//!
//! * [`params`]: ControlParameters (104) and ControlResponse (101);
//! * [`dataset`]: status dataset records in NFD's field order, and a generic
//!   decoder that names every field (for `ndnlab ctl --json`);
//! * [`command`]: command Interests in both signed forms, building and checking;
//! * [`fetch`]: fetching a segmented dataset;
//! * [`codec`]: the small TLV writer and reader these use.

pub mod codec;
pub mod command;
pub mod dataset;
pub mod fetch;
pub mod params;

pub use command::{
    command_interest, command_interest_signed, command_signature, decode_response,
    CommandSignature, MgmtError, SignedForm, ORIGIN_APP,
};
pub use fetch::{FetchError, FetchStep, SegmentFetch};
pub use params::{ControlParameters, ControlResponse, ROUTE_CAPTURE, ROUTE_CHILD_INHERIT};
