//! `transport = "inproc"`: one process, the forwarder (1 shard: inline on the
//! app faces' callers), the consumer and the producer on dedicated threads; the
//! CPU split is per thread.

use std::time::Duration;

use ndnlab_app::load::{self as loadgen, Measured};

use super::FwdBench;

/// Runs `a` in this process.
pub(super) fn run(
    a: &FwdBench,
    warmup: Duration,
    duration: Duration,
) -> anyhow::Result<(Measured, Vec<(String, f64)>)> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("ndnlab-io")
        .enable_all()
        .build()?;
    let mut cfg = ndnlab_fwd::FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = a.threads;
    cfg.latency.sample = a.latency_sample;
    cfg.forwarder.max_packet_size = ndnlab_fwd::config::max_packet_size_for(a.payload);
    let (payload, window, pool) = (a.payload, a.window(), a.pool());
    rt.block_on(async move {
        let d = ndnlab_fwd::Daemon::start(cfg).await?;
        let prod = d.app_face("bench-producer");
        let prefix = ndnlab_wire::Name::from_uri(loadgen::INPROC_PREFIX)?;
        d.register_route(&prefix, prod.id(), 0).await;
        let cons = d.app_face("bench-consumer");
        let (m, cpu) =
            loadgen::run_inproc(prod, cons, payload, window, pool, warmup, duration).await;
        d.shutdown().await;
        // Threads that used less than 0.1% of a core are left out.
        let cpu = cpu
            .into_iter()
            .filter(|(_, c)| *c > 0.001 * m.seconds)
            .collect();
        Ok((m, cpu))
    })
}
