//! A signing pool: signs batches of packets on N threads (rayon), either
//! returning them in input order or streaming them as they complete.

use std::sync::mpsc::Sender;
use std::sync::Arc;

use bytes::Bytes;
use ndnlab_wire::{DataBuilder, SignError, Signer};
use rayon::prelude::*;

/// The pool could not start its threads.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the signing pool: {0}")]
pub struct PoolError(String);

/// N signing threads.
pub struct SigningPool {
    pool: rayon::ThreadPool,
}

impl SigningPool {
    /// A pool of `threads` threads (at least 1).
    pub fn new(threads: usize) -> Result<SigningPool, PoolError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("ndnlab-sign-{i}"))
            .build()
            .map_err(|e| PoolError(e.to_string()))?;
        Ok(SigningPool { pool })
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Signs every Data; the result `i` is the packet of `builders[i]`.
    pub fn sign_ordered(
        &self,
        signer: &dyn Signer,
        builders: Vec<DataBuilder>,
    ) -> Vec<Result<Bytes, SignError>> {
        self.map_ordered(builders, |b| b.sign(signer))
    }

    /// Applies `f` to every item on the pool, results in input order.
    pub fn map_ordered<T: Send, R: Send>(
        &self,
        items: Vec<T>,
        f: impl Fn(T) -> R + Sync + Send,
    ) -> Vec<R> {
        self.pool
            .install(|| items.into_par_iter().with_min_len(4).map(f).collect())
    }

    /// Signs every Data and sends `(index, result)` on `out` as each
    /// completes (no ordering: lowest latency per packet). Returns at once.
    pub fn sign_unordered(
        &self,
        signer: Arc<dyn Signer>,
        builders: Vec<DataBuilder>,
        out: Sender<(usize, Result<Bytes, SignError>)>,
    ) {
        for (i, b) in builders.into_iter().enumerate() {
            let signer = signer.clone();
            let out = out.clone();
            self.pool.spawn(move || {
                // the receiver may have gone away; nothing to do then
                let _ = out.send((i, b.sign(signer.as_ref())));
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeySigner, KeyType, PrivateKey};
    use ndnlab_wire::Data;

    fn builders(n: usize) -> Vec<DataBuilder> {
        (0..n)
            .map(|i| {
                Data::builder(
                    "/pool"
                        .parse::<ndnlab_wire::Name>()
                        .unwrap()
                        .append_segment(i as u64),
                )
                .content(vec![i as u8; 100])
            })
            .collect()
    }

    #[test]
    fn ordered_and_unordered() {
        let key = Arc::new(PrivateKey::generate(KeyType::Ed25519).unwrap());
        let pk = key.public_key().unwrap();
        let signer = KeySigner::new(key, "/pool/KEY/k".parse().unwrap());
        let pool = SigningPool::new(2).unwrap();
        let out = pool.sign_ordered(&signer, builders(50));
        for (i, w) in out.into_iter().enumerate() {
            let d = Data::decode(w.unwrap()).unwrap();
            assert_eq!(d.name().last().unwrap().as_segment(), Some(i as u64));
            crate::verify_data(&d, Some(&pk)).unwrap();
        }
        let (tx, rx) = std::sync::mpsc::channel();
        pool.sign_unordered(Arc::new(signer), builders(20), tx);
        let mut seen: Vec<usize> = rx
            .iter()
            .map(|(i, r)| {
                let d = Data::decode(r.unwrap()).unwrap();
                assert_eq!(d.name().last().unwrap().as_segment(), Some(i as u64));
                i
            })
            .collect();
        seen.sort();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
    }
}
