//! In-process forwarder faces: a [`Client`] over an `ndnlab fwd` app face in
//! the same process (`Daemon::app_face`), without sockets. The face carries
//! whole TLVs exactly as a Unix socket would, so nothing else changes.

use ndnlab_fwd::face::app::AppFace;

use super::{link, Client, SEND_QUEUE};

/// Largest burst handed to the forwarder at once.
const BURST: usize = 64;

impl Client {
    /// Runs a client over an in-process forwarder face.
    pub fn from_app_face(mut face: AppFace) -> Client {
        let (mine, mut theirs) = link::pair(SEND_QUEUE);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    b = face.recv_burst() => {
                        let Some(pkts) = b else { return };
                        for p in pkts {
                            if theirs.tx.send(p).await.is_err() {
                                face.close();
                                return;
                            }
                        }
                    }
                    p = theirs.rx.recv() => {
                        let Some(p) = p else {
                            face.close();
                            return;
                        };
                        let mut burst = vec![p];
                        while burst.len() < BURST {
                            match theirs.rx.try_recv() {
                                Ok(p) => burst.push(p),
                                Err(_) => break,
                            }
                        }
                        face.send_burst(burst);
                    }
                }
            }
        });
        Client::from_link(mine)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ndnlab_fwd::{Daemon, FwdConfig};
    use ndnlab_wire::{Data, DigestSha256, Interest};

    use crate::client::{Client, Outcome};

    /// Producer and consumer on in-process faces of a real forwarder
    /// (prefix registration through its NFD management).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn register_and_fetch_through_in_process_forwarder() {
        let mut cfg = FwdConfig::default();
        cfg.faces.unix.enabled = false;
        cfg.forwarder.threads = 1;
        let daemon = Daemon::start(cfg).await.unwrap();
        let producer = Client::from_app_face(daemon.app_face("producer"));
        let consumer = Client::from_app_face(daemon.app_face("consumer"));
        let mut p = producer
            .register(&"/inproc".parse().unwrap())
            .await
            .unwrap();
        tokio::spawn(async move {
            while let Some(inc) = p.recv().await {
                let d = Data::builder(inc.interest.name().clone())
                    .content(&b"in-process"[..])
                    .sign(&DigestSha256)
                    .unwrap();
                p.client()
                    .put_data(d, inc.pit_token.as_ref())
                    .await
                    .unwrap();
            }
        });
        let i = Interest::builder("/inproc/x".parse().unwrap())
            .lifetime(Duration::from_secs(2))
            .build_view()
            .unwrap();
        match consumer.express(i).await.unwrap() {
            Outcome::Data(r) => assert_eq!(r.data.content_slice(), b"in-process"),
            o => panic!("{o:?}"),
        }
        // unregistered prefix: the forwarder answers NoRoute
        let i = Interest::builder("/elsewhere".parse().unwrap())
            .build_view()
            .unwrap();
        assert!(matches!(
            consumer.express(i).await.unwrap(),
            Outcome::Nack(_)
        ));
        producer
            .unregister(&"/inproc".parse().unwrap())
            .await
            .unwrap();
        daemon.shutdown().await;
    }
}
