//! The NDN client library: connect to a forwarder, express Interests, serve
//! Interests, register prefixes.
//!
//! ```no_run
//! # async fn demo() -> Result<(), ndnlab_app::client::ClientError> {
//! use ndnlab_app::client::{Client, Outcome};
//! use ndnlab_wire::Interest;
//! let client = Client::connect_default().await?;
//! let interest = Interest::builder("/example/data".parse().unwrap()).can_be_prefix(true).build_view().unwrap();
//! match client.express(interest).await? {
//!     Outcome::Data(r) => println!("{} bytes in {:?}", r.data.content().len(), r.rtt),
//!     Outcome::Nack(reason) => println!("nack {}", reason.as_str()),
//!     Outcome::Timeout => println!("timeout"),
//! }
//! # Ok(()) }
//! ```
//!
//! Structure: [`uri`] (where the forwarder is), `io` (reader/writer tasks
//! over the protocol layer's stream framing and NDNLPv2 link service),
//! [`pit`] (pending Interests), [`mgmt`] (NFD management commands and
//! datasets), [`reconnect`] (reconnecting and registering again after the
//! forwarder restarted), [`link`] (in-memory links, e.g. to a forwarder in the same
//! process), [`blocking`] (a synchronous wrapper).
//!
//! Every Interest carries a PitToken (8 bytes) so its answer is found
//! without a name lookup; names are matched too, for forwarders that do not
//! echo tokens. Interests arriving for a registered prefix go to the
//! [`Producer`] of the longest registered prefix through a bounded queue
//! (overflow is dropped and counted in [`Counters::interest_drops`]).

pub mod blocking;
pub mod burst;
mod io;
pub mod mgmt;
pub mod pit;
pub mod reconnect;
pub mod uri;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_proto::lp::LpFields;
use ndnlab_wire::{Data, Interest, LpPacket, Nack, NackReason, Name, Packet};
use tokio::sync::{mpsc, oneshot};

pub use mgmt::{ControlParameters, ControlResponse, MgmtError};
pub use ndnlab_proto::link::{self as link, Link};
pub use pit::{Outcome, Received, Waiter};
pub use reconnect::Reconnect;
pub use uri::FaceUri;

/// Packets queued toward the forwarder before senders wait.
pub const SEND_QUEUE: usize = 8192;
/// Interests queued toward one producer before they are dropped.
pub const PRODUCER_QUEUE: usize = 65536;

/// Client failures.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The forwarder URI is unusable.
    #[error(transparent)]
    BadUri(#[from] uri::BadUri),
    /// Connecting failed.
    #[error("cannot connect to {uri}: {cause}")]
    Connect { uri: String, cause: std::io::Error },
    /// The connection is gone.
    #[error("connection to the forwarder is closed")]
    Closed,
    /// A management command failed.
    #[error("{what}: {cause}")]
    Mgmt { what: String, cause: MgmtError },
    /// A management command got no answer.
    #[error("{what}: {outcome}")]
    NoAnswer { what: String, outcome: String },
    /// Building or signing a packet failed.
    #[error("cannot build packet: {0}")]
    Build(String),
}

/// Counters of one connection.
#[derive(Debug, Default)]
pub struct Counters {
    pub rx_packets: AtomicU64,
    pub tx_packets: AtomicU64,
    /// Packets that did not decode.
    pub malformed: AtomicU64,
    /// Data that matched no pending Interest (late or unsolicited).
    pub unsolicited: AtomicU64,
    /// Interests for no registered prefix.
    pub no_producer: AtomicU64,
    /// Interests dropped because a producer's queue was full.
    pub interest_drops: AtomicU64,
    pub send_errors: AtomicU64,
}

/// An Interest delivered to a producer.
#[derive(Debug, Clone)]
pub struct IncomingInterest {
    pub interest: Interest,
    /// PitToken to echo on the answer.
    pub pit_token: Option<Bytes>,
    /// The forwarder's face id of the requester (IncomingFaceId).
    pub incoming_face_id: Option<u64>,
}

