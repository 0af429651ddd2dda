//! What `ndnlab perf server` answers: its certificate, pre-signed Data from
//! the cache, or else a job for the signing pool, whose threads sign the Data
//! and send it to the forwarder themselves (PIT token echoed), so that the
//! async side only queues work. The pool's threads record each signature's
//! time and each Data's time from its Interest's arrival ([`ServeStats`]).

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use ndnlab_security::{PoolError, SigningPool};
use ndnlab_wire::{Name, SignError};

use crate::client::{wrap_token, IncomingInterest};
use crate::tools::data_cache::DataCache;
use crate::tools::serve::{Answer, Reply, Sink};
use crate::tools::serve_stats::{ServeStats, SharedServeStats};

/// Jobs queued per signing thread before Interests are dropped.
pub const QUEUE_DEPTH: usize = 1024;

/// Builds the signed Data answering a name.
pub type MakeData = dyn Fn(&Name) -> Result<Bytes, SignError> + Send + Sync;

/// A signing job: the name to answer, the PIT token to echo, and when the
/// Interest arrived.
pub type Job = (Name, Option<Bytes>, Instant);

/// Starts `threads` signing threads that answer through `sink`, keep what
/// they sign in `cache`, and record their times in `stats`.
pub fn start_signers(
    threads: usize,
    sink: Sink,
    make: Arc<MakeData>,
    cache: Option<Arc<DataCache>>,
    stats: SharedServeStats,
) -> Result<SigningPool<Job>, PoolError> {
    let record = stats.clone();
    SigningPool::start(
        threads,
        QUEUE_DEPTH,
        move |(name, _, arrived): &Job| {
            let t0 = Instant::now();
            let signed = make(name);
            lock(&record).record_sign(*arrived, t0.elapsed());
            signed
        },
        move |(name, token, arrived): Job, signed| match signed {
            Ok(data) => {
                if let Some(c) = &cache {
                    c.insert(&name, data.clone());
                }
                // false once the connection is gone: the worker stops
                let sent = sink(wrap_token(data, token.as_ref()));
                lock(&stats).record_serve(arrived, arrived.elapsed(), 1);
                sent
            }
            Err(e) => {
                tracing::warn!(error = %e, %name, "signing failed");
                true
            }
        },
    )
}

fn lock(s: &SharedServeStats) -> std::sync::MutexGuard<'_, ServeStats> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// The perf server's answers.
pub struct PerfAnswer {
    /// The certificate's name prefix (the key name) and its Data.
    pub certificate: Option<(Name, Bytes)>,
    pub cache: Option<Arc<DataCache>>,
    pub signers: Arc<SigningPool<Job>>,
}

impl Answer for PerfAnswer {
    fn answer(&mut self, inc: &IncomingInterest) -> anyhow::Result<Reply> {
        let name = inc.interest.name();
        if let Some((key, cert)) = &self.certificate {
            if key.is_prefix_of(name) {
                return Ok(Reply::Data(cert.clone()));
            }
        }
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(name)) {
            return Ok(Reply::Data(hit));
        }
        // a full queue drops the Interest (counted by the pool)
        Ok(
            if self
                .signers
                .try_submit((name.clone(), inc.pit_token.clone(), Instant::now()))
            {
                Reply::HandedOff
            } else {
                Reply::Nothing
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::link::pair;
    use crate::client::Client;
    use ndnlab_wire::{Data, DigestSha256, Interest, Packet};

    fn make() -> Arc<MakeData> {
        Arc::new(|n: &Name| {
            Data::builder(n.clone())
                .content(&b"p"[..])
                .sign(&DigestSha256)
        })
    }

    fn incoming(uri: &str, token: u8) -> IncomingInterest {
        IncomingInterest {
            interest: Interest::builder(uri.parse().unwrap())
                .build_view()
                .unwrap(),
            pit_token: Some(Bytes::from(vec![token])),
            incoming_face_id: None,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn signers_echo_tokens_and_fill_the_cache() {
        let (mine, mut fwd) = pair(64);
        let client = Client::from_link(mine);
        let cache = Arc::new(DataCache::new(10));
        let sink: Sink = Arc::new(move |p| client.blocking_send(p).is_ok());
        let stats = ServeStats::shared();
        let signers = start_signers(2, sink, make(), Some(cache.clone()), stats.clone()).unwrap();
        let mut answer = PerfAnswer {
            certificate: Some(("/x/KEY".parse().unwrap(), Bytes::from_static(b"cert"))),
            cache: Some(cache.clone()),
            signers: Arc::new(signers),
        };
        for i in 0..8u8 {
            let r = answer.answer(&incoming(&format!("/x/{i}"), i)).unwrap();
            assert_eq!(r, Reply::HandedOff);
        }
        let mut tokens = Vec::new();
        for _ in 0..8 {
            let p = fwd.rx.recv().await.unwrap();
            let Packet::Lp(lp) = Packet::decode(p).unwrap() else {
                panic!("expected an LpPacket")
            };
            let d = Data::decode(lp.fragment().unwrap()).unwrap();
            let t = lp.pit_token().unwrap()[0];
            assert_eq!(d.name().to_string(), format!("/x/{t}"));
            tokens.push(t);
        }
        tokens.sort();
        assert_eq!(tokens, (0..8).collect::<Vec<_>>());
        assert_eq!(answer.signers.totals().signed, 8);
        // each Data is recorded just after it is sent: wait for the last one
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while stats.lock().unwrap().serve_ns.len() < 8 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        let s = stats.lock().unwrap().summary(1.0);
        assert_eq!((s.signed, s.served), (8, 8));
        assert!(s.sign_mean_us > 0.0 && s.serve_p99_us >= s.serve_p50_us);
        assert_eq!(cache.len(), 8);
        // repeats come from the cache, the key name gets the certificate
        let hit = answer.answer(&incoming("/x/3", 3)).unwrap();
        assert!(matches!(hit, Reply::Data(_)));
        assert_eq!(cache.hits.load(std::sync::atomic::Ordering::Relaxed), 1);
        let cert = answer.answer(&incoming("/x/KEY/k1", 9)).unwrap();
        assert_eq!(cert, Reply::Data(Bytes::from_static(b"cert")));
    }
}
