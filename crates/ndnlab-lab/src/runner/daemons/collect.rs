//! What a daemon run reads back from its forwarders: their counters through
//! management, and their processes' CPU.

use std::collections::BTreeMap;

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};

use super::{Children, Fabric};

/// (Interests in, CS hits, CS misses) per node.
pub(super) fn counters(
    clients: &BTreeMap<&String, BlockingClient>,
) -> anyhow::Result<BTreeMap<String, (f64, f64, f64)>> {
    let mut out = BTreeMap::new();
    for (n, c) in clients {
        let read = |module: &str, what: &str, kind| -> anyhow::Result<_> {
            let d = c
                .dataset(module, what)
                .with_context(|| format!("{module}/{what} of forwarder {n}"))?;
            decode_records(kind, &d).map_err(anyhow::Error::msg)
        };
        let g = read("status", "general", DatasetKind::General)?;
        let cs = read("cs", "info", DatasetKind::Cs)?;
        let num = |r: Option<&ndnlab_proto::mgmt::dataset::Record>, k: &str| {
            r.and_then(|r| r.num(k)).unwrap_or(0) as f64
        };
        out.insert(
            (*n).clone(),
            (
                num(g.first(), "nInInterests"),
                num(cs.first(), "nHits"),
                num(cs.first(), "nMisses"),
            ),
        );
    }
    Ok(out)
}

/// CPU seconds of each forwarder process (`ip netns exec` execs the daemon, so
/// the pid is the daemon's under every fabric).
pub(super) fn cpu_of(children: &mut Children, fabric: &Fabric) -> BTreeMap<String, f64> {
    fabric
        .nodes
        .keys()
        .filter_map(|n| {
            let pid = children.get(&format!("fwd {n}"))?.id();
            ndnlab_testkit::cpu::process_seconds(pid).map(|s| (n.clone(), s))
        })
        .collect()
}
