//! `ndnlab put`: publish a file or stdin as versioned, segmented Data
//! (`/<prefix>/v=<version>/seg=<n>`, FinalBlockId on every segment), answer
//! RDR version discovery, like ndn-tools' ndnputchunks.
//!
//! All segments are signed up front on `--threads` threads of a signing
//! pool, then served from memory. The default version of a regular file is its modification time in
//! milliseconds, so a restarted producer publishes the same version and
//! consumers can resume; stdin gets the current time.

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_security::{SigningPool, MAX_THREADS};
use ndnlab_wire::{Component, Data, Name, Signer};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::client::IncomingInterest;
use crate::tools::rdr;
use crate::tools::serve::{interrupted, Reply, Server};
use crate::tools::signing::{make_identity, SignKind};
use crate::tools::{parse_name, print_json, unix_ms, ConnectArgs};

/// Options of `ndnlab put`.
#[derive(Debug, Clone, clap::Args)]
pub struct PutArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Name prefix to publish under.
    #[arg(value_parser = parse_name)]
    pub prefix: Name,
    /// File to publish (`-` or absent: stdin).
    pub file: Option<PathBuf>,
    /// Content bytes per segment.
    #[arg(short = 's', long, default_value_t = 8000)]
    pub segment_size: usize,
    /// FreshnessPeriod of the segments, in milliseconds.
    #[arg(short = 'x', long, default_value_t = 10_000, value_name = "MS")]
    pub freshness: u64,
    /// Signature of the segments.
    #[arg(long, default_value = "digest")]
    pub sign: SignKind,
    /// Version number (default: file mtime in ms, or now for stdin).
    #[arg(long = "data-version", value_name = "N")]
    pub data_version: Option<u64>,
    /// Threads signing the segments.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print nothing but errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// A signed, segmented object in memory.
pub struct Published {
    pub versioned: Name,
    pub segments: Vec<Bytes>,
    pub bytes: u64,
    pub sha256: [u8; 32],
}

/// Segments and signs `content` (at least one segment, even if empty) on
/// `threads` threads of a signing pool.
pub fn segment(
    prefix: &Name,
    version: u64,
    content: &Bytes,
    segment_size: usize,
    freshness: Duration,
    signer: Arc<dyn Signer>,
    threads: usize,
) -> anyhow::Result<Published> {
    anyhow::ensure!(segment_size > 0, "--segment-size must be positive");
    let versioned = prefix.append_version(version);
    let n = content.len().div_ceil(segment_size).max(1) as u64;
    let final_id = ndnlab_wire::OwnedComponent::segment(n - 1);
    let (name, body) = (versioned.clone(), content.clone());
    let sign_one = move |&i: &u64| {
        let start = (i as usize * segment_size).min(body.len());
        let end = (start + segment_size).min(body.len());
        Data::builder(name.append_segment(i))
            .freshness(freshness)
            .final_block_id(final_id.as_component())
            .content(body.slice(start..end))
            .sign(signer.as_ref())
    };
    let threads = threads.clamp(1, MAX_THREADS);
    let segments = SigningPool::sign_ordered(threads, (0..n).collect(), sign_one)?
        .into_iter()
        .collect::<Result<Vec<Bytes>, _>>()?;
    Ok(Published {
        versioned,
        segments,
        bytes: content.len() as u64,
        sha256: Sha256::digest(content).into(),
    })
}

