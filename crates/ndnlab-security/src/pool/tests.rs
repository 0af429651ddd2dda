//! The signing pool: order of batches, counts, bounded queues, thread limits.

use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

use ndnlab_wire::{Data, Name};

use super::*;
use crate::{verify_data, KeySigner, KeyType, PrivateKey, PublicKey};

fn name(i: u64) -> Name {
    "/pool".parse::<Name>().unwrap().append_segment(i)
}

fn ed25519() -> (Arc<KeySigner>, PublicKey) {
    let key = Arc::new(PrivateKey::generate(KeyType::Ed25519).unwrap());
    let public = key.public_key().unwrap();
    (
        Arc::new(KeySigner::new(key, "/pool/KEY/k".parse().unwrap())),
        public,
    )
}

fn segment_of(wire: Bytes) -> u64 {
    let d = Data::decode(wire).unwrap();
    d.name().last().unwrap().as_segment().unwrap()
}

#[test]
fn batch_results_come_in_input_order() {
    let (signer, public) = ed25519();
    let out = SigningPool::sign_ordered(3, (0..50u64).collect(), move |&i| {
        Data::builder(name(i))
            .content(vec![i as u8; 100])
            .sign(signer.as_ref())
    })
    .unwrap();
    assert_eq!(out.len(), 50);
    for (i, w) in out.into_iter().enumerate() {
        let d = Data::decode(w.unwrap()).unwrap();
        assert_eq!(d.name().last().unwrap().as_segment(), Some(i as u64));
        verify_data(&d, Some(&public)).unwrap();
    }
    let none = SigningPool::<u64>::sign_ordered(2, Vec::new(), |_| unreachable!()).unwrap();
    assert!(none.is_empty());
}

#[test]
fn batch_keeps_each_jobs_failure_in_place() {
    let out = SigningPool::sign_ordered(2, (0..6u64).collect(), |&i| {
        if i % 3 == 1 {
            Err(SignError::Failed(format!("job {i}")))
        } else {
            Data::builder(name(i)).sign(&ndnlab_wire::DigestSha256)
        }
    })
    .unwrap();
    for (i, r) in out.into_iter().enumerate() {
        match r {
            Err(e) => assert_eq!(e, SignError::Failed(format!("job {i}"))),
            Ok(w) => assert_eq!(segment_of(w), i as u64),
        }
    }
}

#[test]
fn streamed_jobs_are_all_delivered_and_counted() {
    let (signer, _) = ed25519();
    let (tx, rx) = channel();
    let pool = SigningPool::start(
        2,
        32,
        move |&i: &u64| {
            if i == 7 {
                return Err(SignError::Key("no key for 7".into()));
            }
            Data::builder(name(i)).sign(signer.as_ref())
        },
        move |i, res| tx.send((i, res)).is_ok(),
    )
    .unwrap();
    assert_eq!(pool.threads(), 2);
    for i in 0..20u64 {
        assert!(pool.try_submit(i));
    }
    let mut seen: Vec<u64> = rx
        .iter()
        .take(20)
        .map(|(i, res)| {
            match res {
                Ok(w) => assert_eq!(segment_of(w), i),
                Err(e) => assert_eq!((i, e), (7, SignError::Key("no key for 7".into()))),
            }
            i
        })
        .collect();
    seen.sort();
    assert_eq!(seen, (0..20).collect::<Vec<_>>());
    let t = pool.totals();
    assert_eq!((t.signed, t.failed), (19, 1));
    let per_worker: u64 = pool
        .workers()
        .iter()
        .map(|w| w.signed.load(Relaxed) + w.failed.load(Relaxed))
        .sum();
    assert_eq!(per_worker, 20);
    assert_eq!(pool.dropped(), 0);
    pool.shutdown();
}

/// A pool of one worker whose signing of job 0 waits until the gate opens;
/// returns once the worker holds job 0.
fn gated_pool(depth: usize) -> (SigningPool<u64>, std::sync::mpsc::Sender<()>, Receiver<u64>) {
    let (started_tx, started_rx) = channel::<()>();
    let (gate_tx, gate_rx) = channel::<()>();
    let (out_tx, out_rx) = channel();
    let started = Mutex::new(started_tx);
    let gate = Mutex::new(gate_rx);
    let pool = SigningPool::start(
        1,
        depth,
        move |&i: &u64| {
            if i == 0 {
                started.lock().unwrap().send(()).unwrap();
                gate.lock().unwrap().recv().unwrap();
            }
            Data::builder(name(i)).sign(&ndnlab_wire::DigestSha256)
        },
        move |i, _| out_tx.send(i).is_ok(),
    )
    .unwrap();
    assert!(pool.try_submit(0));
    started_rx.recv().unwrap();
    (pool, gate_tx, out_rx)
}

#[test]
fn full_queues_drop_and_count() {
    let (pool, gate, out) = gated_pool(2);
    // the worker is busy with job 0: two jobs fit in its queue, the rest drop
    assert!(pool.try_submit(1));
    assert!(pool.try_submit(2));
    assert!(!pool.try_submit(3));
    assert!(!pool.try_submit(4));
    assert_eq!(pool.dropped(), 2);
    gate.send(()).unwrap();
    assert_eq!(out.iter().take(3).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(pool.totals().signed, 3);
    pool.shutdown();
}

#[test]
fn shutdown_drains_the_queues() {
    let (pool, gate, out) = gated_pool(4);
    for i in 1..5 {
        assert!(pool.try_submit(i));
    }
    gate.send(()).unwrap();
    pool.shutdown();
    assert_eq!(out.iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn thread_count_is_checked() {
    let start = |n| SigningPool::<u64>::start(n, 1, |_| unreachable!(), |_, _| true);
    assert!(matches!(start(0), Err(PoolError::NoThreads)));
    assert!(matches!(
        start(MAX_THREADS + 1),
        Err(PoolError::TooManyThreads(n)) if n == MAX_THREADS + 1
    ));
    assert!(matches!(
        SigningPool::sign_ordered(0, vec![1u64], |_| unreachable!()),
        Err(PoolError::NoThreads)
    ));
}
