//! `ndnlab ctl`: control a running forwarder (nfdc's verbs and output style).
//!
//! Connects to `--socket`, else `NDN_CLIENT_TRANSPORT` (like python-ndn), else
//! `/run/nfd/nfd.sock`; works with `ndnlab fwd` and with NFD itself. Commands are
//! signed with DigestSha256, or with `--key` (a keychain key, as nfdc signs with
//! its default identity) for a forwarder with `[[management.authorize]]`. The
//! operations, their text and JSON are [`ndnlab_lab::app::tools::ctl`]'s; the latency
//! table is [`LatencyReport::table`].

use clap::{Args, Subcommand};
use ndnlab_lab::app::tools::ctl::{self, format, json, FaceOptions, Outcome, RouteOptions};
use ndnlab_lab::fwd::latency::dataset::LatencyReport;
use ndnlab_lab::proto::mgmt::dataset::Record;
use ndnlab_lab::wire::Name;

/// Control a running forwarder.
#[derive(Args, Debug)]
pub struct CtlArgs {
    /// Forwarder socket: a path or unix:///path or tcp://host:port.
    #[arg(long, global = true)]
    pub socket: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Sign commands with this key, identity or certificate of the keychain
    /// (needed by a forwarder with `[[management.authorize]]`, NFD's
    /// `authorizations`); an encrypted key's passphrase is read from
    /// $NDNLAB_PASSPHRASE. Default: DigestSha256.
    #[arg(long, global = true, value_name = "NAME", value_parser = ndnlab_lab::app::tools::parse_name)]
    pub key: Option<Name>,
    /// Keychain of --key [default: $NDNLAB_KEYCHAIN, else
    /// $XDG_CONFIG_HOME/ndnlab/keychain, else ~/.config/ndnlab/keychain].
    #[arg(long, global = true, value_name = "DIR")]
    pub keychain: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub cmd: CtlCmd,
}

#[derive(Subcommand, Debug)]
pub enum CtlCmd {
    /// Forwarder status and counters.
    Status,
    /// Faces.
    #[command(subcommand)]
    Face(FaceCmd),
    /// Routes (the RIB).
    #[command(subcommand)]
    Route(RouteCmd),
    /// The FIB.
    #[command(subcommand)]
    Fib(FibCmd),
    /// Strategy choices.
    #[command(subcommand)]
    Strategy(StrategyCmd),
    /// The Content Store.
    #[command(subcommand)]
    Cs(CsCmd),
    /// Data-plane latency per stage and packet class (`ndnlab fwd --latency-sample N`).
    Latency,
}

#[derive(Subcommand, Debug)]
pub enum FaceCmd {
    /// List faces.
    List,
    /// Create a face (udp4://host:port, tcp4://host:port, ether://[MAC] local
    /// dev://IFNAME, ...), nfdc style:
    /// `face create udp4://10.0.0.2:6363 persistency permanent reliability on`.
    /// On an existing face, the options given are applied with faces/update.
    Create {
        remote: String,
        /// nfdc options: persistency persistent|permanent, local-fields on|off,
        /// reliability on|off, congestion-marking on|off,
        /// congestion-marking-interval <ms>, default-congestion-threshold <bytes>,
        /// mtu <bytes>, local <uri> (dev://IFNAME for ether://).
        options: Vec<String>,
        /// persistent or permanent (same as the `persistency` option).
        #[arg(long)]
        persistency: Option<String>,
        #[arg(long)]
        mtu: Option<u64>,
        /// Enable LocalFields (local faces only).
        #[arg(long)]
        local_fields: bool,
    },
    /// Change a face (faces/update), by id or remote URI, with the options of
    /// `face create`: `face update 300 reliability on mtu 1400`.
    Update {
        face: String,
        /// The same options as `face create`.
        options: Vec<String>,
    },
    /// Destroy a face by id or remote URI.
    Destroy { face: String },
}

#[derive(Subcommand, Debug)]
pub enum RouteCmd {
    /// List routes.
    List,
    /// Add a route (rib/register).
    Add {
        prefix: String,
        /// Face id or remote URI.
        nexthop: String,
        #[arg(long, default_value_t = 0)]
        cost: u64,
        #[arg(long, default_value_t = 255)]
        origin: u64,
        /// Do not let longer prefixes inherit this route.
        #[arg(long)]
        no_inherit: bool,
        /// Stop inheritance of shorter prefixes' routes.
        #[arg(long)]
        capture: bool,
        /// Expiration in milliseconds.
        #[arg(long)]
        expires: Option<u64>,
    },
    /// Remove a route (rib/unregister).
    Remove {
        prefix: String,
        nexthop: String,
        #[arg(long, default_value_t = 255)]
        origin: u64,
    },
}

#[derive(Subcommand, Debug)]
pub enum FibCmd {
    /// List FIB entries.
    List,
}

