//! `ndnlab packet`: decode (dissect) and encode NDN packets.
//!
//! `decode` reads hex or raw bytes and prints the TLV tree that
//! [`ndnlab_lab::wire::dissect`] builds (each top-level packet is first validated
//! by the codec, so a malformed packet is reported with the codec's reason and
//! byte offset); `encode` builds an Interest or a Data with the codec's
//! builders and prints it as hex or raw bytes.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use clap::{Args, Subcommand};
use ndnlab_lab::wire::dissect;
use ndnlab_lab::wire::{Data, DigestSha256, Interest, Name, OwnedComponent};

/// Decode and encode NDN packets.
#[derive(Subcommand, Debug)]
pub enum PacketCmd {
    /// Print the TLV structure of packets (Interest, Data, Nack, LpPacket or any TLV).
    Decode(DecodeArgs),
    /// Build a packet and print it (hex by default).
    #[command(subcommand)]
    Encode(EncodeCmd),
}

/// Where `decode` reads from and how it prints.
#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Packet(s) in hex (whitespace allowed), or `-` to read stdin (hex if it looks
    /// like hex, raw bytes otherwise).
    #[arg(conflicts_with = "file")]
    pub input: Option<String>,
    /// Read raw bytes from a file.
    #[arg(long, short)]
    pub file: Option<PathBuf>,
    /// Print the tree as JSON (a list with one object per top-level TLV).
    #[arg(long)]
    pub json: bool,
}

/// Which packet `encode` builds.
#[derive(Subcommand, Debug)]
pub enum EncodeCmd {
    /// An Interest.
    Interest(InterestArgs),
    /// A Data signed with DigestSha256.
    Data(DataArgs),
}

/// Output format of `encode`.
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// Write the raw bytes instead of hex.
    #[arg(long)]
    pub raw: bool,
}

