//! `ndnlab get`: fetch a versioned, segmented object (ndncatchunks):
//! discover the version (RDR metadata), fetch with a fixed, AIMD or CUBIC
//! pipeline, write in order to a file or stdout.
//!
//! A file is written to a temporary sibling and renamed only once every
//! segment arrived, so a failed or interrupted fetch never leaves a partial
//! file behind. The version is pinned at discovery: a producer restarting
//! with the same version is resumed (Nacks and timeouts are retried with
//! RTO back-off); segments of another version are never mixed in.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_wire::{Interest, Name};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use crate::client::{Client, Outcome, Waiter};
use crate::pipeline::{DataVerdict, FetchOptions, Fetcher, RttOptions, WindowKind, WindowOptions};
use crate::tools::perf::client::nack_kind;
use crate::tools::verify::DataVerifier;
use crate::tools::{parse_name, print_json, rdr, ConnectArgs};

/// Options of `ndnlab get` (named after ndncatchunks').
#[derive(Debug, Clone, clap::Args)]
pub struct GetArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Name to fetch: a prefix (version discovered) or a versioned name.
    #[arg(value_parser = parse_name)]
    pub name: Name,
    /// Output file (`-` or absent: stdout).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Pipeline: fixed, aimd or cubic.
    #[arg(short = 'p', long, default_value = "cubic")]
    pub pipeline: WindowKind,
    /// Window of the fixed pipeline.
    #[arg(short = 'w', long = "pipeline-size", default_value_t = 1)]
    pub pipeline_size: usize,
    /// Initial congestion window.
    #[arg(long, default_value_t = 2.0)]
    pub init_cwnd: f64,
    /// Initial slow-start threshold (default: unlimited).
    #[arg(long)]
    pub init_ssthresh: Option<f64>,
    /// AIMD additive increase step.
    #[arg(long, default_value_t = 1.0)]
    pub aimd_step: f64,
    /// AIMD multiplicative decrease factor.
    #[arg(long, default_value_t = 0.5)]
    pub aimd_beta: f64,
    /// CUBIC multiplicative decrease factor.
    #[arg(long, default_value_t = 0.7)]
    pub cubic_beta: f64,
    /// CUBIC fast convergence.
    #[arg(long)]
    pub fast_conv: bool,
    /// Reset the window to --init-cwnd on a decrease.
    #[arg(long)]
    pub reset_cwnd_to_init: bool,
    /// Ignore congestion marks.
    #[arg(long)]
    pub ignore_marks: bool,
    /// React to every loss, not once per RTT.
    #[arg(long)]
    pub no_cwa: bool,
    /// Minimum RTO in milliseconds.
    #[arg(long, default_value_t = 200, value_name = "MS")]
    pub min_rto: u64,
    /// Maximum RTO in milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    pub max_rto: u64,
    /// RTO = SRTT + K * RTTVAR.
    #[arg(long, default_value_t = 8.0)]
    pub rto_k: f64,
    /// Retries per segment after a timeout or Nack (-1: no limit).
    #[arg(short = 'r', long, default_value_t = 15, allow_negative_numbers = true)]
    pub retries: i64,
    /// InterestLifetime in milliseconds.
    #[arg(short = 'l', long, default_value_t = 4000, value_name = "MS")]
    pub lifetime: u64,
    /// Set MustBeFresh on the segment Interests.
    #[arg(short = 'f', long)]
    pub fresh: bool,
    /// Verify every segment's signature (DigestSha256, or the key from the
    /// certificate named by KeyLocator, fetched once); a segment that fails
    /// stops the fetch with an error and no output file.
    #[arg(long)]
    pub verify: bool,
    /// With --verify: accept only Data signed by this certificate's key (a
    /// certificate file, binary or base64); implies --verify.
    #[arg(long, value_name = "CERTFILE")]
    pub trust_anchor: Option<PathBuf>,
    /// No progress bar, no summary.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Summary as JSON; `rtt_hist_us` holds each segment's delivery time
    /// (its last Interest to its Data) as `[µs, count]` buckets.
    #[arg(long)]
    pub json: bool,
}

