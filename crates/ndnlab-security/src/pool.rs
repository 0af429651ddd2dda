//! The signing pool: N named threads (`ndnlab-sign-<i>`) that sign jobs and
//! hand every result to the caller's callback, which sends it on.
//!
//! Each worker has its own bounded queue. [`SigningPool::try_submit`] puts a
//! job on the next worker with room (round robin) and counts a drop when all
//! queues are full, so a producer under more load than its signers can carry
//! sheds work instead of queueing it without bound. Workers count what they
//! signed and the time they spent signing (busy time), which tells a tool when
//! signing is its limit. [`SigningPool::sign_ordered`] runs a whole batch
//! through a pool and returns the results in input order.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_wire::SignError;

/// Most threads a pool may have.
pub const MAX_THREADS: usize = 256;

/// Queue depth per worker of [`SigningPool::sign_ordered`].
const BATCH_DEPTH: usize = 64;

/// The pool could not start.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("a signing pool needs at least one thread")]
    NoThreads,
    #[error("{0} signing threads requested, at most {MAX_THREADS} allowed")]
    TooManyThreads(usize),
    #[error("cannot start a signing thread: {0}")]
    Spawn(#[from] std::io::Error),
}

/// What one worker did so far.
#[derive(Debug, Default)]
pub struct WorkerStats {
    /// Jobs signed.
    pub signed: AtomicU64,
    /// Jobs whose signing failed.
    pub failed: AtomicU64,
    /// Nanoseconds spent in the signing function.
    pub busy_ns: AtomicU64,
}

/// The sum of every worker's [`WorkerStats`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PoolTotals {
    pub signed: u64,
    pub failed: u64,
    pub busy: Duration,
}

/// N signing threads taking jobs of type `J`.
pub struct SigningPool<J> {
    queues: Vec<SyncSender<J>>,
    next: AtomicUsize,
    workers: Arc<[WorkerStats]>,
    dropped: AtomicU64,
    handles: Vec<JoinHandle<()>>,
}

/// Where [`SigningPool::place`] put a job.
enum Placed<J> {
    Queued,
    Stopped,
    /// Every queue was full: the job back, and the round-robin start it was offered at.
    Full((J, usize)),
}