/// Fields of an Interest.
#[derive(Args, Debug)]
pub struct InterestArgs {
    /// Name URI, e.g. /ndn/app/seg=3.
    pub name: String,
    /// Set CanBePrefix.
    #[arg(long)]
    pub can_be_prefix: bool,
    /// Set MustBeFresh.
    #[arg(long)]
    pub must_be_fresh: bool,
    /// InterestLifetime in milliseconds (absent: the 4000 ms default applies).
    #[arg(long, value_name = "MS")]
    pub lifetime: Option<u64>,
    /// HopLimit (0..=255).
    #[arg(long, value_name = "N")]
    pub hop_limit: Option<u8>,
    /// Nonce as 8 hex digits (absent: a random Nonce, as ndn-tools do).
    #[arg(long, value_name = "HEX")]
    pub nonce: Option<String>,
    /// Write no Nonce element.
    #[arg(long, conflicts_with = "nonce")]
    pub no_nonce: bool,
    /// A ForwardingHint name (repeatable).
    #[arg(long = "forwarding-hint", value_name = "NAME")]
    pub forwarding_hint: Vec<String>,
    /// ApplicationParameters in hex (the ParametersSha256DigestComponent is added).
    #[arg(long, value_name = "HEX")]
    pub app_params: Option<String>,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Fields of a Data.
#[derive(Args, Debug)]
pub struct DataArgs {
    /// Name URI.
    pub name: String,
    /// Content as text.
    #[arg(long, conflicts_with = "content_file")]
    pub content: Option<String>,
    /// Content read from a file.
    #[arg(long, value_name = "F")]
    pub content_file: Option<PathBuf>,
    /// FreshnessPeriod in milliseconds.
    #[arg(long, value_name = "MS")]
    pub freshness: Option<u64>,
    /// FinalBlockId as a name component URI, e.g. seg=9.
    #[arg(long, value_name = "COMP")]
    pub final_block_id: Option<String>,
    /// ContentType number (0 BLOB, 1 LINK, 2 KEY, 3 NACK, ...).
    #[arg(long, value_name = "N")]
    pub content_type: Option<u64>,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Runs `ndnlab packet ...`.
pub fn run(cmd: PacketCmd) -> Result<()> {
    match cmd {
        PacketCmd::Decode(args) => decode(args),
        PacketCmd::Encode(EncodeCmd::Interest(args)) => {
            let wire = encode_interest(&args)?;
            emit(&wire, &args.out)
        }
        PacketCmd::Encode(EncodeCmd::Data(args)) => {
            let wire = encode_data(&args)?;
            emit(&wire, &args.out)
        }
    }
}

fn decode(args: DecodeArgs) -> Result<()> {
    let buf = read_input(&args)?;
    if buf.is_empty() {
        bail!("no input: nothing to decode");
    }
    let tree = dissect::dissect_validated(&buf)?;
    let mut text = if args.json {
        serde_json::to_string_pretty(&tree)?
    } else {
        let mut s = String::new();
        dissect::render_text(&tree, &mut s);
        s
    };
    if args.json {
        text.push('\n');
    }
    write_stdout(text.as_bytes())
}

/// Writes to stdout; a closed pipe (`ndnlab packet decode ... | head`) is not an error.
fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn read_input(args: &DecodeArgs) -> Result<Vec<u8>> {
    if let Some(path) = &args.file {
        return std::fs::read(path).with_context(|| format!("cannot read {}", path.display()));
    }
    match args.input.as_deref() {
        None => bail!("no input: give HEX, --file F, or - for stdin"),
        Some("-") => {
            let mut raw = Vec::new();
            std::io::stdin()
                .read_to_end(&mut raw)
                .context("cannot read stdin")?;
            if dissect::looks_like_hex(&raw) {
                parse_hex(std::str::from_utf8(&raw).unwrap_or_default(), "stdin")
            } else {
                Ok(raw)
            }
        }
        Some(text) => parse_hex(text, "HEX argument"),
    }
}

/// Parses hex with whitespace allowed anywhere; errors name the argument.
fn parse_hex(text: &str, what: &str) -> Result<Vec<u8>> {
    dissect::parse_hex(text).map_err(|e| anyhow::anyhow!("{what}: {e}"))
}

fn parse_name(uri: &str, what: &str) -> Result<Name> {
    Name::from_uri(uri).with_context(|| format!("bad {what} {uri:?}"))
}

fn encode_interest(a: &InterestArgs) -> Result<Bytes> {
    let name = parse_name(&a.name, "NAME")?;
    let hints = a
        .forwarding_hint
        .iter()
        .map(|h| parse_name(h, "--forwarding-hint"))
        .collect::<Result<Vec<_>>>()?;
    let mut b = Interest::builder(name)
        .can_be_prefix(a.can_be_prefix)
        .must_be_fresh(a.must_be_fresh);
    if !hints.is_empty() {
        b = b.forwarding_hint(hints);
    }
    if let Some(hex) = &a.nonce {
        let bytes = parse_hex(hex, "--nonce")?;
        let arr: [u8; 4] = bytes.as_slice().try_into().map_err(|_| {
            anyhow::anyhow!(
                "--nonce: need exactly 4 bytes (8 hex digits), got {}",
                bytes.len()
            )
        })?;
        b = b.nonce(u32::from_be_bytes(arr));
    } else if !a.no_nonce {
        b = b.nonce(rand::random());
    }
    if let Some(ms) = a.lifetime {
        b = b.lifetime(Duration::from_millis(ms));
    }
    if let Some(h) = a.hop_limit {
        b = b.hop_limit(h);
    }
    if let Some(hex) = &a.app_params {
        b = b.app_params(Bytes::from(parse_hex(hex, "--app-params")?));
    }
    Ok(b.build())
}

fn encode_data(a: &DataArgs) -> Result<Bytes> {
    let name = parse_name(&a.name, "NAME")?;
    let content: Bytes = match (&a.content, &a.content_file) {
        (Some(text), _) => Bytes::from(text.clone().into_bytes()),
        (None, Some(path)) => std::fs::read(path)
            .with_context(|| format!("cannot read --content-file {}", path.display()))?
            .into(),
        (None, None) => Bytes::new(),
    };
    let mut b = Data::builder(name).content(content);
    if let Some(ms) = a.freshness {
        b = b.freshness(Duration::from_millis(ms));
    }
    if let Some(comp) = &a.final_block_id {
        let c = OwnedComponent::from_uri(comp)
            .with_context(|| format!("bad --final-block-id {comp:?}"))?;
        b = b.final_block_id(c.as_component());
    }
    if let Some(t) = a.content_type {
        b = b.content_type(t);
    }
    b.sign(&DigestSha256).context("signing failed")
}

fn emit(wire: &[u8], out: &OutputArgs) -> Result<()> {
    if out.raw {
        write_stdout(wire)
    } else {
        write_stdout(format!("{}\n", hex::encode(wire)).as_bytes())
    }
}
