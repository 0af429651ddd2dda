//! The applications of the `inproc` runner: consumers and producers on the client
//! library (`ndnlab_app::client::Client`) over in-memory links to their forwarder.
//!
//! A consumer requests names `<prefix>/<pad...>/c<i>` (padded to the declared
//! number of name components), `i` drawn uniformly or by Zipf popularity over the
//! catalogue, either keeping a window of Interests in flight or at a Poisson or
//! constant rate. It records, for the Interests sent inside the measurement
//! window, what came back and how long it took. A producer answers every Interest
//! under its prefix with Data of the declared payload, freshness and signature.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use hdrhistogram::Histogram;
use ndnlab_app::client::{Client, Outcome};
use ndnlab_app::tools::signing::{make_identity, SignKind};
use ndnlab_wire::{Data, Interest, Name};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};
use tokio::time::Instant;

use crate::experiment::AppSpec;

/// Most delivery-time samples a consumer keeps as raw samples per run.
pub const MAX_SAMPLES: usize = 50_000;

/// What a consumer saw inside the measurement window.
#[derive(Debug)]
pub struct ConsumerStats {
    pub interests: u64,
    pub data: u64,
    pub nacks: u64,
    pub timeouts: u64,
    /// Content bytes of the Data received.
    pub bytes: u64,
    /// Delivery times in microseconds.
    pub delay_us: Histogram<u64>,
    /// (seconds since the window opened, delivery time in µs), up to
    /// [`MAX_SAMPLES`].
    pub samples: Vec<(f64, u64)>,
}

impl Default for ConsumerStats {
    fn default() -> Self {
        ConsumerStats {
            interests: 0,
            data: 0,
            nacks: 0,
            timeouts: 0,
            bytes: 0,
            delay_us: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
            samples: Vec::new(),
        }
    }
}

/// The measurement window on the runtime's clock.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub open: Instant,
    pub close: Instant,
}

impl Window {
    fn contains(&self, t: Instant) -> bool {
        t >= self.open && t < self.close
    }
}

/// Picks content indices.
struct Names {
    prefix: Name,
    pad: usize,
    zipf: Option<Zipf<f64>>,
    catalogue: u64,
}

impl Names {
    fn new(spec: &AppSpec) -> Names {
        let prefix = Name::from_uri(&spec.prefix).expect("validated prefix");
        let pad = spec.name_components.saturating_sub(prefix.len() + 1);
        let zipf = (spec.zipf > 0.0)
            .then(|| Zipf::new(spec.catalogue, spec.zipf).expect("validated catalogue and s"));
        Names {
            prefix,
            pad,
            zipf,
            catalogue: spec.catalogue,
        }
    }

    fn pick(&self, rng: &mut StdRng) -> Name {
        let i = match &self.zipf {
            Some(z) => z.sample(rng) as u64 - 1,
            None => rng.gen_range(0..self.catalogue),
        };
        let mut b = Name::builder();
        b.extend_name(&self.prefix);
        for k in 0..self.pad {
            b.push_generic(format!("p{k}").as_bytes());
        }
        b.push_generic(format!("c{i}").as_bytes());
        b.build()
    }
}

/// Runs a consumer until the window closes (plus one lifetime for the answers).
pub async fn consume(
    client: Client,
    spec: AppSpec,
    seed: u64,
    window: Window,
    stats: Arc<Mutex<ConsumerStats>>,
) {
    let names = Arc::new(Names::new(&spec));
    let lifetime = Duration::from_millis(spec.lifetime_ms);
    let one = {
        let (client, names, stats) = (client.clone(), names.clone(), stats.clone());
        let fresh = spec.must_be_fresh;
        move |name: Name| {
            let (client, stats) = (client.clone(), stats.clone());
            let _ = &names;
            async move {
                let sent = Instant::now();
                let mut b = Interest::builder(name).lifetime(lifetime);
                if fresh {
                    b = b.must_be_fresh(true);
                }
                let Ok(i) = b.build_view() else { return };
                let outcome = client.express(i).await;
                if !window.contains(sent) {
                    return;
                }
                let took = sent.elapsed();
                let mut s = stats.lock().unwrap_or_else(|e| e.into_inner());
                s.interests += 1;
                match outcome {
                    Ok(Outcome::Data(r)) => {
                        s.data += 1;
                        s.bytes += r.data.content_slice().len() as u64;
                        let us = (took.as_micros() as u64).max(1);
                        let _ = s.delay_us.record(us);
                        if s.samples.len() < MAX_SAMPLES {
                            let t = (sent - window.open).as_secs_f64();
                            s.samples.push((t, us));
                        }
                    }
                    Ok(Outcome::Nack(_)) => s.nacks += 1,
                    _ => s.timeouts += 1,
                }
            }
        }
    };
    match spec.pattern.as_str() {
        "window" => {
            let mut tasks = Vec::new();
            for w in 0..spec.window {
                let (names, one) = (names.clone(), one.clone());
                let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(1_000_003) + w as u64);
                tasks.push(tokio::spawn(async move {
                    while Instant::now() < window.close {
                        one(names.pick(&mut rng)).await;
                    }
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        }
        _ => {
            let mut rng = StdRng::seed_from_u64(seed);
            let gap = 1.0 / spec.rate;
            let exp = Exp::new(spec.rate).expect("validated rate");
            let mut next = Instant::now();
            let mut tasks = tokio::task::JoinSet::new();
            while next < window.close {
                tokio::time::sleep_until(next).await;
                tasks.spawn(one(names.pick(&mut rng)));
                let d = if spec.pattern == "poisson" {
                    exp.sample(&mut rng)
                } else {
                    gap
                };
                next += Duration::from_secs_f64(d);
                while tasks.try_join_next().is_some() {}
            }
            while tasks.join_next().await.is_some() {}
        }
    }
}

/// Answers every Interest a registered producer receives until its client
/// closes; returns how many Data it sent.
pub async fn serve(
    mut p: ndnlab_app::client::Producer,
    spec: AppSpec,
    node: String,
) -> anyhow::Result<u64> {
    let kind: SignKind = spec.signature.parse().map_err(anyhow::Error::msg)?;
    let identity = make_identity(kind, &Name::from_uri(&format!("/lab/{node}"))?)?;
    let content = Bytes::from(
        (0..spec.payload)
            .map(|i| (i % 251) as u8)
            .collect::<Vec<_>>(),
    );
    let mut served = 0;
    while let Some(inc) = p.recv().await {
        let b = Data::builder(inc.interest.name().clone())
            .content(content.clone())
            .freshness_ms(spec.freshness_ms);
        let Ok(d) = b.sign(&*identity.signer) else {
            continue;
        };
        if p.client()
            .put_data(d, inc.pit_token.as_ref())
            .await
            .is_err()
        {
            break;
        }
        served += 1;
    }
    Ok(served)
}