#[derive(Subcommand, Debug)]
pub enum StrategyCmd {
    /// List strategy choices.
    List,
    /// Choose a strategy for a prefix.
    Set { prefix: String, strategy: String },
    /// Remove the strategy choice of a prefix.
    Unset { prefix: String },
}

#[derive(Subcommand, Debug)]
pub enum CsCmd {
    /// CS counters and configuration.
    Info,
    /// Configure the CS.
    Config {
        #[arg(long)]
        capacity: Option<u64>,
        /// on or off
        #[arg(long)]
        admit: Option<OnOff>,
        /// on or off
        #[arg(long)]
        serve: Option<OnOff>,
    },
    /// Erase cached Data under a prefix.
    Erase {
        prefix: String,
        #[arg(long)]
        count: Option<u64>,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

pub fn run(args: CtlArgs) -> anyhow::Result<()> {
    let socket = args.socket.as_deref().map(std::path::Path::new);
    let mut c = ctl::connect(socket, args.keychain.as_deref(), args.key.as_ref())?;
    let c = &mut c;
    let as_json = args.json;
    match args.cmd {
        CtlCmd::Latency => {
            let r = LatencyReport::decode(&c.dataset("ndnlab", "latency")?)
                .map_err(|e| anyhow::anyhow!("cannot decode ndnlab/latency: {e}"))?;
            if as_json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                print!("{}", r.table());
            }
        }
        CtlCmd::Status => {
            let s = ctl::status(c)?;
            if as_json {
                println!("{}", json::status(&s));
            } else {
                print!("{}", format::status(&s));
            }
        }
        CtlCmd::Face(FaceCmd::List) => list(as_json, &ctl::faces(c)?, format::faces),
        CtlCmd::Face(FaceCmd::Create {
            remote,
            options,
            persistency,
            mtu,
            local_fields,
        }) => {
            let opts = FaceOptions::parse(&options)?.with_flags(
                persistency.as_deref(),
                mtu,
                local_fields,
            )?;
            report(as_json, ctl::face_create(c, &remote, &opts)?)?;
        }
        CtlCmd::Face(FaceCmd::Update { face, options }) => {
            let opts = FaceOptions::parse(&options)?;
            report(as_json, ctl::face_update(c, &face, &opts)?)?;
        }
        CtlCmd::Face(FaceCmd::Destroy { face }) => report(as_json, ctl::face_destroy(c, &face)?)?,
        CtlCmd::Route(RouteCmd::List) => list(as_json, &ctl::routes(c)?, format::routes),
        CtlCmd::Route(RouteCmd::Add {
            prefix,
            nexthop,
            cost,
            origin,
            no_inherit,
            capture,
            expires,
        }) => {
            let route = RouteOptions {
                cost,
                origin,
                child_inherit: !no_inherit,
                capture,
                expires_ms: expires,
            };
            report(as_json, ctl::route_add(c, &prefix, &nexthop, &route)?)?;
        }
        CtlCmd::Route(RouteCmd::Remove {
            prefix,
            nexthop,
            origin,
        }) => report(as_json, ctl::route_remove(c, &prefix, &nexthop, origin)?)?,
        CtlCmd::Fib(FibCmd::List) => list(as_json, &ctl::fib(c)?, format::fib),
        CtlCmd::Strategy(StrategyCmd::List) => {
            list(as_json, &ctl::strategies(c)?, format::strategies)
        }
        CtlCmd::Strategy(StrategyCmd::Set { prefix, strategy }) => {
            report(as_json, ctl::strategy_set(c, &prefix, &strategy)?)?
        }
        CtlCmd::Strategy(StrategyCmd::Unset { prefix }) => {
            report(as_json, ctl::strategy_unset(c, &prefix)?)?
        }
        CtlCmd::Cs(CsCmd::Info) => {
            let r = ctl::cs_info(c)?;
            if as_json {
                println!("{}", json::record(&r));
            } else {
                print!("{}", format::cs_info(&r));
            }
        }
        CtlCmd::Cs(CsCmd::Config {
            capacity,
            admit,
            serve,
        }) => {
            let on = |o: OnOff| matches!(o, OnOff::On);
            report(
                as_json,
                ctl::cs_config(c, capacity, admit.map(on), serve.map(on))?,
            )?;
        }
        CtlCmd::Cs(CsCmd::Erase { prefix, count }) => {
            report(as_json, ctl::cs_erase(c, &prefix, count)?)?
        }
    }
    Ok(())
}

/// Prints a listing: JSON, or its text.
fn list(as_json: bool, recs: &[Record], text: fn(&[Record]) -> String) {
    if as_json {
        println!("{}", json::list(recs));
    } else {
        print!("{}", text(recs));
    }
}

/// Prints a command's outcome, then fails if the command was refused.
fn report(as_json: bool, o: Outcome) -> anyhow::Result<()> {
    if let Some(out) = o.output(as_json) {
        println!("{out}");
    }
    o.result()
}
