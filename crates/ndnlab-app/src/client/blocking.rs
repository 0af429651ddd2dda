//! A synchronous wrapper: the client runs on its own small tokio runtime and
//! every call blocks the calling thread until done.
//!
//! ```no_run
//! use ndnlab_app::client::blocking::BlockingClient;
//! use ndnlab_wire::Interest;
//! let c = BlockingClient::connect_default().unwrap();
//! let i = Interest::builder("/example".parse().unwrap()).build_view().unwrap();
//! println!("{:?}", c.express(i).unwrap());
//! ```

use bytes::Bytes;
use ndnlab_wire::{Interest, Name};

use super::{Client, ClientError, FaceUri, IncomingInterest, Outcome, Producer};

/// A [`Client`] driven from synchronous code.
pub struct BlockingClient {
    rt: tokio::runtime::Runtime,
    client: Client,
}

fn runtime() -> Result<tokio::runtime::Runtime, ClientError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|source| ClientError::Connect {
            uri: "runtime".into(),
            source,
        })
}

impl BlockingClient {
    pub fn connect(uri: &FaceUri) -> Result<BlockingClient, ClientError> {
        let rt = runtime()?;
        let client = rt.block_on(Client::connect(uri))?;
        Ok(BlockingClient { rt, client })
    }

    pub fn connect_default() -> Result<BlockingClient, ClientError> {
        BlockingClient::connect(&FaceUri::default_transport()?)
    }

    /// The async client (e.g. to hand to other threads).
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn express(&self, interest: Interest) -> Result<Outcome, ClientError> {
        self.rt.block_on(self.client.express(interest))
    }

    pub fn register(&self, prefix: &Name) -> Result<BlockingProducer<'_>, ClientError> {
        let p = self.rt.block_on(self.client.register(prefix))?;
        Ok(BlockingProducer { rt: &self.rt, inner: p })
    }

    pub fn unregister(&self, prefix: &Name) -> Result<(), ClientError> {
        self.rt.block_on(self.client.unregister(prefix))
    }

    pub fn put_data(&self, data: Bytes, pit_token: Option<&Bytes>) -> Result<(), ClientError> {
        self.client.blocking_send(super::wrap_token(data, pit_token))
    }
}

/// Interests under a prefix, received synchronously.
pub struct BlockingProducer<'a> {
    rt: &'a tokio::runtime::Runtime,
    inner: Producer,
}

impl BlockingProducer<'_> {
    /// Blocks for the next Interest (`None` once the connection closed).
    pub fn recv(&mut self) -> Option<IncomingInterest> {
        self.rt.block_on(self.inner.recv())
    }
}
