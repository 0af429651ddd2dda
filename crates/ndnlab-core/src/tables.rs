//! [`Tables`]: the forwarder's state below its strategies: the configuration, the
//! face list, FIB, StrategyChoice, the PCCT (PIT and CS), the Dead Nonce List, the
//! timer queue of PIT expiries, the output queue, the counters, PIT tokens and the
//! seeded generator.
//!
//! The pipelines ([`crate::pipeline`]) are its methods. A pipeline that reaches a
//! strategy trigger takes the strategies ([`crate::strategy::Strategies`]) as an
//! argument and hands them these tables through
//! [`Context`](crate::strategy::context::Context), the only way strategies act on
//! them. [`crate::Forwarder`] owns the tables next to the strategies.

use std::collections::VecDeque;

use crate::config::ForwarderConfig;
use crate::counters::{DropReason, ForwarderCounters};
use crate::cs::CsState;
use crate::dead_nonce::DeadNonceList;
use crate::face::{FaceId, FaceInfo};
use crate::face_table::FaceTable;
use crate::fib::Fib;
use crate::packet::Transmit;
use crate::pcct::Pcct;
use crate::strategy::params::Params;
use crate::strategy_choice::StrategyChoice;
use crate::timer::TimerQueue;
use crate::token::TokenArena;

/// The forwarder's tables and queues (see the module docs).
pub(crate) struct Tables {
    pub config: ForwarderConfig,
    pub faces: FaceTable,
    pub fib: Fib,
    pub sc: StrategyChoice,
    pub pcct: Pcct,
    pub dnl: DeadNonceList,
    pub timers: TimerQueue,
    pub out: VecDeque<Transmit>,
    pub counters: ForwarderCounters,
    pub tokens: TokenArena,
    /// Strategy parameters from `config` (computed once; the config fields they come
    /// from do not change).
    pub default_params: Params,
    rng: u64,
}

impl Tables {
    /// Empty tables, `config.default_strategy` at `/`.
    pub fn new(config: ForwarderConfig) -> Self {
        let shard = config.shard.0.min(255) as u8;
        Tables {
            faces: FaceTable::default(),
            fib: Fib::new(),
            sc: StrategyChoice::new(config.default_strategy),
            pcct: Pcct::new(
                CsState::new(
                    config.cs_capacity,
                    config.cs_capacity_bytes,
                    config.cs_policy,
                ),
                shard,
            ),
            dnl: DeadNonceList::new(config.dead_nonce_lifetime, config.dead_nonce_capacity),
            timers: TimerQueue::default(),
            out: VecDeque::new(),
            counters: ForwarderCounters::default(),
            tokens: Default::default(),
            default_params: Params::from_config(&config),
            rng: config.seed | 1,
            config,
        }
    }

    /// Count a drop.
    #[inline]
    pub fn drop_packet(&mut self, r: DropReason) {
        self.counters.drops.inc(r);
    }

    /// xorshift64* (deterministic, seeded): missing Nonces, and the strategies' draws.
    pub fn random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Face info.
    #[inline]
    pub fn face(&self, id: FaceId) -> Option<&FaceInfo> {
        self.faces.get(&id.0)
    }

    /// Whether a face exists.
    #[inline]
    pub fn has_face(&self, id: FaceId) -> bool {
        self.faces.contains_key(&id.0)
    }
}