type ProducerTable = Vec<(Name, mpsc::Sender<IncomingInterest>)>;

pub(crate) struct Inner {
    out: mpsc::Sender<Bytes>,
    pit: Mutex<pit::Pit>,
    producers: RwLock<ProducerTable>,
    closed: AtomicBool,
    pub(crate) counters: Counters,
    uri: String,
    /// Signs management commands; DigestSha256 when unset.
    command_signer: RwLock<Option<Arc<dyn ndnlab_wire::Signer>>>,
}

/// A connection to a forwarder. Cheap to clone; all clones share it.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("uri", &self.inner.uri)
            .finish()
    }
}

impl Client {
    fn new(uri: String) -> (Client, mpsc::Receiver<Bytes>) {
        let (tx, rx) = mpsc::channel(SEND_QUEUE);
        let inner = Arc::new(Inner {
            out: tx,
            pit: Mutex::new(pit::Pit::default()),
            producers: RwLock::new(Vec::new()),
            closed: AtomicBool::new(false),
            counters: Counters::default(),
            uri,
            command_signer: RwLock::new(None),
        });
        let weak = Arc::downgrade(&inner);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(5));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { break };
                if inner.closed.load(Relaxed) {
                    break;
                }
                let expired = {
                    let mut pit = inner.pit.lock().expect("pit lock");
                    pit.compact();
                    pit.expire(Instant::now())
                };
                for e in expired {
                    e.waiter.deliver(Outcome::Timeout);
                }
            }
        });
        (Client { inner }, rx)
    }

    /// Connects to `uri`, without reconnecting if the forwarder goes away.
    /// Must run inside a tokio runtime.
    pub async fn connect(uri: &FaceUri) -> Result<Client, ClientError> {
        Client::connect_with(uri, Reconnect::disabled()).await
    }

    /// Connects to `uri`; on Unix and TCP, if the forwarder goes away, reconnects
    /// and registers every prefix again as `policy` says (see [`reconnect`]).
    /// Interests pending at the loss time out at their lifetime; packets sent
    /// meanwhile wait in the queue. Must run inside a tokio runtime.
    pub async fn connect_with(uri: &FaceUri, policy: Reconnect) -> Result<Client, ClientError> {
        let err = |source| ClientError::Connect {
            uri: uri.to_string(),
            cause: source,
        };
        match uri {
            FaceUri::Unix(_) | FaceUri::Tcp(_) => {
                let (rd, wr) = io::connect_stream(uri).await.map_err(err)?;
                let (c, rx) = Client::new(uri.to_string());
                if policy.enabled {
                    io::spawn_reconnecting(c.inner.clone(), (rd, wr), uri.clone(), policy, rx);
                } else {
                    io::spawn_stream(c.inner.clone(), rd, wr, rx);
                }
                Ok(c)
            }
            FaceUri::Udp(hp) => {
                let remote = tokio::net::lookup_host(hp.as_str())
                    .await
                    .map_err(err)?
                    .next()
                    .ok_or_else(|| err(std::io::Error::other("no address")))?;
                let local = if remote.is_ipv4() {
                    "0.0.0.0:0"
                } else {
                    "[::]:0"
                };
                let s = tokio::net::UdpSocket::bind(local).await.map_err(err)?;
                s.connect(remote).await.map_err(err)?;
                let (c, rx) = Client::new(uri.to_string());
                io::spawn_udp(c.inner.clone(), s, rx);
                Ok(c)
            }
        }
    }

    /// Connects to the default forwarder (see [`FaceUri::default_transport`]).
    pub async fn connect_default() -> Result<Client, ClientError> {
        Client::connect(&FaceUri::default_transport()?).await
    }

    /// Runs over any byte stream (e.g. `tokio::io::duplex`).
    pub fn from_stream<S>(stream: S, label: &str) -> Client
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let (rd, wr) = tokio::io::split(stream);
        let (c, rx) = Client::new(label.to_string());
        io::spawn_stream(c.inner.clone(), rd, wr, rx);
        c
    }

    /// Runs over an in-process [`Link`].
    pub fn from_link(link: Link) -> Client {
        let (c, rx) = Client::new("inproc://".to_string());
        io::spawn_link(c.inner.clone(), link, rx);
        c
    }

    pub fn uri(&self) -> &str {
        &self.inner.uri
    }
    pub fn counters(&self) -> &Counters {
        &self.inner.counters
    }
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Relaxed)
    }
    /// Pending Interests.
    pub fn pending(&self) -> usize {
        self.inner.pit.lock().expect("pit lock").len()
    }

    /// Expresses an Interest and waits for its outcome (Data, Nack, or
    /// Timeout at the Interest lifetime). An Interest without Nonce gets one.
    pub async fn express(&self, interest: Interest) -> Result<Outcome, ClientError> {
        let (tx, rx) = oneshot::channel();
        self.express_with(interest, Waiter::Once(tx)).await?;
        rx.await.map_err(|_| ClientError::Closed)
    }

    /// Expresses an Interest whose outcome goes to `waiter`; returns its
    /// token (for [`Client::cancel`]).
    pub async fn express_with(
        &self,
        mut interest: Interest,
        waiter: Waiter,
    ) -> Result<u64, ClientError> {
        let (token, pkt) = self.prepare(&mut interest, waiter)?;
        self.send(pkt).await.inspect_err(|_| {
            self.cancel(token);
        })?;
        Ok(token)
    }

    fn prepare(
        &self,
        interest: &mut Interest,
        waiter: Waiter,
    ) -> Result<(u64, Bytes), ClientError> {
        if self.is_closed() {
            return Err(ClientError::Closed);
        }
        if interest.nonce().is_none() {
            interest.set_nonce(rand::random());
        }
        let token =
            self.inner
                .pit
                .lock()
                .expect("pit lock")
                .insert(interest, Instant::now(), waiter);
        let pkt = LpPacket::builder()
            .pit_token(Bytes::copy_from_slice(&pit::token_bytes(token)))
            .fragment(interest.wire().clone())
            .build();
        Ok((token, pkt))
    }

    /// Forgets a pending Interest (its outcome will not be delivered).
    pub fn cancel(&self, token: u64) {
        self.inner.pit.lock().expect("pit lock").remove(token);
    }

    /// Sends a whole packet to the forwarder (waits while the queue is full).
    pub async fn send(&self, pkt: Bytes) -> Result<(), ClientError> {
        self.inner.counters.tx_packets.fetch_add(1, Relaxed);
        self.inner
            .out
            .send(pkt)
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Sends from a non-async thread (e.g. a signing worker).
    pub fn blocking_send(&self, pkt: Bytes) -> Result<(), ClientError> {
        self.inner.counters.tx_packets.fetch_add(1, Relaxed);
        self.inner
            .out
            .blocking_send(pkt)
            .map_err(|_| ClientError::Closed)
    }

    /// Answers an Interest with a Data (echoing its PitToken).
    pub async fn put_data(
        &self,
        data: Bytes,
        pit_token: Option<&Bytes>,
    ) -> Result<(), ClientError> {
        self.send(wrap_token(data, pit_token)).await
    }

    /// Answers an Interest with a Nack.
    pub async fn put_nack(
        &self,
        interest: &IncomingInterest,
        reason: NackReason,
    ) -> Result<(), ClientError> {
        let mut b = Nack::new(interest.interest.clone(), reason).to_lp_builder();
        if let Some(t) = &interest.pit_token {
            b = b.pit_token(t.clone());
        }
        self.send(b.build()).await
    }

    /// Registers `prefix` with the forwarder (rib/register, origin app,
    /// CHILD_INHERIT) and returns the stream of Interests under it.
    pub async fn register(&self, prefix: &Name) -> Result<Producer, ClientError> {
        let (tx, rx) = mpsc::channel(PRODUCER_QUEUE);
        self.inner
            .producers
            .write()
            .expect("producer lock")
            .push((prefix.clone(), tx));
        if let Err(e) = self
            .command("rib", "register", &register_params(prefix))
            .await
        {
            self.remove_producer(prefix);
            return Err(e);
        }
        Ok(Producer {
            client: self.clone(),
            prefix: prefix.clone(),
            rx,
        })
    }

    /// Stops serving `prefix` and unregisters it.
    pub async fn unregister(&self, prefix: &Name) -> Result<(), ClientError> {
        self.remove_producer(prefix);
        let cp = ControlParameters {
            name: Some(prefix.clone()),
            origin: Some(mgmt::ORIGIN_APP),
            ..Default::default()
        };
        self.command("rib", "unregister", &cp).await.map(|_| ())
    }

    fn remove_producer(&self, prefix: &Name) {
        self.inner
            .producers
            .write()
            .expect("producer lock")
            .retain(|(p, _)| p != prefix);
    }

    /// Sends a management command and checks its ControlResponse (a code other
    /// than 200 is [`MgmtError::Refused`]).
    pub async fn command(
        &self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        let resp = self.command_response(module, verb, params).await?;
        if resp.code != 200 {
            return Err(ClientError::Mgmt {
                what: format!("{module}/{verb}"),
                cause: MgmtError::Refused {
                    code: resp.code,
                    text: resp.text,
                },
            });
        }
        Ok(resp)
    }

    /// Sends a management command and returns its ControlResponse, whatever its code.
    pub async fn command_response(
        &self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        let signer = self
            .inner
            .command_signer
            .read()
            .expect("signer lock")
            .clone();
        let wire = match signer {
            None => mgmt::command_interest(module, verb, params),
            Some(s) => mgmt::command_interest_with(s.as_ref(), module, verb, params)
                .map_err(|e| ClientError::Build(format!("signing {module}/{verb}: {e}")))?,
        };
        self.command_wire(&format!("{module}/{verb}"), wire).await
    }

    /// Signs this client's management commands (prefix registrations included)
    /// with `signer`, e.g. a key a forwarder's `[[management.authorize]]` (NFD's
    /// `authorizations`) lists; `None`: DigestSha256, the default.
    pub fn set_command_signer(&self, signer: Option<Arc<dyn ndnlab_wire::Signer>>) {
        *self.inner.command_signer.write().expect("signer lock") = signer;
    }

    /// Sends a command Interest built elsewhere (e.g. in the older signed form)
    /// and returns its ControlResponse, whatever its code.
    pub async fn command_wire(
        &self,
        what: &str,
        wire: Bytes,
    ) -> Result<ControlResponse, ClientError> {
        let interest = Interest::decode(wire).map_err(|e| ClientError::Build(e.to_string()))?;
        let data = match self.expect_data(what, interest).await {
            Err(ClientError::NoAnswer { what, outcome }) if outcome.starts_with("timeout") => {
                return Err(ClientError::NoAnswer {
                    what,
                    outcome: COMMAND_TIMEOUT.into(),
                })
            }
            r => r?,
        };
        mgmt::decode_response(&data.content()).map_err(|source| ClientError::Mgmt {
            what: what.to_string(),
            cause: source,
        })
    }

    /// Fetches every segment of the newest version of a status dataset
    /// (`/localhost/nfd/<module>/<dataset>`), e.g. `faces`/`list`.
    pub async fn dataset(&self, module: &str, dataset: &str) -> Result<Bytes, ClientError> {
        let mut b = Name::builder();
        b.push_generic(b"localhost")
            .push_generic(b"nfd")
            .push_generic(module.as_bytes())
            .push_generic(dataset.as_bytes());
        self.fetch_segmented(b.build()).await
    }

    /// Fetches a segmented, versioned object under `prefix`, one segment at a time.
    pub async fn fetch_segmented(&self, prefix: Name) -> Result<Bytes, ClientError> {
        let what = prefix.to_uri();
        let mut fetch = mgmt::SegmentFetch::new(prefix, rand::random());
        let mut next = fetch.first_interest();
        loop {
            let interest = Interest::decode(next).map_err(|e| ClientError::Build(e.to_string()))?;
            let data = self.expect_data(&what, interest).await?;
            match fetch.on_data(&data) {
                Ok(mgmt::FetchStep::Send(i)) => next = i,
                Ok(mgmt::FetchStep::Done(all)) => return Ok(all),
                Err(e) => {
                    return Err(ClientError::NoAnswer {
                        what,
                        outcome: e.to_string(),
                    })
                }
            }
        }
    }

    /// Expresses `interest` and returns its Data; a Nack or a timeout is an error.
    async fn expect_data(&self, what: &str, interest: Interest) -> Result<Data, ClientError> {
        match self.express(interest).await? {
            Outcome::Data(r) => Ok(r.data),
            Outcome::Nack(r) => Err(ClientError::NoAnswer {
                what: what.to_string(),
                outcome: format!("nack {}", r.as_str()),
            }),
            Outcome::Timeout => Err(ClientError::NoAnswer {
                what: what.to_string(),
                outcome: "timeout (is the forwarder's management enabled?)".into(),
            }),
        }
    }
}

