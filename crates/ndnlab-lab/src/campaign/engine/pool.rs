//! The worker pool: jobs on threads, each worker taking the next job in list
//! order, every start and finished row reported on the calling thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::Job;

/// What the pool reports.
pub enum Msg<R> {
    /// The job at this index of the list starts.
    Start(usize),
    /// The job at this index finished with this row.
    Done(usize, R),
}

/// Runs `jobs` on `workers` threads (one: in list order on this thread),
/// calling `on` for every start and finished row, on this thread.
///
/// Fail-fast: after the first error, of a job or of `on`, no further job
/// starts; the jobs already running finish and their rows still reach `on`,
/// then that first error is returned.
pub fn execute<J: Job + ?Sized>(
    jobs: &[&J],
    workers: usize,
    on: &mut dyn FnMut(Msg<J::Row>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if workers <= 1 || jobs.len() <= 1 {
        for (i, job) in jobs.iter().enumerate() {
            on(Msg::Start(i))?;
            let row = job.run()?;
            on(Msg::Done(i, row))?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<anyhow::Result<Msg<J::Row>>>();
    std::thread::scope(|scope| {
        for _ in 0..workers.min(jobs.len()) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { return };
                if tx.send(Ok(Msg::Start(i))).is_err() {
                    return;
                }
                let msg = job.run().map(|r| Msg::Done(i, r));
                if tx.send(msg).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut first_err = None;
        for msg in rx {
            if let Err(e) = msg.and_then(&mut *on) {
                stop.store(true, Ordering::SeqCst);
                first_err.get_or_insert(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    })
}