/// What a fetch did.
#[derive(Debug, Clone, Serialize)]
pub struct GetSummary {
    pub name: String,
    pub segments: u64,
    pub bytes: u64,
    pub time_s: f64,
    pub goodput_mbps: f64,
    pub interests: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub nacks: u64,
    pub congestion_marks: u64,
    pub window_decreases: u64,
    pub rtt_min_ms: f64,
    pub rtt_avg_ms: f64,
    pub rtt_max_ms: f64,
    /// Each segment's delivery time, from its last Interest to its Data:
    /// `[µs, count]` buckets ([`crate::stats::buckets`]).
    pub rtt_hist_us: Vec<[u64; 2]>,
    pub verified: bool,
    pub sha256: String,
}

/// In-order writer with a temp file for files.
struct Sink {
    out: Box<dyn Write + Send>,
    temp: Option<(PathBuf, PathBuf)>,
    next: u64,
    pending: BTreeMap<u64, Bytes>,
    bytes: u64,
    hash: Sha256,
}

impl Sink {
    fn open(output: Option<&Path>) -> anyhow::Result<Sink> {
        let (out, temp): (Box<dyn Write + Send>, _) = match output {
            // A device, FIFO or socket (`-o /dev/null`) is written in place: renaming
            // a temp file over it would replace the device with a regular file.
            Some(p) if p.as_os_str() != "-" && !is_special_file(p) => {
                let dir = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let file = p
                    .file_name()
                    .ok_or_else(|| anyhow::anyhow!("bad output path {}", p.display()))?;
                let tmp = dir.join(format!(
                    ".{}.ndnlab-part-{}",
                    file.to_string_lossy(),
                    std::process::id()
                ));
                let f = std::fs::File::create(&tmp)
                    .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", tmp.display()))?;
                (
                    Box::new(std::io::BufWriter::with_capacity(1 << 20, f)),
                    Some((tmp, p.to_path_buf())),
                )
            }
            Some(p) if p.as_os_str() != "-" => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", p.display()))?;
                (
                    Box::new(std::io::BufWriter::with_capacity(1 << 20, f)),
                    None,
                )
            }
            _ => (
                Box::new(std::io::BufWriter::with_capacity(
                    1 << 20,
                    std::io::stdout(),
                )),
                None,
            ),
        };
        Ok(Sink {
            out,
            temp,
            next: 0,
            pending: BTreeMap::new(),
            bytes: 0,
            hash: Sha256::new(),
        })
    }

    fn push(&mut self, seg: u64, content: Bytes) -> std::io::Result<()> {
        self.pending.insert(seg, content);
        while let Some(c) = self.pending.remove(&self.next) {
            self.out.write_all(&c)?;
            self.hash.update(&c);
            self.bytes += c.len() as u64;
            self.next += 1;
        }
        Ok(())
    }

    /// Flushes, syncs and renames into place.
    fn commit(mut self) -> anyhow::Result<[u8; 32]> {
        anyhow::ensure!(self.pending.is_empty(), "internal: segments left unwritten");
        self.out.flush()?;
        let hash = std::mem::take(&mut self.hash).finalize().into();
        if let Some((tmp, dst)) = self.temp.take() {
            drop(std::mem::replace(&mut self.out, Box::new(std::io::sink())));
            std::fs::File::open(&tmp)?.sync_all()?;
            std::fs::rename(&tmp, &dst).map_err(|e| {
                anyhow::anyhow!("cannot rename {} to {}: {e}", tmp.display(), dst.display())
            })?;
        }
        Ok(hash)
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.temp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Whether `path` exists and is neither a regular file nor a directory.
fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

impl GetArgs {
    fn fetch_options(&self) -> FetchOptions {
        FetchOptions {
            window: WindowOptions {
                kind: self.pipeline,
                fixed_size: self.pipeline_size.max(1),
                init_cwnd: self.init_cwnd,
                init_ssthresh: self.init_ssthresh.unwrap_or(f64::MAX),
                aimd_step: self.aimd_step,
                aimd_beta: self.aimd_beta,
                cubic_beta: self.cubic_beta,
                fast_conv: self.fast_conv,
                reset_cwnd_to_init: self.reset_cwnd_to_init,
                ..Default::default()
            },
            rtt: RttOptions {
                k: self.rto_k,
                min_rto: Duration::from_millis(self.min_rto),
                max_rto: Duration::from_millis(self.max_rto.max(self.min_rto)),
                ..Default::default()
            },
            max_retries: u32::try_from(self.retries).ok(),
            ignore_marks: self.ignore_marks,
            disable_cwa: self.no_cwa,
        }
    }
}

/// Fetches; prints the summary unless quiet.
pub async fn run(args: GetArgs) -> anyhow::Result<GetSummary> {
    let client = args.connect.connect().await?;
    let versioned = if args.name.last().and_then(|c| c.as_version()).is_some() {
        args.name.clone()
    } else {
        rdr::discover(&client, &args.name, args.lifetime, 3).await?
    };
    let summary = fetch(&client, &args, &versioned).await?;
    let to_stdout = args.output.as_ref().is_none_or(|p| p.as_os_str() == "-");
    if args.json {
        let mut v = serde_json::to_value(&summary)?;
        v["type"] = "summary".into();
        if to_stdout {
            eprintln!("{v}");
        } else {
            print_json(&v);
        }
    } else if !args.quiet {
        let text = format!(
            "All segments have been received.\nName: {}\nTime elapsed: {:.3} s\nSegments received: {}\nTransferred size: {:.3} kB\nGoodput: {:.3} Mbit/s\nRetransmitted segments: {} ({} timeouts, {} Nacks)\nCongestion marks: {} (window decreases: {})\nRTT min/avg/max = {:.3}/{:.3}/{:.3} ms\nSignatures verified: {}\nSHA-256: {}",
            summary.name, summary.time_s, summary.segments, summary.bytes as f64 / 1000.0, summary.goodput_mbps,
            summary.retransmissions, summary.timeouts, summary.nacks, summary.congestion_marks, summary.window_decreases,
            summary.rtt_min_ms, summary.rtt_avg_ms, summary.rtt_max_ms,
            if summary.verified { "yes" } else { "no" }, summary.sha256
        );
        if to_stdout {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
    }
    Ok(summary)
}

/// The pipeline loop for one versioned object.
pub async fn fetch(
    client: &Client,
    args: &GetArgs,
    versioned: &Name,
) -> anyhow::Result<GetSummary> {
    let mut sink = Sink::open(args.output.as_deref())?;
    let verify = args.verify || args.trust_anchor.is_some();
    let anchor = args
        .trust_anchor
        .as_deref()
        .map(DataVerifier::load_anchor)
        .transpose()?;
    let mut verifier = verify.then(|| DataVerifier::new(anchor));
    let progress = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} segments {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, Outcome)>();
    let mut fetcher = Fetcher::new(args.fetch_options(), 0);
    let mut tokens: HashMap<u64, u64> = HashMap::new();
    // each segment's last Interest, and the delivery times
    let mut sent_at: HashMap<u64, Duration> = HashMap::new();
    let mut delivery = crate::stats::Latency::default();
    let base = Instant::now();
    let mut segments = 0u64;
    let mut final_seen: Option<u64> = None;
    let result: anyhow::Result<()> = async {
        loop {
            if fetcher.is_done() {
                return Ok(());
            }
            anyhow::ensure!(!client.is_closed(), "connection to the forwarder closed");
            let now = base.elapsed();
            while let Some(req) = fetcher.poll_request(now) {
                let interest = Interest::builder(versioned.append_segment(req.seg))
                    .must_be_fresh(args.fresh)
                    .nonce(rand::random())
                    .lifetime_ms(args.lifetime)
                    .build_view()?;
                if let Some(old) = tokens.remove(&req.seg) {
                    client.cancel(old);
                }
                let t = client
                    .express_with(interest, Waiter::Sink { tag: req.seg, tx: tx.clone() })
                    .await?;
                tokens.insert(req.seg, t);
                sent_at.insert(req.seg, now);
            }
            let wake = fetcher.poll_timeout().map_or(base + Duration::from_secs(1), |t| base + t);
            tokio::select! {
                m = rx.recv() => {
                    let Some((seg, outcome)) = m else { anyhow::bail!("client closed") };
                    let now = base.elapsed();
                    match outcome {
                        Outcome::Data(r) => {
                            tokens.remove(&seg);
                            let d = r.data;
                            if let Some(last) = d.final_block_id().and_then(|c| c.as_segment()) {
                                match final_seen {
                                    None => {
                                        final_seen = Some(last);
                                        fetcher.set_final(last);
                                        if let Some(pb) = &progress {
                                            pb.set_length(last + 1);
                                        }
                                    }
                                    Some(f) if f != last => anyhow::bail!(
                                        "inconsistent FinalBlockId: seg={f} then seg={last} (producer changed the object?)"
                                    ),
                                    _ => {}
                                }
                            }
                            if let DataVerdict::New { .. } = fetcher.on_data(now, seg, r.congestion_mark > 0) {
                                if let Some(v) = verifier.as_mut() {
                                    v.verify(client, &d, args.lifetime).await?;
                                }
                                if final_seen.is_some_and(|f| seg > f) {
                                    continue;
                                }
                                segments += 1;
                                if let Some(t) = sent_at.remove(&seg) {
                                    delivery.record(now.saturating_sub(t));
                                }
                                sink.push(seg, d.content())?;
                                if let Some(pb) = &progress {
                                    pb.set_position(segments);
                                }
                            }
                        }
                        Outcome::Nack(reason) => {
                            tokens.remove(&seg);
                            fetcher.on_nack(now, seg, nack_kind(reason))?;
                        }
                        Outcome::Timeout => {}
                    }
                }
                _ = tokio::time::sleep_until(wake.into()) => {
                    fetcher.handle_timeout(base.elapsed())?;
                }
            }
        }
    }
    .await;
    for (_, t) in tokens {
        client.cancel(t);
    }
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }
    result.map_err(|e| e.context(format!("fetching {versioned} (no output file written)")))?;
    let elapsed = base.elapsed();
    let bytes = sink.bytes;
    let sha = sink.commit()?;
    let st = fetcher.stats();
    let ms = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
    Ok(GetSummary {
        name: versioned.to_string(),
        segments,
        bytes,
        time_s: elapsed.as_secs_f64(),
        goodput_mbps: crate::stats::mbps(bytes, elapsed),
        interests: st.sent,
        retransmissions: st.retransmissions,
        timeouts: st.timeouts,
        nacks: st.nacks,
        congestion_marks: st.marks,
        window_decreases: st.window_decreases,
        rtt_min_ms: ms(fetcher.rtt().min()),
        rtt_avg_ms: ms(fetcher.rtt().mean()),
        rtt_max_ms: ms(fetcher.rtt().max()),
        rtt_hist_us: delivery.buckets(),
        verified: verify,
        sha256: hex::encode(sha),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_reorders_and_renames_atomically() {
        let dir = std::env::temp_dir().join(format!("ndnlab-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dst = dir.join("out.bin");
        let mut s = Sink::open(Some(&dst)).unwrap();
        s.push(1, Bytes::from_static(b"world")).unwrap();
        assert!(!dst.exists());
        s.push(0, Bytes::from_static(b"hello ")).unwrap();
        let h = s.commit().unwrap();
        assert_eq!(std::fs::read(&dst).unwrap(), b"hello world");
        assert_eq!(h, <[u8; 32]>::from(Sha256::digest(b"hello world")));
        // a dropped (failed) sink leaves nothing behind
        let dst2 = dir.join("never.bin");
        let mut s = Sink::open(Some(&dst2)).unwrap();
        s.push(0, Bytes::from_static(b"partial")).unwrap();
        drop(s);
        assert!(!dst2.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sink_writes_into_a_fifo_without_replacing_it() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("ndnlab-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut s = Sink::open(Some(&fifo)).unwrap();
        s.push(0, Bytes::from_static(b"through the pipe")).unwrap();
        s.commit().unwrap();
        // checked before joining: a replaced FIFO would leave the reader blocked
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temp file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
