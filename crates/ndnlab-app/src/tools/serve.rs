//! The producer loop every server tool runs (`perf server`, `ping server`,
//! `traffic server`, `put`): register a prefix, take its Interests one at a
//! time, ask the tool's [`Answer`] what to reply, send that with the
//! Interest's PIT token echoed, count what was served, and stop after a
//! number of answers, when a stop signal fires or when the connection closes;
//! then unregister. The tools differ only in their [`Answer`].
//!
//! Two drivers run that one loop: [`Server`] on the async client (any
//! transport), and [`BatchedServer`] on the client library's batched path
//! (Unix and TCP), which takes every Interest of a read at once and writes the
//! replies with one system call. Both count through the same [`Served`].

use std::future::Future;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{Interest, Nack, NackReason, Name};

use crate::client::burst::BurstConn;
use crate::client::reconnect::{retry_blocking, Reconnect};
use crate::client::{Client, FaceUri, IncomingInterest, Producer};

/// What to send for one Interest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// This Data packet.
    Data(Bytes),
    /// A Nack with this reason.
    Nack(NackReason),
    /// Nothing now: someone else answers (a signing thread, with the token).
    HandedOff,
    /// Nothing: the Interest goes unanswered.
    Nothing,
}

/// A server's answers.
pub trait Answer {
    /// The reply to `interest`; an error stops the server.
    fn answer(&mut self, interest: &IncomingInterest) -> anyhow::Result<Reply>;
}

impl<F> Answer for F
where
    F: FnMut(&IncomingInterest) -> anyhow::Result<Reply>,
{
    fn answer(&mut self, interest: &IncomingInterest) -> anyhow::Result<Reply> {
        self(interest)
    }
}

/// What a server did so far (shared, readable while it runs).
#[derive(Debug, Default)]
pub struct Served {
    /// Interests received.
    pub interests: AtomicU64,
    /// Data sent.
    pub data: AtomicU64,
    /// Nacks sent.
    pub nacks: AtomicU64,
    /// Interests handed off to be answered elsewhere.
    pub handed_off: AtomicU64,
}

impl Served {
    /// Asks `answer` what to reply to `inc` and counts the Interest and the reply.
    fn ask(&self, answer: &mut impl Answer, inc: &IncomingInterest) -> anyhow::Result<Reply> {
        self.interests.fetch_add(1, Relaxed);
        let r = answer.answer(inc)?;
        let counter = match r {
            Reply::Data(_) => &self.data,
            Reply::Nack(_) => &self.nacks,
            Reply::HandedOff => &self.handed_off,
            Reply::Nothing => return Ok(r),
        };
        counter.fetch_add(1, Relaxed);
        Ok(r)
    }

    /// Interests answered one way or another (Data, Nack or handed off).
    pub fn answered(&self) -> u64 {
        self.data.load(Relaxed) + self.nacks.load(Relaxed) + self.handed_off.load(Relaxed)
    }
}

/// A registered prefix and its Interests.
pub struct Server {
    client: Client,
    producer: Producer,
    served: Arc<Served>,
}

impl Server {
    /// Registers `prefix` with the forwarder.
    pub async fn register(client: &Client, prefix: &Name) -> anyhow::Result<Server> {
        Ok(Server {
            client: client.clone(),
            producer: client.register(prefix).await?,
            served: Arc::default(),
        })
    }

    /// The counters, to read while [`run`](Self::run) goes on.
    pub fn served(&self) -> Arc<Served> {
        self.served.clone()
    }

    /// Answers Interests until `count` were answered (if given), `stop`
    /// completes or the connection closes, then unregisters the prefix.
    /// An error of the answer or of the connection ends it too.
    pub async fn run(
        mut self,
        mut answer: impl Answer,
        count: Option<u64>,
        stop: impl Future<Output = ()>,
    ) -> anyhow::Result<()> {
        tokio::pin!(stop);
        let result = loop {
            if count.is_some_and(|c| self.served.answered() >= c) {
                break Ok(());
            }
            let inc = tokio::select! {
                i = self.producer.recv() => match i {
                    Some(i) => i,
                    None => break Err(anyhow::anyhow!(
                        "connection to the forwarder {} closed", self.client.uri()
                    )),
                },
                _ = &mut stop => break Ok(()),
            };
            if let Err(e) = self.reply(&mut answer, &inc).await {
                break Err(e);
            }
        };
        let _ = self.client.unregister(self.producer.prefix()).await;
        result
    }

    async fn reply(&self, answer: &mut impl Answer, inc: &IncomingInterest) -> anyhow::Result<()> {
        match self.served.ask(answer, inc)? {
            Reply::Data(d) => self.client.put_data(d, inc.pit_token.as_ref()).await?,
            Reply::Nack(reason) => self.client.put_nack(inc, reason).await?,
            Reply::HandedOff | Reply::Nothing => {}
        }
        Ok(())
    }
}

/// Where handed-off replies go: a function that sends one whole packet (a Data in
/// an LpPacket with its PIT token), false once the connection is gone.
pub type Sink = Arc<dyn Fn(Bytes) -> bool + Send + Sync>;

