//! The in-process runner on small topologies: emulated link delay and loss show
//! in what the consumers measure, counted consumers report download and
//! distribution times, and routes carry Interests across a line. Bounds on
//! what the emulator guarantees (delay is a floor) and on what the experiment
//! fixes (a window's exchanges, each Interest once per forwarder), with ceilings
//! wide enough for a loaded machine; never on speed.

use std::path::PathBuf;

use ndnlab_lab::campaign::{Campaign, Options};
use ndnlab_lab::experiment;
use ndnlab_lab::runner::{by_name, Metrics, RunPlan};

fn out(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-lab-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_one(tag: &str, text: &str) -> Metrics {
    let (_, exp) = experiment::parse(text, "test.toml").unwrap();
    let plan = RunPlan::new(0, 1, exp).unwrap();
    let dir = out(tag);
    let m = by_name("inproc").unwrap().run(&plan, &dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    m
}

const LINE: &str = r#"
[experiment]
duration_s = 0.5
warmup_s = 0.2
[topology]
kind = "line"
n = 3
[apps.c]
kind = "consumer"
nodes = ["first"]
window = 4
lifetime_ms = 300
[apps.p]
kind = "producer"
nodes = ["last"]
payload = 500
"#;

#[test]
fn data_crosses_a_line_of_forwarders() {
    let m = run_one("line", LINE);
    assert!(m["data"] > 0.0, "{m:?}");
    assert_eq!(m["satisfaction"], 1.0, "{m:?}");
    // r0 gets each of the consumer's Interests once: within 10% of its Data
    // rate, plus the window's 4 in flight at each edge of the 0.5 s window
    let slack = |rate: f64| 0.1 * rate + 2.0 * 4.0 / 0.5;
    let fwd = |node: &str| m[&format!("fwd_interests_per_sec.{node}")];
    let (dps, r0) = (m["data_per_sec"], fwd("r0"));
    assert!(
        (r0 - dps).abs() <= slack(dps),
        "r0 {r0}/s, Data {dps}/s: {m:?}"
    );
    let rates = ["r0", "r1", "r2"].map(fwd);
    ndnlab_testkit::line_forwards_what_caches_miss(&rates, m["cs_hit_ratio"], slack(r0))
        .unwrap_or_else(|e| panic!("{e}: {m:?}"));
}

#[test]
fn link_delay_is_a_floor_on_delivery_time() {
    // Two links of 20 ms each way: at least 80 ms round trip.
    let m = run_one("delay", &format!("{LINE}\n[link]\ndelay_ms = 20.0\n"));
    assert!(m["data"] > 0.0, "{m:?}");
    assert!(m["delay_p50_us"] >= 80_000.0, "{m:?}");
    // a ceiling that holds on a loaded machine and fails a unit error
    assert!(m["delay_p50_us"] <= 5.0 * 80_000.0 + 50_000.0, "{m:?}");
}

#[test]
fn a_lossy_link_loses_everything_it_should() {
    let m = run_one("loss", &format!("{LINE}\n[link]\nloss_pct = 100.0\n"));
    assert_eq!(m["data"], 0.0, "{m:?}");
    assert!(m["timeouts"] > 0.0, "{m:?}");
    assert_eq!(m["satisfaction"], 0.0);
}

#[test]
fn counted_consumers_report_download_and_distribution_times() {
    let text = LINE.replace("window = 4", "window = 4\ncount = 200")
        + "\n[apps.d]\nkind = \"consumer\"\nnodes = [\"r1\"]\ncount = 100\nprefix = \"/lab\"\n";
    let m = run_one("count", &text);
    let a = m["download_time_s.c@r0"];
    let b = m["download_time_s.d@r1"];
    assert!(a > 0.0 && b > 0.0, "{m:?}");
    assert_eq!(m["distribution_time_s"], a.max(b));
    assert_eq!(m["interests"], 300.0, "{m:?}");
}

#[test]
fn a_campaign_is_reproducible_in_its_matrix_and_seeds() {
    let text = format!(
        "{LINE}\n[factors]\n\"apps.c.window\" = [1, 8]\n\"link.delay_ms\" = [0.0, 5.0]\n[design]\nkind = \"2k\"\n"
    );
    let dir = out("campaign");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("e.toml");
    std::fs::write(&file, &text).unwrap();
    let opts = Options {
        out: dir.join("out"),
        ..Default::default()
    };
    let a = Campaign::load(Some(&file), &opts).unwrap();
    let b = Campaign::load(Some(&file), &opts).unwrap();
    assert_eq!(a.runs, b.runs);
    assert_eq!(a.runs.len(), 4);
    let s = a.run(&opts, &mut |_| {}).unwrap();
    assert_eq!(s.failed, 0);
    assert!(s.report.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A put at the end of a line of three, and whatever apps are appended.
const PUT_LINE: &str = r#"
[experiment]
duration_s = 1.0
warmup_s = 0.1
[topology]
kind = "line"
n = 3
[apps.put]
kind = "put"
nodes = ["last"]
prefix = "/obj"
size = 300000
payload = 4000
"#;

#[test]
fn get_fetches_a_put_object_intact_over_a_lossy_line() {
    // 2% loss per link each way: the pipeline retransmits, and the SHA-256 of the
    // object it put together must match what the put published, else the run fails.
    for cc in ["fixed", "aimd", "cubic"] {
        let text = format!(
            "{PUT_LINE}[apps.get]\nkind = \"get\"\nnodes = [\"first\"]\nprefix = \"/obj\"\ncc = \"{cc}\"\nwindow = 16\n[link]\nloss_pct = 2.0\n"
        );
        let m = run_one(&format!("get-{cc}"), &text);
        assert_eq!(m["data"], 75.0, "{cc}: 75 segments of 4000 bytes: {m:?}");
        assert!(m["download_time_s"] > 0.0, "{cc}: {m:?}");
        assert!(
            m["retransmissions"] > 0.0,
            "{cc}: loss shows as retransmissions: {m:?}"
        );
    }
}

#[test]
fn a_get_without_its_put_fails_the_run_clearly() {
    let text =
        format!("{PUT_LINE}[apps.get]\nkind = \"get\"\nnodes = [\"first\"]\nprefix = \"/other\"\n");
    let (_, exp) = experiment::parse(&text, "test.toml").unwrap();
    let plan = RunPlan::new(0, 1, exp).unwrap();
    let dir = out("get-none");
    let e = by_name("inproc").unwrap().run(&plan, &dir).unwrap_err();
    assert!(
        format!("{e:#}").contains("no put publishes '/other'"),
        "{e:#}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn repositories_on_every_node_serve_consumers_that_ask_from_them() {
    // Seed 003's shape: a repository on each router with its own content, a
    // Poisson requester on each router asking for all of them.
    let text = r#"
[experiment]
duration_s = 0.6
warmup_s = 0.2
[topology]
kind = "line"
n = 4
[forwarder]
cs_capacity = 100
[apps.repo]
kind = "repository"
nodes = ["all"]
prefix = "/repo/{node}"
catalogue = 1
payload = 8000
[apps.req]
kind = "consumer"
nodes = ["all"]
from = "repo"
pattern = "poisson"
rate = 200.0
"#;
    let m = run_one("repo", text);
    assert!(m["data"] > 50.0, "{m:?}");
    assert_eq!(m["satisfaction"], 1.0, "{m:?}");
    // four contents, cached along the line: most requests are answered by a cache
    assert!(m["cs_hit_ratio"] > 0.5, "{m:?}");
}

#[test]
fn ping_bursts_and_adaptive_windows_are_answered() {
    let text = format!(
        "{LINE}\n[apps.ping]\nkind = \"ping\"\nnodes = [\"first\"]\nprefix = \"/lab\"\nrate = 50.0\n\
         [apps.b]\nkind = \"consumer\"\nnodes = [\"r1\"]\npattern = \"burst\"\nburst = 10\nrate = 500.0\n\
         [apps.a]\nkind = \"consumer\"\nnodes = [\"first\"]\ncc = \"aimd\"\nwindow = 64\n"
    )
    .replace("payload = 500", "payload = 500\npresign = true");
    let m = run_one("kinds", &text);
    assert_eq!(m["satisfaction"], 1.0, "{m:?}");
    // 0.5 s at 50 pings/s
    let pings = m["data_per_sec.ping@r0"] * 0.5;
    assert!((20.0..=30.0).contains(&pings), "{pings} pings: {m:?}");
    // bursts of 10 at 500/s on average: about 250 Interests in 0.5 s
    let bursts = m["data_per_sec.b@r1"] * 0.5;
    assert!((200.0..=300.0).contains(&bursts), "{bursts}: {m:?}");
    assert!(m["data_per_sec.a@r0"] > 0.0, "{m:?}");
}

/// `forwarder.latency_sample`: every node's histograms become metrics, and the raw
/// samples and histograms land in the run's `samples/latency/` dir.
#[test]
fn latency_instrumentation_is_collected_per_node() {
    let text = format!("{LINE}\n[forwarder]\nlatency_sample = 4\n");
    let (_, exp) = experiment::parse(&text, "test.toml").unwrap();
    let plan = RunPlan::new(0, 1, exp).unwrap();
    let dir = out("latency");
    let m = by_name("inproc").unwrap().run(&plan, &dir).unwrap();
    for node in ["r0", "r1", "r2"] {
        assert!(m[&format!("lat_samples.{node}")] > 0.0, "{node}: {m:?}");
        let total = m[&format!("lat_total_p50_ns.{node}")];
        let fwd = m[&format!("lat_fwd_p50_ns.{node}")];
        assert!(total > 0.0 && fwd > 0.0 && fwd <= m[&format!("lat_total_p99_ns.{node}")]);
        let csv =
            std::fs::read_to_string(dir.join(format!("samples/latency/0/{node}.csv"))).unwrap();
        assert!(csv.starts_with(
            "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size\n"
        ));
        assert!(csv.lines().count() > 1, "{node}: {csv}");
    }
    let h = std::fs::read_to_string(dir.join("samples/latency/0/histograms.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&h).unwrap();
    assert_eq!(j["r1"]["sample_every"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One forwarder, a consumer and an ECDSA producer signing on `threads`
/// threads, the CS off so that every Interest is signed for.
fn signing(threads: usize) -> String {
    format!(
        r#"
[experiment]
duration_s = 1.0
warmup_s = 0.3
[forwarder]
cs_capacity = 0
[apps.c]
kind = "consumer"
window = 4
catalogue = 1000000
[apps.p]
kind = "producer"
nodes = ["last"]
payload = 1000
signature = "ecdsa-p256"
threads = {threads}
"#
    )
}

/// The metrics of the papers' producers and CPU per node and per app:
/// bounded above and below, and cores needed = signing time x rate.
fn check_producer_metrics(m: &Metrics, threads: f64) {
    assert!(m["data"] > 100.0, "{m:?}");
    assert_eq!(m["satisfaction"], 1.0, "{m:?}");
    // CPU of the forwarder and of each app, each at most its threads' worth
    let cpu = |k: &str| m[&format!("cpu_cores.{k}")];
    assert!(cpu("r0") > 0.0 && cpu("r0") <= 1.05, "{m:?}");
    assert!(cpu("c@r0") > 0.0 && cpu("c@r0") <= 1.05, "{m:?}");
    assert!(cpu("p@r0") > 0.0 && cpu("p@r0") <= 1.05 * threads, "{m:?}");
    // the parts add up to at most the whole process
    assert!(
        cpu("r0") + cpu("c@r0") + cpu("p@r0") <= m["cpu_cores"] * 1.02,
        "{m:?}"
    );
    // an ECDSA P-256 signature takes microseconds to milliseconds
    let sign = |k: &str| m[&format!("sign_{k}.p@r0")];
    assert!(sign("mean_us") > 2.0 && sign("mean_us") < 20_000.0, "{m:?}");
    assert!(
        sign("p50_us") > 2.0 && sign("p50_us") <= sign("p99_us"),
        "{m:?}"
    );
    assert!(sign("p99_us") < 100_000.0, "{m:?}");
    // the signing threads are busy at most all the time
    assert!(
        sign("cores") > 0.0 && sign("cores") <= threads * 1.05,
        "{m:?}"
    );
    // every Data was signed for the Interest it answers, in the window
    let needed = sign("mean_us") * m["data_per_sec"] / 1e6;
    let rel = (sign("cores_needed") - needed).abs() / needed;
    assert!(
        rel < 0.01,
        "cores needed {} vs {needed}: {m:?}",
        sign("cores_needed")
    );
    // the producer's time from Interest in to Data out covers the signing
    let serve = |k: &str| m[&format!("serve_{k}_us.p@r0")];
    assert!(serve("mean") >= sign("mean_us") * 0.9, "{m:?}");
    assert!(serve("p50") > 0.0 && serve("p50") <= serve("p99"), "{m:?}");
    // and is part of the consumer's delivery time (histograms of 2 and 3 digits)
    assert!(serve("p50") <= m["delay_p50_us"] * 1.02, "{m:?}");
}

#[test]
fn producers_report_signing_serving_and_cpu_per_node_and_app() {
    let m = run_one("sign1", &signing(1));
    check_producer_metrics(&m, 1.0);
}

#[test]
fn a_producer_signs_on_a_pool_of_threads() {
    let m = run_one("sign2", &signing(2));
    check_producer_metrics(&m, 2.0);
}
