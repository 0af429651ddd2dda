//! # ndnlab-core: the sans-IO NDN forwarder core
//!
//! This crate is the forwarding logic of ndnlab and nothing else: tables (FIB,
//! a composite PIT-CS table, Dead Nonce List, StrategyChoice, measurements),
//! NFD's forwarding pipelines, NFD 24.07's six strategies and per-face/global counters.
//! It owns **no sockets, no threads and no clock** (quinn-proto style): the
//! runtime (`ndnlab-fwd`), the in-memory lab links and the virtual-time model
//! all drive the same [`Forwarder`].
//!
//! ## Call order (authoritative contract for runtimes)
//!
//! ```text
//!   let mut fw = Forwarder::new(ForwarderConfig { shard: (i, n), ..Default::default() });
//!   fw.add_face(FaceId(256), FaceScope::NonLocal, LinkType::PointToPoint);  // before any packet from/to it
//!   fw.fib().add_nexthop(&prefix, FaceId(256), cost);                        // management, any time
//!   loop {
//!       // 1. inputs, any order, any number, `now` never decreasing between calls:
//!       fw.handle_interest(now, face, interest, meta);  // decoded by ndnlab-wire, LpPacket fields in `meta`
//!       fw.handle_data(now, face, data, meta);
//!       fw.handle_nack(now, face, nack, meta);
//!       fw.handle_burst(now, &mut burst);                  // same, for a Vec of InPacket
//!       // 2. timers: call when now >= poll_timeout() (calling earlier or more often is harmless)
//!       fw.handle_timeout(now);
//!       // 3. outputs: drain after every input batch and after handle_timeout
//!       while let Some(t) = fw.poll_transmit() { send(t.face, t.packet, t.meta) }
//!       //    or fw.drain_transmits(&mut vec) for bursts
//!       //    self-learning's requests to the RIB (the core has none):
//!       while let Some(r) = fw.poll_rib_request() { rib.apply(r) }
//!       //    a RibRequest::FindAnnouncement is answered, now or later, with
//!       //    fw.handle_announcement(now, id, announcement)
//!       // 4. sleep until fw.poll_timeout() (None = no timer armed) or the next packet
//!   }
//!   fw.remove_face(face, now);  // drops its FIB next hops and PIT records; queued transmits to it are dropped
//! ```
//!
//! * Time ([`Time`]) is nanoseconds since an arbitrary epoch chosen by the caller.
//! * Packets arrive already decoded and validated (`ndnlab_wire::{Interest, Data, Nack}`);
//!   NDNLPv2 header fields that matter to forwarding arrive in [`LpMeta`].
//!   Malformed packets never reach the core: the runtime drops and counts them.
//! * Packets from a face that was never added are dropped and counted
//!   ([`DropReason::UnknownFace`]); transmits never target an unknown face.
//! * NonDiscovery and PrefixAnnouncement (self-learning) travel in [`LpMeta`] too: in
//!   on Interests and Data, out as the strategy sets them (a Data's announcement goes
//!   on with it whatever the strategy).
//! * Every output is a [`Transmit`] `{ face, packet, meta }`. `meta.pit_token` is the
//!   token to put in the LpPacket (our token on Interests, the downstream's echoed
//!   token on Data/Nack); `meta.incoming_face_id` is set on packets to local faces
//!   (the runtime attaches it only if the face enabled LocalFields);
//!   `meta.congestion_mark` is copied from the input packet.
//! * Zero copy: a forwarded Interest is the same `Bytes` that came in, with HopLimit
//!   decremented in place by `Interest::set_hop_limit` (copy-on-write only if the
//!   runtime still holds another reference). Data is forwarded as-is (refcount bump).
//!
//! ## Shards (NDN-DPDK style)
//!
//! A runtime may run `n` forwarders, each built with `shard: (i, n)` and owning its
//! own PIT-CS. Route each input with:
//! * Interests: [`dispatch_interest`]`(name, k, n)` (hash of the first `k` components,
//!   the Name Dispatch Table; an implicit digest component is ignored);
//! * Data and Nack: [`dispatch_by_token`]`(token, n)` (first token byte = shard index);
//!   when the upstream did not echo a token, fall back to `dispatch_interest` on the
//!   Data name / the Nack's Interest name (correct whenever the Interest name has at
//!   least `k` components or equals the Data name).
//!
//! FIB and StrategyChoice are per-forwarder replicas: management applies each change
//! to every shard (read-mostly; no locks on the data path). At most 256 shards (the
//! token's first byte).
//!
//! ## Drops and errors
//!
//! Data-plane drops are never errors: they are counted in
//! [`ForwarderCounters::drops`] by [`DropReason`]. Management operations that can fail
//! return typed errors ([`StrategyChoiceError`]).
//!
//! ## Modules
//! * [`forwarder`] the [`Forwarder`]: its tables (`tables.rs`: FIB, StrategyChoice, PCCT,
//!   Dead Nonce List, faces, timer and output queues, counters) next to its strategies,
//!   the entry points and the staged burst pipeline; [`config`] its configuration,
//!   [`packet`] the packets in and out
//! * [`fib`], [`strategy_choice`] (both on [`name_table::NameTable`], LPM by hashed prefix length)
//! * [`pcct`] the PIT-CS composite table, [`pit`] and [`cs`] entries, [`cs_policy`] (LRU,
//!   priority-FIFO, TinyLFU-admission LRU), [`dead_nonce`], [`token`] PIT tokens
//! * [`pipeline`] NFD's pipelines, one file each, methods of the tables; [`strategy`] NFD
//!   24.07's best-route v5, multicast v5, ASF v5, random v1, access v1, self-learning v1:
//!   objects with NFD's triggers, each owning its state, called by the pipelines without
//!   knowing which strategy they call, acting through a narrow context over the tables
//!   (instance names with parameters, RTT estimator); [`network_region`] (ForwardingHint
//!   in the producer region), [`limits`] (resource bounds)
//! * [`counters`], [`face`], [`dispatch`], [`timer`] (timing wheel of PIT expiries), [`mem`]
//!   (entry sizes for the memory bench), `prefetch` (the crate's one `unsafe`: a cache
//!   prefetch hint for the staged burst pipeline of [`Forwarder::handle_burst`])
//!
//! Layers, each importing only those below it: names, parameters and configuration
//! (`strategy/kind.rs`, `strategy/params.rs`, [`config`]); the tables and their entries;
//! `tables.rs`; the pipelines' actions and the strategies' context
//! (`strategy/context.rs`); the strategies; the pipelines that call triggers; the
//! [`Forwarder`]. The one cycle among files is the PIT-CS composite itself: `pcct.rs`
//! holds the CS state of `cs.rs`, whose operations (`cs.rs`, `cs/share.rs`) are methods
//! of the PCCT.
//!
//! ## Performance notes
//!
//! Prefer [`Forwarder::handle_burst`] over one call per packet: it prefetches every
//! packet's table lines in dependent stages before running the pipelines, which
//! hides most cache misses of large tables (see docs/BENCHMARKS.md). The Content
//! Store answers a CanBePrefix Interest NFD-style (any Data under the name) only when
//! [`ContentStore::set_prefix_match`] is enabled; by default, like NDN-DPDK, only from
//! Data cached under the exact name or Data that satisfied a CanBePrefix Interest for
//! that same name.