/// Handed-off replies queued toward a [`BatchedServer`] before senders wait.
const HANDOFF_QUEUE: usize = 4096;

/// The producer loop on the batched path ([`BurstConn`]), on the caller's thread.
pub struct BatchedServer {
    conn: BurstConn,
    uri: FaceUri,
    prefix: Name,
    reconnect: Reconnect,
    /// Signs the registration, again after a reconnection.
    signer: Option<Arc<dyn ndnlab_wire::Signer>>,
    served: Arc<Served>,
    handoff_tx: std::sync::mpsc::SyncSender<Bytes>,
    handoff: std::sync::mpsc::Receiver<Bytes>,
    /// Rung (one byte, never blocking) by a handed-off reply while the loop sleeps.
    wake_tx: Arc<UnixDatagram>,
    wake_rx: UnixDatagram,
    asleep: Arc<AtomicBool>,
}

/// Waits up to `timeout` (with the kernel's high-resolution timers) until `conn`
/// has something to read or `wake` was rung: `[readable, rung]`.
fn wait_either(
    conn: &impl AsRawFd,
    wake: &UnixDatagram,
    timeout: Duration,
) -> std::io::Result<[bool; 2]> {
    let mut fds = [conn.as_raw_fd(), wake.as_raw_fd()].map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: two valid pollfds, a valid timespec, no signal mask.
    let r = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        return if e.kind() == std::io::ErrorKind::Interrupted {
            Ok([false, false])
        } else {
            Err(e)
        };
    }
    // a hang-up or an error is "readable": the read reports it
    Ok(fds.map(|p| p.revents != 0))
}

impl BatchedServer {
    /// Connects (Unix or TCP) and registers `prefix` toward this connection, the
    /// command signed by `signer` (DigestSha256 if `None`). It does not reconnect
    /// unless told to ([`with_reconnect`](Self::with_reconnect)).
    pub fn register(
        uri: &FaceUri,
        prefix: &Name,
        signer: Option<Arc<dyn ndnlab_wire::Signer>>,
    ) -> anyhow::Result<BatchedServer> {
        let conn = Self::open(uri, prefix, signer.as_deref())?;
        let (handoff_tx, handoff) = std::sync::mpsc::sync_channel(HANDOFF_QUEUE);
        let (wake_tx, wake_rx) = UnixDatagram::pair()?;
        wake_tx.set_nonblocking(true)?;
        wake_rx.set_nonblocking(true)?;
        Ok(BatchedServer {
            conn,
            uri: uri.clone(),
            prefix: prefix.clone(),
            reconnect: Reconnect::disabled(),
            signer,
            served: Arc::default(),
            handoff_tx,
            handoff,
            wake_tx: Arc::new(wake_tx),
            wake_rx,
            asleep: Arc::default(),
        })
    }

    fn open(
        uri: &FaceUri,
        prefix: &Name,
        signer: Option<&dyn ndnlab_wire::Signer>,
    ) -> anyhow::Result<BurstConn> {
        let mut conn = BurstConn::connect(uri)?;
        conn.register_signed(prefix, REGISTER_TIMEOUT, signer)?;
        Ok(conn)
    }

    /// Reconnects and registers the prefix again when the forwarder goes away,
    /// as `policy` says (see [`crate::client::reconnect`]).
    pub fn with_reconnect(mut self, policy: Reconnect) -> BatchedServer {
        self.reconnect = policy;
        self
    }

    /// After the connection failed with `e`: reconnects and registers again if the
    /// policy says so (`Ok(true)`: go on serving); `Ok(false)`: end quietly (the
    /// forwarder closed the connection, or `stop` was set while waiting).
    fn recover(&mut self, e: std::io::Error, stop: &AtomicBool) -> anyhow::Result<bool> {
        use std::io::ErrorKind::*;
        let lost = matches!(
            e.kind(),
            UnexpectedEof | BrokenPipe | ConnectionReset | ConnectionAborted | NotConnected
        );
        if !lost {
            return Err(e.into());
        }
        if !self.reconnect.enabled {
            return Ok(false);
        }
        let (policy, label) = (self.reconnect.clone(), self.uri.to_string());
        policy.note(
            &label,
            &format!(
                "connection lost ({e}); reconnecting (giving up after {:?})",
                policy.give_up_after
            ),
        );
        let lost_at = std::time::Instant::now();
        let (uri, prefix, signer) = (&self.uri, &self.prefix, self.signer.as_deref());
        match retry_blocking(
            &policy,
            lost_at,
            || stop.load(Relaxed),
            || Self::open(uri, prefix, signer),
        ) {
            None => Ok(false),
            Some(Ok(conn)) => {
                self.conn = conn;
                policy.note(
                    &label,
                    &format!(
                        "reconnected after {:.1} s; registered {prefix} again",
                        lost_at.elapsed().as_secs_f64()
                    ),
                );
                Ok(true)
            }
            Some(Err(e)) => {
                policy.note(
                    &label,
                    &format!(
                        "did not come back within {:?}; giving up",
                        policy.give_up_after
                    ),
                );
                Err(e.context(format!("forwarder {label} did not come back")))
            }
        }
    }