fn read_input(file: Option<&PathBuf>) -> anyhow::Result<(Bytes, Option<u64>)> {
    match file {
        Some(p) if p.as_os_str() != "-" => {
            let meta = std::fs::metadata(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as u64);
            let data = std::fs::read(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            Ok((data.into(), mtime))
        }
        _ => {
            let mut v = Vec::new();
            std::io::stdin().read_to_end(&mut v)?;
            Ok((v.into(), None))
        }
    }
}

/// Publishes and serves until interrupted.
pub async fn run(args: PutArgs) -> anyhow::Result<()> {
    let (content, mtime) = read_input(args.file.as_ref())?;
    let version = args.data_version.or(mtime).unwrap_or_else(unix_ms);
    let id = make_identity(args.sign, &args.prefix)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let t0 = Instant::now();
    let signer = id.signer.clone();
    let (prefix, seg_size, fresh) = (
        args.prefix.clone(),
        args.segment_size,
        Duration::from_millis(args.freshness),
    );
    let content2 = content.clone();
    let published = tokio::task::spawn_blocking(move || {
        segment(
            &prefix, version, &content2, seg_size, fresh, signer, threads,
        )
    })
    .await??;
    let sign_time = t0.elapsed();
    let client = args.connect.connect().await?;
    let server = Server::register(&client, &args.prefix).await?;
    let info = json!({
        "type": "published", "name": published.versioned.to_string(), "segments": published.segments.len(),
        "bytes": published.bytes, "sha256": hex::encode(published.sha256), "sign": args.sign.to_string(),
        "sign_time_s": sign_time.as_secs_f64(),
    });
    if args.json {
        print_json(&info);
    } else if !args.quiet {
        println!(
            "published {} ({} bytes, {} segments of {} B, {} signed in {:.2} s, sha256 {})",
            published.versioned,
            published.bytes,
            published.segments.len(),
            args.segment_size,
            args.sign,
            sign_time.as_secs_f64(),
            hex::encode(published.sha256)
        );
    }
    let served = server.served();
    let answer = |inc: &IncomingInterest| -> anyhow::Result<Reply> {
        let i = &inc.interest;
        let name = i.name();
        let reply = if rdr::is_metadata_interest(&args.prefix, i) {
            Some(rdr::metadata_data(
                &args.prefix,
                &published.versioned,
                id.signer.as_ref(),
                unix_ms(),
            )?)
        } else if let Some(seg) = segment_of(&published.versioned, name) {
            published.segments.get(seg as usize).cloned()
        } else if i.can_be_prefix() && name.is_prefix_of(&published.versioned) {
            published.segments.first().cloned()
        } else if let (Some(k), Some(c)) = (&id.key_name, &id.certificate) {
            k.is_prefix_of(name).then(|| c.clone())
        } else {
            None
        };
        Ok(reply.map_or(Reply::Nothing, Reply::Data))
    };
    server.run(answer, None, interrupted(None)).await?;
    if !args.quiet && !args.json {
        println!("served {} Data", served.data.load(Relaxed));
    }
    Ok(())
}

/// The segment number if `name` is `<versioned>/seg=N`.
pub fn segment_of(versioned: &Name, name: &Name) -> Option<u64> {
    if name.len() != versioned.len() + 1 || !versioned.is_prefix_of(name) {
        return None;
    }
    name.last().and_then(|c: Component<'_>| c.as_segment())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::DigestSha256;

    #[test]
    fn segments_carry_final_block_and_cover_content() {
        let content = Bytes::from((0..2500u32).map(|i| i as u8).collect::<Vec<_>>());
        let p = segment(
            &"/f".parse().unwrap(),
            7,
            &content,
            1000,
            Duration::from_secs(1),
            Arc::new(DigestSha256),
            2,
        )
        .unwrap();
        assert_eq!(p.segments.len(), 3);
        let mut all = Vec::new();
        for (i, s) in p.segments.iter().enumerate() {
            let d = Data::decode(s.clone()).unwrap();
            assert_eq!(d.name().to_string(), format!("/f/v=7/seg={i}"));
            assert_eq!(d.final_block_id().unwrap().as_segment(), Some(2));
            all.extend_from_slice(d.content_slice());
        }
        assert_eq!(all, content.to_vec());
        assert_eq!(
            segment_of(&p.versioned, &"/f/v=7/seg=2".parse().unwrap()),
            Some(2)
        );
        assert_eq!(
            segment_of(&p.versioned, &"/f/v=8/seg=2".parse().unwrap()),
            None
        );
    }

    #[test]
    fn empty_content_is_one_empty_segment() {
        let p = segment(
            &"/e".parse().unwrap(),
            1,
            &Bytes::new(),
            1000,
            Duration::ZERO,
            Arc::new(DigestSha256),
            4,
        )
        .unwrap();
        assert_eq!(p.segments.len(), 1);
    }
}
