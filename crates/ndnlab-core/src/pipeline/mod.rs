//! NFD's forwarding pipelines, one file each, as `impl Forwarder` blocks:
//!
//! | file | NFD pipeline |
//! |---|---|
//! | `incoming_interest.rs` | incoming Interest, Interest loop |
//! | `content_store.rs` | ContentStore hit, ContentStore miss |
//! | `outgoing_interest.rs` | outgoing Interest |
//! | `interest_finalize.rs` | Interest finalize (satisfied / unsatisfied, Dead Nonce List insert) |
//! | `incoming_data.rs` | incoming Data, Data unsolicited |
//! | `outgoing_data.rs` | outgoing Data |
//! | `incoming_nack.rs` | incoming Nack |
//! | `outgoing_nack.rs` | outgoing Nack |
//! | `scope.rs` | `/localhost` and `/localhop` scope rules |

mod content_store;
mod incoming_data;
mod incoming_interest;
mod incoming_nack;
mod interest_finalize;
mod outgoing_data;
mod outgoing_interest;
mod outgoing_nack;
pub mod scope;