    /// The counters the loop updates.
    pub fn served(&self) -> Arc<Served> {
        self.served.clone()
    }

    /// A sink for replies made on other threads (e.g. a signing pool): the loop
    /// writes them with its next burst.
    pub fn sink(&self) -> Sink {
        let (tx, wake) = (self.handoff_tx.clone(), self.wake_tx.clone());
        let asleep = self.asleep.clone();
        Arc::new(move |pkt| {
            let sent = tx.send(pkt).is_ok();
            if asleep.swap(false, SeqCst) {
                // a full wake-up socket is rung already
                let _ = wake.send(&[1]);
            }
            sent
        })
    }

    /// Serves until `count` answers, until `stop` is set, or until the connection
    /// closes (the forwarder then drops the face and its routes) and is not
    /// reopened (see [`with_reconnect`](Self::with_reconnect)).
    pub fn run(
        mut self,
        mut answer: impl Answer,
        count: Option<u64>,
        stop: &AtomicBool,
    ) -> anyhow::Result<()> {
        loop {
            match self.serve(&mut answer, count, stop) {
                Ok(()) => return Ok(()),
                Err(Lost::Other(e)) => return Err(e),
                Err(Lost::Io(e)) => {
                    if !self.recover(e, stop)? {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// The loop of [`run`](Self::run) on one connection.
    fn serve(
        &mut self,
        answer: &mut impl Answer,
        count: Option<u64>,
        stop: &AtomicBool,
    ) -> Result<(), Lost> {
        // The loop sleeps in ppoll(2) on the connection and on a wake-up socket
        // that every handed-off reply rings, so a signer's reply is written at
        // once (a read timeout would round to the kernel's tick, milliseconds).
        const IDLE: Duration = Duration::from_millis(5);
        let mut replies = Vec::new();
        while !stop.load(Relaxed) && !matches!(count, Some(c) if self.served.answered() >= c) {
            while let Ok(p) = self.handoff.try_recv() {
                self.conn.push_raw(&p);
            }
            self.conn.flush().map_err(Lost::Io)?;
            // Asleep from here: a reply handed off after this store rings; one
            // handed off before it is seen by the try_recv below.
            self.asleep.store(true, SeqCst);
            if let Ok(p) = self.handoff.try_recv() {
                self.asleep.store(false, SeqCst);
                self.conn.push_raw(&p);
                continue;
            }
            let [readable, rung] =
                wait_either(&self.conn, &self.wake_rx, IDLE).map_err(|e| Lost::Other(e.into()))?;
            self.asleep.store(false, SeqCst);
            if rung {
                let mut b = [0u8; 64];
                while self.wake_rx.recv(&mut b).is_ok() {}
            }
            if !readable {
                continue;
            }
            let (conn, served) = (&mut self.conn, &self.served);
            let mut failed = None;
            let got = conn.poll(Duration::from_millis(1), |fields, pkt| {
                if fields.nack.is_some() || failed.is_some() {
                    return;
                }
                let Ok(interest) = Interest::decode(pkt) else {
                    return;
                };
                let inc = IncomingInterest {
                    interest,
                    pit_token: fields.pit_token,
                    incoming_face_id: fields.incoming_face_id,
                };
                match served.ask(answer, &inc) {
                    Ok(r) => replies.push((inc, r)),
                    Err(e) => failed = Some(e),
                }
            });
            got.map_err(Lost::Io)?;
            for (inc, r) in replies.drain(..) {
                match r {
                    Reply::Data(d) => conn.push_with_token(&d, inc.pit_token.as_deref()),
                    Reply::Nack(reason) => {
                        let mut b = Nack::new(inc.interest, reason).to_lp_builder();
                        if let Some(t) = inc.pit_token {
                            b = b.pit_token(t);
                        }
                        conn.push_raw(&b.build());
                    }
                    Reply::HandedOff | Reply::Nothing => {}
                }
            }
            if let Some(e) = failed {
                return Err(Lost::Other(e));
            }
            conn.flush().map_err(Lost::Io)?;
        }
        Ok(())
    }
}

/// How one connection's serving loop failed.
enum Lost {
    /// The connection (the caller may reconnect).
    Io(std::io::Error),
    /// Anything else (the answer, the wake-up socket): ends the server.
    Other(anyhow::Error),
}

/// How long a `rib/register` may take.
const REGISTER_TIMEOUT: Duration = Duration::from_secs(4);

/// Completes on Ctrl-C, or at `deadline` if there is one.
pub async fn interrupted(deadline: Option<tokio::time::Instant>) {
    let at_deadline = async {
        match deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        // an error installing the handler ends the wait too, as Ctrl-C would
        _ = tokio::signal::ctrl_c() => {}
        _ = at_deadline => {}
    }
}

#[cfg(test)]
mod tests;