/// What an unanswered command says: management may be off, or the forwarder
/// checks command signatures and dropped this one without a reply (NFD's answer
/// to an unsigned or DigestSha256 command).
pub(crate) const COMMAND_TIMEOUT: &str = "timeout (is the forwarder's management enabled? \
     With [[management.authorize]] (NFD's authorizations) it drops commands not signed \
     by a key: sign with --key / --command-key)";

/// The parameters of `rib/register` for an application's prefix (origin app,
/// cost 0, CHILD_INHERIT).
fn register_params(prefix: &Name) -> ControlParameters {
    ControlParameters {
        name: Some(prefix.clone()),
        origin: Some(mgmt::ORIGIN_APP),
        cost: Some(0),
        flags: Some(mgmt::ROUTE_CHILD_INHERIT),
        ..Default::default()
    }
}

/// Registers again every prefix the client serves, after a reconnection
/// (a few tries each, in a task of its own, logged through `policy`).
fn reregister(inner: Arc<Inner>, policy: Reconnect) {
    let prefixes: Vec<Name> = {
        let producers = inner.producers.read().expect("producer lock");
        producers.iter().map(|(p, _)| p.clone()).collect()
    };
    if prefixes.is_empty() {
        return;
    }
    let client = Client { inner };
    tokio::spawn(async move {
        for prefix in prefixes {
            let mut last = None;
            for _ in 0..3 {
                match client
                    .command("rib", "register", &register_params(&prefix))
                    .await
                {
                    Ok(_) => {
                        last = None;
                        break;
                    }
                    Err(e) => last = Some(e),
                }
                if client.is_closed() {
                    return;
                }
            }
            let what = match last {
                None => format!("registered {prefix} again"),
                Some(e) => format!("cannot register {prefix} again: {e}"),
            };
            policy.note(client.uri(), &what);
        }
    });
}

