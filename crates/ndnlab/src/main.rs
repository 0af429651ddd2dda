//! `ndnlab`: the one binary of the NDN forwarder and performance laboratory.
//!
//! Each subcommand is a user's verb and lives in its own module under `cmd/`:
//! the module exposes a clap `Args`/`Subcommand` type and a `run` function.
//! Errors bubble up as `anyhow::Error`, are printed with their cause chain and
//! make the process exit with status 1 (clap's own usage errors exit with 2).

mod cmd;

use clap::{Parser, Subcommand};

// The daemon's allocator (`ndnlab_lab::fwd::process::allocator`): every command runs
// with it, and `ndnlab fwd`'s memory bound is measured with it.
#[global_allocator]
static GLOBAL: ndnlab_lab::fwd::process::Allocator = ndnlab_lab::fwd::process::Allocator;

/// NDN forwarder and performance laboratory.
#[derive(Parser, Debug)]
#[command(name = "ndnlab", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment over a topology of forwarders (the default one without a
    /// file: consumer, forwarder and producer, a 2^2 r design, with its report).
    #[command(alias = "quickstart")]
    Run(cmd::run::RunArgs),
    /// Run every experiment file of the seed papers (experiments/seedNNN/) and
    /// gather the papers' numbers beside ndnlab's on one page.
    Reproduce(cmd::reproduce::ReproduceArgs),
    /// Show, import (Mini-NDN, ndnSIM) and export (Graphviz) topologies.
    #[command(subcommand)]
    Topo(cmd::topo::TopoCmd),
    /// Join the output directories of a sharded campaign (run --shard I/N).
    Merge(cmd::merge::MergeArgs),
    /// Run a campaign on Slurm as a job array and a merge job; its status; resume it.
    #[command(subcommand)]
    Submit(cmd::submit::SubmitCmd),
    /// Analyse a CSV table: two-level factorial designs, ANOVA, summaries.
    #[command(subcommand)]
    Analyze(cmd::analyze::AnalyzeCmd),
    /// Fit distributions to latency samples (the model file) and draw from them.
    #[command(subcommand)]
    Model(cmd::model::ModelCmd),
    /// Write the HTML report of an experiment directory.
    Report(cmd::report::ReportArgs),
    /// Decode and encode NDN packets (like ndn-tools' ndndissect).
    #[command(subcommand)]
    Packet(cmd::packet::PacketCmd),
    /// Run the forwarder daemon (NFD-compatible faces and management).
    Fwd(cmd::fwd::FwdArgs),
    /// Control a running forwarder (nfdc's verbs).
    Ctl(cmd::ctl::CtlArgs),
    /// NDNperf-style throughput measurement (server and client).
    #[command(subcommand)]
    Perf(cmd::perf::PerfCmd),
    /// Publish a file as versioned, segmented Data (like ndnputchunks).
    Put(cmd::put::PutArgs),
    /// Fetch versioned, segmented Data (like ndncatchunks).
    Get(cmd::get::GetArgs),
    /// Ping a prefix, or serve pings (like ndnping / ndnpingserver).
    Ping(cmd::ping::PingCmd),
    /// Traffic generator (Poisson, constant rate, bursts) and its server.
    #[command(subcommand)]
    Traffic(cmd::traffic::TrafficCmd),
    /// Keys and NDN certificates in the file keychain.
    Key(cmd::key::KeyArgs),
    /// Micro-benchmarks (signing, ...).
    #[command(subcommand)]
    Bench(cmd::bench::BenchCmd),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => cmd::run::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Topo(c) => cmd::topo::run(c),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Submit(c) => cmd::submit::run(c),
        Command::Analyze(c) => cmd::analyze::run(c),
        Command::Model(c) => cmd::model::run(c),
        Command::Report(a) => cmd::report::run(a),
        Command::Packet(c) => cmd::packet::run(c),
        Command::Fwd(a) => cmd::fwd::run(a),
        Command::Ctl(a) => cmd::ctl::run(a),
        Command::Perf(c) => cmd::perf::run(c),
        Command::Put(a) => cmd::put::run(a),
        Command::Get(a) => cmd::get::run(a),
        Command::Ping(c) => cmd::ping::run(c),
        Command::Traffic(c) => cmd::traffic::run(c),
        Command::Key(a) => cmd::key::run(a),
        Command::Bench(c) => cmd::bench::run(c),
    };
    if let Err(e) = result {
        eprintln!("ndnlab: error: {e:#}");
        std::process::exit(1);
    }
}
