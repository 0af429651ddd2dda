//! NFD's forwarding pipelines, one file each, as methods of the forwarder's
//! tables (`Tables`, `tables.rs`). A pipeline that reaches a strategy trigger
//! (incoming Interest, Data, Nack; new next hop) takes the strategies as an argument
//! and calls the trigger of the entry's strategy without knowing which it is.
//!
//! | file | NFD pipeline |
//! |---|---|
//! | `incoming_interest.rs` | incoming Interest, Interest loop |
//! | `admission.rs` | incoming Interest: face Interest rate and PIT bounds ([`crate::limits`]) |
//! | `forwarding_hint.rs` | incoming Interest: ForwardingHint stripped in the producer region |
//! | `content_store.rs` | ContentStore hit, ContentStore miss |
//! | `outgoing_interest.rs` | outgoing Interest |
//! | `interest_finalize.rs` | Interest finalize (satisfied / unsatisfied, Dead Nonce List insert) |
//! | `incoming_data.rs` | incoming Data, Data unsolicited |
//! | `outgoing_data.rs` | outgoing Data |
//! | `incoming_nack.rs` | incoming Nack |
//! | `outgoing_nack.rs` | outgoing Nack |
//! | `new_nexthop.rs` | new next hop (`onNewNextHop`) |
//! | `scope.rs` | `/localhost` and `/localhop` scope rules |

mod admission;
mod content_store;
mod forwarding_hint;
mod incoming_data;
mod incoming_interest;
mod incoming_nack;
mod interest_finalize;
mod new_nexthop;
mod outgoing_data;
mod outgoing_interest;
mod outgoing_nack;
pub mod scope;
