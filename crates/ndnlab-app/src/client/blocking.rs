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

use super::{
    Client, ClientError, ControlParameters, ControlResponse, FaceUri, IncomingInterest, Outcome,
    Producer,
};

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
            cause: source,
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
        Ok(BlockingProducer {
            rt: &self.rt,
            inner: p,
        })
    }

    pub fn unregister(&self, prefix: &Name) -> Result<(), ClientError> {
        self.rt.block_on(self.client.unregister(prefix))
    }

    /// [`Client::command`]: a management command, refused unless its code is 200.
    pub fn command(
        &self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        self.rt.block_on(self.client.command(module, verb, params))
    }

    /// [`Client::command_response`]: a management command's response, any code.
    pub fn command_response(
        &self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        self.rt
            .block_on(self.client.command_response(module, verb, params))
    }

    /// [`Client::dataset`]: every segment of a status dataset.
    pub fn dataset(&self, module: &str, dataset: &str) -> Result<Bytes, ClientError> {
        self.rt.block_on(self.client.dataset(module, dataset))
    }

    /// Runs any future of the client on this client's runtime.
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    pub fn put_data(&self, data: Bytes, pit_token: Option<&Bytes>) -> Result<(), ClientError> {
        self.client
            .blocking_send(super::wrap_token(data, pit_token))
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;

    use bytes::BytesMut;
    use ndnlab_wire::{Data, DigestSha256, Packet};

    use super::*;
    use ndnlab_proto::framing::next_frame;

    /// The blocking client over a real Unix socket; the test thread plays
    /// the forwarder's end of the stream (framing split across writes).
    #[test]
    fn blocking_express_over_unix_stream() {
        let dir = std::env::temp_dir().join(format!("ndnlab-blk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let peer = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = BytesMut::new();
            let mut chunk = [0u8; 4096];
            let frame = loop {
                if let Some(f) = next_frame(&mut buf).unwrap() {
                    break f;
                }
                let n = s.read(&mut chunk).unwrap();
                assert!(n > 0);
                buf.extend_from_slice(&chunk[..n]);
            };
            let Packet::Lp(lp) = Packet::decode(frame).unwrap() else {
                panic!("LpPacket expected")
            };
            let i = Interest::decode(lp.fragment().unwrap()).unwrap();
            let d = Data::builder(i.name().clone())
                .content(&b"blocking"[..])
                .sign(&DigestSha256)
                .unwrap();
            // write in two pieces to exercise the reader's framing
            s.write_all(&d[..5]).unwrap();
            s.flush().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
            s.write_all(&d[5..]).unwrap();
        });
        let c = BlockingClient::connect(&FaceUri::Unix(path.clone())).unwrap();
        let i = Interest::builder("/blk".parse().unwrap())
            .build_view()
            .unwrap();
        match c.express(i).unwrap() {
            Outcome::Data(r) => assert_eq!(r.data.content_slice(), b"blocking"),
            o => panic!("{o:?}"),
        }
        peer.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
