//! Evaluates runs in parallel batches and hands their results to a stopping
//! rule strictly in run-index order, so an outcome never depends on the number
//! of worker threads: run `i` always gives the same result (the caller seeds it
//! from `i`), and the rule sees results 0, 1, 2, ... whatever the batching.

use crate::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Evaluates `run(start) .. run(start + count - 1)` on `threads` workers and
/// returns the results in index order.
pub fn evaluate_batch<T, F>(start: u64, count: u64, threads: usize, run: &F) -> Vec<T>
where
    T: Send,
    F: Fn(u64) -> T + Sync,
{
    let threads = threads.max(1);
    if threads == 1 || count < 2 {
        return (start..start + count).map(run).collect();
    }
    // Chunks small enough to balance uneven run times, large enough to keep
    // the shared counter cold.
    let chunk = (count / (threads as u64 * 4)).max(1);
    let next = AtomicU64::new(0);
    let done: Mutex<Vec<(u64, Vec<T>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let first = next.fetch_add(chunk, Ordering::Relaxed);
                if first >= count {
                    break;
                }
                let last = (first + chunk).min(count);
                let values: Vec<T> = (start + first..start + last).map(run).collect();
                done.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((first, values));
            });
        }
    });
    let mut chunks = done.into_inner().unwrap_or_else(|e| e.into_inner());
    chunks.sort_unstable_by_key(|(first, _)| *first);
    chunks.into_iter().flat_map(|(_, values)| values).collect()
}

/// Feeds `consume(i, run(i))` for i = 0, 1, 2, ... until it returns
/// `Ok(true)` (stop) or `limit` results were consumed, evaluating ahead in
/// parallel batches. Returns the number of results consumed. Calls
/// `on_progress(consumed)` after every batch.
///
/// A batch is `threads * 8` runs, or an eighth of the runs consumed so far
/// when that is more (at most `threads * 1024`): a sequential rule that stops
/// mid-batch wastes at most about 1/8 of the work it used.
pub fn drive<T, F, C>(
    run: &F,
    threads: usize,
    limit: u64,
    on_progress: &mut dyn FnMut(u64),
    mut consume: C,
) -> Result<u64>
where
    T: Send,
    F: Fn(u64) -> T + Sync,
    C: FnMut(u64, T) -> Result<bool>,
{
    let threads = threads.max(1) as u64;
    let mut done = 0u64;
    while done < limit {
        let batch = (done / 8).clamp(threads * 8, threads * 1024);
        let count = batch.min(limit - done);
        let results = evaluate_batch(done, count, threads as usize, run);
        for value in results {
            let index = done;
            done += 1;
            if consume(index, value)? {
                on_progress(done);
                return Ok(done);
            }
        }
        on_progress(done);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_come_back_in_index_order() {
        for threads in 1..=4 {
            let v = evaluate_batch(10, 103, threads, &|i| i * 3);
            assert_eq!(v, (10..113).map(|i| i * 3).collect::<Vec<_>>());
        }
    }

    #[test]
    fn drive_stops_where_the_rule_says_whatever_the_threads() {
        for threads in 1..=3 {
            let mut seen = Vec::new();
            let mut progress = Vec::new();
            let n = drive(
                &|i| i,
                threads,
                10_000,
                &mut |d| progress.push(d),
                |i, v| {
                    assert_eq!(i, v);
                    seen.push(v);
                    Ok(v == 77)
                },
            )
            .unwrap();
            assert_eq!(n, 78);
            assert_eq!(seen, (0..78).collect::<Vec<_>>());
            assert_eq!(progress.last(), Some(&78));
        }
    }

    #[test]
    fn a_sequential_stop_wastes_little_work() {
        for (threads, stop) in [(1, 5_000u64), (2, 5_000), (2, 40_000)] {
            let evaluated = AtomicU64::new(0);
            let run = |i: u64| {
                evaluated.fetch_add(1, Ordering::Relaxed);
                i
            };
            let n = drive(&run, threads, u64::MAX, &mut |_| {}, |i, _| {
                Ok(i + 1 == stop)
            })
            .unwrap();
            assert_eq!(n, stop);
            let evaluated = evaluated.into_inner();
            assert!(
                evaluated - stop <= stop / 8 + 16,
                "{threads} threads: {evaluated} for {stop}"
            );
        }
    }
}
