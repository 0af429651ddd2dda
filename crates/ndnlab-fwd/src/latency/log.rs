//! The raw sample log: one CSV line per timed packet, written by a thread of its
//! own. The forwarding side hands records over a bounded channel with `try_send`:
//! when the writer falls behind, records are dropped and counted, never waited for.
//!
//! Columns (pandas-readable, header first):
//! `seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size`,
//! type in `interest|data|nack`, cs in `hit|miss|-`; `output_ns` is 0 for a packet
//! that caused no transmission.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use super::Record;

/// The CSV header.
pub const HEADER: &str =
    "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size";

/// How long the writer waits for a record before it flushes its buffer.
const IDLE_FLUSH: Duration = Duration::from_millis(200);

enum Msg {
    Rec(Record),
    Flush(std::sync::mpsc::Sender<()>),
}

/// The forwarding side of the log: a bounded channel to the writer thread.
#[derive(Debug)]
pub struct LogSender {
    tx: SyncSender<Msg>,
    drops: Arc<AtomicU64>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

impl LogSender {
    /// Creates (truncates) `path` and starts its writer thread, with room for
    /// `capacity` records in flight.
    pub fn create(path: &Path, capacity: usize) -> anyhow::Result<LogSender> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create the latency log {}", path.display()))?;
        Ok(Self::spawn(std::io::BufWriter::new(file), capacity)?)
    }

    /// Starts a writer thread on any output.
    pub fn spawn<W: Write + Send + 'static>(out: W, capacity: usize) -> std::io::Result<LogSender> {
        let (tx, rx) = sync_channel(capacity.max(1));
        std::thread::Builder::new()
            .name("ndnlab-latency-log".into())
            .spawn(move || write_loop(out, rx))?;
        Ok(LogSender {
            tx,
            drops: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Hands a record to the writer, or drops and counts it if the channel is full.
    pub fn send(&self, rec: Record) {
        match self.tx.try_send(Msg::Rec(rec)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.drops.fetch_add(1, Relaxed);
            }
        }
    }

    /// Records dropped so far.
    pub fn drops(&self) -> u64 {
        self.drops.load(Relaxed)
    }

    /// Waits until the writer has written and flushed every record sent before.
    pub fn flush(&self) {
        let (tx, rx) = std::sync::mpsc::channel();
        if self.tx.send(Msg::Flush(tx)).is_ok() {
            let _ = rx.recv_timeout(Duration::from_secs(10));
        }
    }
}

/// One CSV line.
pub fn csv_line(r: &Record) -> String {
    format!(
        "{},{},{},{},{},{},{},{},{},{}",
        r.seq,
        r.typ.as_str(),
        r.cs.as_str(),
        r.input_ns,
        r.queue_ns,
        r.fwd_ns,
        r.output_ns.unwrap_or(0),
        r.total_ns,
        r.queue_len,
        r.pit_size
    )
}

fn write_loop<W: Write>(mut out: W, rx: Receiver<Msg>) {
    let mut ok = writeln!(out, "{HEADER}").is_ok();
    loop {
        match rx.recv_timeout(IDLE_FLUSH) {
            Ok(Msg::Rec(r)) => {
                if ok {
                    ok = writeln!(out, "{}", csv_line(&r)).is_ok();
                }
            }
            Ok(Msg::Flush(done)) => {
                let _ = out.flush();
                let _ = done.send(());
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = out.flush();
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = out.flush();
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::{CsOutcome, PktType};
    use std::sync::{Arc, Mutex};

    /// An output that blocks every write until the test releases it.
    struct Gate {
        open: std::sync::mpsc::Receiver<()>,
        opened: bool,
        got: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gate {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if !self.opened {
                let _ = self.open.recv();
                self.opened = true;
            }
            self.got.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn rec(seq: u64) -> Record {
        Record {
            seq,
            typ: PktType::Interest,
            cs: CsOutcome::Miss,
            input_ns: 1,
            queue_ns: 2,
            fwd_ns: 3,
            output_ns: None,
            total_ns: 6,
            queue_len: 7,
            pit_size: 8,
        }
    }

    /// The writer is stuck on its first write: sends beyond the channel's room are
    /// dropped and counted at once (the test would hang if a send blocked).
    #[test]
    fn a_stuck_writer_makes_sends_drop_not_block() {
        let (open_tx, open_rx) = std::sync::mpsc::channel();
        let got = Arc::new(Mutex::new(Vec::new()));
        let out = Gate {
            open: open_rx,
            opened: false,
            got: got.clone(),
        };
        let log = LogSender::spawn(out, 4).unwrap();
        for i in 0..100 {
            log.send(rec(i));
        }
        // The writer holds at most one record outside the channel (none while
        // stuck on the header).
        let drops = log.drops();
        assert!((95..=96).contains(&drops), "drops {drops}");
        open_tx.send(()).unwrap();
        log.flush();
        let text = String::from_utf8(got.lock().unwrap().clone()).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        assert_eq!(lines.next(), Some("0,interest,miss,1,2,3,0,6,7,8"));
        assert_eq!(lines.count() as u64, 100 - drops - 1);
    }
}