/// `data` in an LpPacket carrying `pit_token`, or bare without one.
pub fn wrap_token(data: Bytes, pit_token: Option<&Bytes>) -> Bytes {
    match pit_token {
        Some(t) => LpPacket::builder()
            .pit_token(t.clone())
            .fragment(data)
            .build(),
        None => data,
    }
}

impl Inner {
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Relaxed)
    }

    pub(crate) fn close(&self, why: &str) {
        if self.closed.swap(true, Relaxed) {
            return;
        }
        tracing::debug!(uri = %self.uri, why, "client connection closed");
        let pending = self.pit.lock().expect("pit lock").drain();
        for e in pending {
            e.waiter.deliver(Outcome::Timeout);
        }
        // dropping the producer senders ends their streams
        self.producers.write().expect("producer lock").clear();
    }

    /// A frame the link service could not use.
    pub(crate) fn on_link_drop(&self, drop: &ndnlab_proto::lp::LpDrop) {
        self.counters.malformed.fetch_add(1, Relaxed);
        tracing::trace!(uri = %self.uri, drop = drop.reason());
    }

    /// One network-layer packet from the forwarder, with its link fields (the
    /// link service already unwrapped and reassembled it).
    pub(crate) fn on_packet(&self, pkt: Bytes, lp: &LpFields) {
        self.counters.rx_packets.fetch_add(1, Relaxed);
        if let Some(code) = lp.nack {
            match Interest::decode(pkt) {
                Ok(i) => {
                    let token = lp.pit_token.as_deref();
                    let e = self.pit.lock().expect("pit lock").take_for_nack(token, &i);
                    match e {
                        Some(e) => e.waiter.deliver(Outcome::Nack(NackReason::from_code(code))),
                        None => {
                            self.counters.unsolicited.fetch_add(1, Relaxed);
                        }
                    }
                }
                Err(_) => {
                    self.counters.malformed.fetch_add(1, Relaxed);
                }
            }
            return;
        }
        match Packet::decode(pkt) {
            Ok(Packet::Interest(i)) => self.on_interest(i, lp),
            Ok(Packet::Data(d)) => self.on_data(d, lp),
            _ => {
                self.counters.malformed.fetch_add(1, Relaxed);
            }
        }
    }

    fn on_data(&self, data: Data, lp: &LpFields) {
        let token = lp.pit_token.as_deref();
        let mark = lp.congestion_mark;
        let hits = self
            .pit
            .lock()
            .expect("pit lock")
            .take_for_data(token, &data);
        if hits.is_empty() {
            self.counters.unsolicited.fetch_add(1, Relaxed);
            return;
        }
        let now = Instant::now();
        for e in hits {
            e.waiter.deliver(Outcome::Data(Box::new(Received {
                data: data.clone(),
                congestion_mark: mark,
                rtt: now.saturating_duration_since(e.sent_at),
            })));
        }
    }

    fn on_interest(&self, interest: Interest, lp: &LpFields) {
        let producers = self.producers.read().expect("producer lock");
        let best = producers
            .iter()
            .filter(|(p, _)| p.is_prefix_of(interest.name()))
            .max_by_key(|(p, _)| p.len());
        let Some((_, tx)) = best else {
            self.counters.no_producer.fetch_add(1, Relaxed);
            return;
        };
        let inc = IncomingInterest {
            interest,
            pit_token: lp.pit_token.clone(),
            incoming_face_id: lp.incoming_face_id,
        };
        if tx.try_send(inc).is_err() {
            self.counters.interest_drops.fetch_add(1, Relaxed);
        }
    }
}

/// Interests under a registered prefix.
#[derive(Debug)]
pub struct Producer {
    client: Client,
    prefix: Name,
    rx: mpsc::Receiver<IncomingInterest>,
}

impl Producer {
    /// The next Interest (`None` once the connection closed).
    pub async fn recv(&mut self) -> Option<IncomingInterest> {
        self.rx.recv().await
    }
    /// Non-blocking receive.
    pub fn try_recv(&mut self) -> Option<IncomingInterest> {
        self.rx.try_recv().ok()
    }
    pub fn prefix(&self) -> &Name {
        &self.prefix
    }
    pub fn client(&self) -> &Client {
        &self.client
    }
}

#[cfg(test)]
pub(crate) mod tests;
