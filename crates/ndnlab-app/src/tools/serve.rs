//! The producer loop every server tool runs (`perf server`, `ping server`,
//! `traffic server`, `put`): register a prefix, take its Interests one at a
//! time, ask the tool's [`Answer`] what to reply, send that with the
//! Interest's PIT token echoed, count what was served, and stop after a
//! number of answers, when a stop signal fires or when the connection closes;
//! then unregister. The tools differ only in their [`Answer`].

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use bytes::Bytes;
use ndnlab_wire::{NackReason, Name};

use crate::client::{Client, IncomingInterest, Producer};

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
                i = self.producer.recv() => match i { Some(i) => i, None => break Ok(()) },
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
        let s = &self.served;
        s.interests.fetch_add(1, Relaxed);
        match answer.answer(inc)? {
            Reply::Data(d) => {
                self.client.put_data(d, inc.pit_token.as_ref()).await?;
                s.data.fetch_add(1, Relaxed);
            }
            Reply::Nack(reason) => {
                self.client.put_nack(inc, reason).await?;
                s.nacks.fetch_add(1, Relaxed);
            }
            Reply::HandedOff => {
                s.handed_off.fetch_add(1, Relaxed);
            }
            Reply::Nothing => {}
        }
        Ok(())
    }
}

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