// The one exception, a prefetch hint, is in `prefetch.rs` with its safety argument.
#![deny(unsafe_code)]

pub mod config;
pub mod counters;
pub mod cs;
pub mod cs_policy;
pub mod dead_nonce;
pub mod dispatch;
pub mod face;
mod face_table;
pub mod fib;
pub mod forwarder;
#[doc(hidden)]
pub mod fuzz;
pub mod hash;
pub mod index;
pub mod limits;
pub mod mem;
pub mod name_table;
pub mod network_region;
pub mod packet;
pub mod pcct;
pub mod pipeline;
pub mod pit;
mod prefetch;
mod slot_name;
pub mod strategy;
pub mod strategy_choice;
mod tables;
pub mod timer;
pub mod token;
pub mod verify;

pub use config::{ForwarderConfig, UnsolicitedDataPolicy};
pub use counters::{DropReason, FaceCounters, ForwarderCounters};
pub use cs::{ContentStore, CsInfo};
pub use cs_policy::CsPolicyKind;
pub use dispatch::{dispatch_by_token, dispatch_interest};
pub use face::{FaceId, FaceScope, LinkType};
pub use fib::{Fib, NextHop};
pub use forwarder::{BurstProbe, Forwarder};
pub use limits::Limits;
pub use network_region::NetworkRegionTable;
pub use packet::{InPacket, LpMeta, OutNack, OutPacket, Transmit};
pub use strategy::self_learning::RibRequest;
pub use strategy::{StrategyInstance, StrategyKind};
pub use strategy_choice::{StrategyChoice, StrategyChoiceError};
pub use verify::{DataVerifier, ImplicitDigest};

/// Nanoseconds since an arbitrary epoch chosen by the caller (a fake clock in tests).
pub type Time = u64;

/// One millisecond in [`Time`] units.
pub const MS: Time = 1_000_000;