impl<J: Send + 'static> SigningPool<J> {
    /// Starts `threads` workers, each with a queue of `depth` jobs (0: a job
    /// is taken only by a waiting worker). A worker signs a job with `sign`
    /// (timed as busy time), then passes the job and the result to `deliver`;
    /// it stops when `deliver` returns false (nowhere left to send) or the
    /// pool is shut down.
    pub fn start<S, D>(
        threads: usize,
        depth: usize,
        sign: S,
        deliver: D,
    ) -> Result<SigningPool<J>, PoolError>
    where
        S: Fn(&J) -> Result<Bytes, SignError> + Send + Sync + 'static,
        D: Fn(J, Result<Bytes, SignError>) -> bool + Send + Sync + 'static,
    {
        if threads == 0 {
            return Err(PoolError::NoThreads);
        }
        if threads > MAX_THREADS {
            return Err(PoolError::TooManyThreads(threads));
        }
        let workers: Arc<[WorkerStats]> = (0..threads).map(|_| WorkerStats::default()).collect();
        let (sign, deliver) = (Arc::new(sign), Arc::new(deliver));
        let mut queues = Vec::with_capacity(threads);
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let (tx, rx) = sync_channel::<J>(depth);
            let (workers, sign, deliver) = (workers.clone(), sign.clone(), deliver.clone());
            // on error the queues made so far drop, and their workers end
            handles.push(
                std::thread::Builder::new()
                    .name(format!("ndnlab-sign-{i}"))
                    .spawn(move || work(rx, &workers[i], &*sign, &*deliver))?,
            );
            queues.push(tx);
        }
        Ok(SigningPool {
            queues,
            next: AtomicUsize::new(0),
            workers,
            dropped: AtomicU64::new(0),
            handles,
        })
    }

    /// Queues `job` on the next worker with room. False if every queue is
    /// full (counted in [`dropped`](Self::dropped)) or the workers stopped.
    pub fn try_submit(&self, job: J) -> bool {
        match self.place(job) {
            Placed::Queued => true,
            Placed::Stopped => false,
            Placed::Full(_) => {
                self.dropped.fetch_add(1, Relaxed);
                false
            }
        }
    }

    /// Queues `job` on the next worker with room, waiting if there is none.
    /// False if the workers stopped.
    fn submit_waiting(&self, job: J) -> bool {
        match self.place(job) {
            Placed::Queued => true,
            Placed::Stopped => false,
            Placed::Full((job, start)) => self.queues[start % self.queues.len()].send(job).is_ok(),
        }
    }

    /// Offers `job` to each worker's queue in turn, from the next one round-robin.
    fn place(&self, job: J) -> Placed<J> {
        let n = self.queues.len();
        let start = self.next.fetch_add(1, Relaxed);
        let mut job = job;
        for k in 0..n {
            match self.queues[(start + k) % n].try_send(job) {
                Ok(()) => return Placed::Queued,
                Err(TrySendError::Full(j)) => job = j,
                Err(TrySendError::Disconnected(_)) => return Placed::Stopped,
            }
        }
        Placed::Full((job, start))
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.queues.len()
    }

    /// Jobs refused because every queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }

    /// Each worker's counters, by worker index.
    pub fn workers(&self) -> &[WorkerStats] {
        &self.workers
    }

    /// Signed, failed and busy time over all workers.
    pub fn totals(&self) -> PoolTotals {
        self.workers
            .iter()
            .fold(PoolTotals::default(), |t, w| PoolTotals {
                signed: t.signed + w.signed.load(Relaxed),
                failed: t.failed + w.failed.load(Relaxed),
                busy: t.busy + Duration::from_nanos(w.busy_ns.load(Relaxed)),
            })
    }

    /// Stops the workers once their queues are drained, and waits for them.
    pub fn shutdown(mut self) {
        self.queues.clear();
        for h in self.handles.drain(..) {
            // a worker that panicked has nothing left to report
            let _ = h.join();
        }
    }

    /// Signs every job on `threads` workers (at most one per job) and returns
    /// the results in the order of `jobs`.
    pub fn sign_ordered<S>(
        threads: usize,
        jobs: Vec<J>,
        sign: S,
    ) -> Result<Vec<Result<Bytes, SignError>>, PoolError>
    where
        S: Fn(&J) -> Result<Bytes, SignError> + Send + Sync + 'static,
    {
        let n = jobs.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let pool = SigningPool::<(usize, J)>::start(
            threads.min(n),
            BATCH_DEPTH,
            move |(_, job)| sign(job),
            move |(i, _), res| tx.send((i, res)).is_ok(),
        )?;
        for job in jobs.into_iter().enumerate() {
            pool.submit_waiting(job);
        }
        pool.shutdown();
        let mut out: Vec<Option<Result<Bytes, SignError>>> = vec![None; n];
        for (i, res) in rx {
            out[i] = Some(res);
        }
        Ok(out
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(SignError::Failed("signing thread panicked".into()))))
            .collect())
    }
}

/// A worker: sign, account, deliver, until the queue closes or delivery fails.
fn work<J>(
    rx: Receiver<J>,
    stats: &WorkerStats,
    sign: &(dyn Fn(&J) -> Result<Bytes, SignError> + Send + Sync),
    deliver: &(dyn Fn(J, Result<Bytes, SignError>) -> bool + Send + Sync),
) {
    while let Ok(job) = rx.recv() {
        let t0 = Instant::now();
        let res = sign(&job);
        stats
            .busy_ns
            .fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
        let counter = if res.is_ok() {
            &stats.signed
        } else {
            &stats.failed
        };
        counter.fetch_add(1, Relaxed);
        if !deliver(job, res) {
            break;
        }
    }
}

#[cfg(test)]
mod tests;
