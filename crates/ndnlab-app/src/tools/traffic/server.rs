//! `ndnlab traffic server`: answers every Interest under its prefix with
//! Data of the size the name asks for (`size-<bytes>`, else `--payload`).

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_wire::{Data, Name};
use serde_json::json;

use super::pattern::requested_payload;
use super::DEFAULT_PREFIX;
use crate::client::IncomingInterest;
use crate::tools::serve::{interrupted, Reply, Server};
use crate::tools::signing::{make_identity, SignKind};
use crate::tools::{parse_name, print_json, ConnectArgs};

/// Largest payload a name may ask for.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// Options of `ndnlab traffic server`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Prefix to serve.
    #[arg(long, default_value = DEFAULT_PREFIX, value_parser = parse_name)]
    pub prefix: Name,
    /// Content bytes when the name does not say.
    #[arg(long, default_value_t = 1024)]
    pub payload: usize,
    /// FreshnessPeriod in milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub freshness: u64,
    /// Signature of the Data.
    #[arg(long, default_value = "digest")]
    pub sign: SignKind,
    /// Stop after answering this many Interests.
    #[arg(long)]
    pub count: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the server; returns the number of Data sent.
pub async fn run(args: ServerArgs) -> anyhow::Result<u64> {
    let client = args.connect.connect().await?;
    let id = make_identity(args.sign, &args.prefix)?;
    let server = Server::register(&client, &args.prefix).await?;
    if !args.json {
        println!("traffic server on {} prefix {}", client.uri(), args.prefix);
    }
    let fill = Bytes::from(vec![0x5a; MAX_PAYLOAD]);
    let start = Instant::now();
    let deadline = args
        .duration
        .map(|d| tokio::time::Instant::now() + Duration::from_secs_f64(d));
    let served = server.served();
    let mut bytes = 0u64;
    let answer = |inc: &IncomingInterest| -> anyhow::Result<Reply> {
        let i = &inc.interest;
        let size = requested_payload(i.name())
            .unwrap_or(args.payload)
            .min(MAX_PAYLOAD);
        let name = if i.can_be_prefix() {
            i.name().append_version(1)
        } else {
            i.name().clone()
        };
        let data = Data::builder(name)
            .freshness_ms(args.freshness)
            .content(fill.slice(..size))
            .sign(id.signer.as_ref())?;
        bytes += size as u64;
        Ok(Reply::Data(data))
    };
    server
        .run(answer, args.count, interrupted(deadline))
        .await?;
    let answered = served.data.load(Relaxed);
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        print_json(&json!({"type":"summary","answered":answered,"bytes":bytes,"time_s":secs}));
    } else {
        println!("answered {answered} Interests ({bytes} content bytes) in {secs:.1} s");
    }
    Ok(answered)
}
