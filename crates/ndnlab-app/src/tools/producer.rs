//! Serving fresh signed Data fast: a pool of signing threads, and an
//! optional cache of pre-signed Data.
//!
//! The async side (the client's reader) only queues jobs; each worker thread
//! builds and signs a Data and sends it straight to the forwarder. Workers
//! account their busy time, so tools can tell when signing is the limit.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use bytes::Bytes;
use ndnlab_wire::{Name, SignError};

use crate::client::{wrap_token, Client};

/// Builds the signed Data answering a name.
pub type MakeData = dyn Fn(&Name) -> Result<Bytes, SignError> + Send + Sync;

/// Per-worker counters.
#[derive(Debug, Default)]
pub struct WorkerStats {
    pub signed: AtomicU64,
    /// Nanoseconds spent building and signing.
    pub busy_ns: AtomicU64,
}

/// A job: answer this name, echo this token.
struct Job {
    name: Name,
    token: Option<Bytes>,
}

/// Pre-signed Data by name, bounded.
#[derive(Default)]
pub struct DataCache {
    map: Mutex<HashMap<Bytes, Bytes>>,
    capacity: usize,
    pub hits: AtomicU64,
}

impl DataCache {
    pub fn new(capacity: usize) -> Self {
        DataCache {
            map: Mutex::new(HashMap::new()),
            capacity,
            hits: AtomicU64::new(0),
        }
    }
    pub fn get(&self, name: &Name) -> Option<Bytes> {
        let hit = self
            .map
            .lock()
            .expect("cache lock")
            .get(name.value_bytes())
            .cloned();
        if hit.is_some() {
            self.hits.fetch_add(1, Relaxed);
        }
        hit
    }
    pub fn insert(&self, name: &Name, data: Bytes) {
        let mut m = self.map.lock().expect("cache lock");
        if m.len() < self.capacity {
            m.insert(name.value().clone(), data);
        }
    }
    pub fn len(&self) -> usize {
        self.map.lock().expect("cache lock").len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// N signing threads answering Interests through a client.
pub struct SigningPool {
    queues: Vec<SyncSender<Job>>,
    next: AtomicUsize,
    pub stats: Arc<Vec<WorkerStats>>,
    /// Jobs refused because every queue was full.
    pub overflow: AtomicU64,
    /// Signing failures.
    pub errors: Arc<AtomicU64>,
    handles: Vec<JoinHandle<()>>,
}

impl SigningPool {
    /// Starts `threads` workers (at least 1), each with a queue of `depth` jobs.
    pub fn start(
        threads: usize,
        depth: usize,
        client: Client,
        make: Arc<MakeData>,
        cache: Option<Arc<DataCache>>,
    ) -> SigningPool {
        let threads = threads.max(1);
        let stats: Arc<Vec<WorkerStats>> =
            Arc::new((0..threads).map(|_| WorkerStats::default()).collect());
        let errors = Arc::new(AtomicU64::new(0));
        let mut queues = Vec::new();
        let mut handles = Vec::new();
        for i in 0..threads {
            let (tx, rx) = sync_channel::<Job>(depth);
            queues.push(tx);
            let (client, make, stats, errors, cache) = (
                client.clone(),
                make.clone(),
                stats.clone(),
                errors.clone(),
                cache.clone(),
            );
            handles.push(
                std::thread::Builder::new()
                    .name(format!("ndnlab-sign-{i}"))
                    .spawn(move || {
                        while let Ok(job) = rx.recv() {
                            let t0 = Instant::now();
                            let res = make(&job.name);
                            stats[i]
                                .busy_ns
                                .fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
                            match res {
                                Ok(data) => {
                                    stats[i].signed.fetch_add(1, Relaxed);
                                    if let Some(c) = &cache {
                                        c.insert(&job.name, data.clone());
                                    }
                                    if client
                                        .blocking_send(wrap_token(data, job.token.as_ref()))
                                        .is_err()
                                    {
                                        break;
                                    }
                                }
                                Err(e) => {
                                    errors.fetch_add(1, Relaxed);
                                    tracing::warn!(error = %e, name = %job.name, "signing failed");
                                }
                            }
                        }
                    })
                    .expect("spawn signing thread"),
            );
        }
        SigningPool {
            queues,
            next: AtomicUsize::new(0),
            stats,
            overflow: AtomicU64::new(0),
            errors,
            handles,
        }
    }

    pub fn threads(&self) -> usize {
        self.queues.len()
    }

    /// Queues a job on the next worker with room; counts an overflow if none.
    pub fn submit(&self, name: Name, token: Option<Bytes>) -> bool {
        let n = self.queues.len();
        let start = self.next.fetch_add(1, Relaxed);
        let mut job = Job { name, token };
        for k in 0..n {
            match self.queues[(start + k) % n].try_send(job) {
                Ok(()) => return true,
                Err(TrySendError::Full(j)) => job = j,
                Err(TrySendError::Disconnected(_)) => return false,
            }
        }
        self.overflow.fetch_add(1, Relaxed);
        false
    }

    /// Total signed and busy nanoseconds over all workers.
    pub fn totals(&self) -> (u64, u64) {
        self.stats.iter().fold((0, 0), |(s, b), w| {
            (s + w.signed.load(Relaxed), b + w.busy_ns.load(Relaxed))
        })
    }

    /// Stops the workers after their queues drain.
    pub fn shutdown(mut self) {
        self.queues.clear();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::link::pair;
    use ndnlab_wire::{Data, DigestSha256, LpPacket, Packet};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn pool_signs_and_echoes_tokens() {
        let (mine, mut peer) = pair(64);
        let client = Client::from_link(mine);
        let make: Arc<MakeData> = Arc::new(|n: &Name| {
            Data::builder(n.clone())
                .content(&b"p"[..])
                .sign(&DigestSha256)
        });
        let cache = Arc::new(DataCache::new(10));
        let pool = SigningPool::start(2, 4, client, make, Some(cache.clone()));
        for i in 0..8u8 {
            assert!(pool.submit(
                format!("/x/{i}").parse().unwrap(),
                Some(Bytes::from(vec![i]))
            ));
        }
        let mut tokens = Vec::new();
        for _ in 0..8 {
            let p = peer.rx.recv().await.unwrap();
            let Packet::Lp(lp) = Packet::decode(p).unwrap() else {
                panic!()
            };
            let d = Data::decode(lp.fragment().unwrap()).unwrap();
            let t = lp.pit_token().unwrap()[0];
            assert_eq!(d.name().to_string(), format!("/x/{t}"));
            tokens.push(t);
        }
        tokens.sort();
        assert_eq!(tokens, (0..8).collect::<Vec<_>>());
        assert_eq!(pool.totals().0, 8);
        assert_eq!(cache.len(), 8);
        assert!(cache.get(&"/x/3".parse().unwrap()).is_some());
        let _ = LpPacket::builder();
        tokio::task::spawn_blocking(move || pool.shutdown())
            .await
            .unwrap();
    }
}
