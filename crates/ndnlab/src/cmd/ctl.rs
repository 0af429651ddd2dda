//! `ndnlab ctl`: control a running forwarder (nfdc's verbs and output style).
//!
//! Connects to `--socket`, else `NDN_CLIENT_TRANSPORT` (like python-ndn), else
//! `/run/nfd/nfd.sock`; works with `ndnlab fwd` and with NFD itself. Commands are
//! signed with DigestSha256, or with `--key` (a keychain key, as nfdc signs with
//! its default identity) for a forwarder with `[[management.authorize]]`.

use clap::{Args, Subcommand};
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::FaceUri;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind, Record, Value};
use ndnlab_proto::mgmt::params::{ControlParameters, ControlResponse};
use ndnlab_wire::Name;

use super::ctl_face::{self, FaceOptions};

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
    #[arg(long, global = true, value_name = "NAME", value_parser = ndnlab_app::tools::parse_name)]
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
    let transport = FaceUri::resolve(args.socket.as_deref().map(std::path::Path::new))?;
    let signer = ndnlab_app::tools::command_signer(args.keychain.as_deref(), args.key.as_ref())?;
    let mut c = BlockingClient::connect(&transport)?;
    c.client().set_command_signer(signer);
    let json = args.json;
    match args.cmd {
        CtlCmd::Latency => super::ctl_latency::run(&mut c, json)?,
        CtlCmd::Status => {
            let recs = dataset(&mut c, "status", "general", DatasetKind::General)?;
            // ndnlab's resource bounds and drops (absent from NFD: then skipped).
            let limits = c
                .dataset("status", "limits")
                .ok()
                .map(|p| parse_limits(&p))
                .unwrap_or_default();
            if json {
                let mut v = to_json(&recs[0]);
                if let serde_json::Value::Object(m) = &mut v {
                    for (section, prefix) in [
                        ("limits", "limit."),
                        ("drops", "drop."),
                        ("verify", "verify."),
                        ("used", "used."),
                    ] {
                        let o: serde_json::Map<_, _> = limits
                            .iter()
                            .filter_map(|(k, n)| {
                                Some((k.strip_prefix(prefix)?.to_string(), (*n).into()))
                            })
                            .collect();
                        if !o.is_empty() {
                            m.insert(section.into(), o.into());
                        }
                    }
                }
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!("General forwarder status:");
                for (k, v) in &recs[0].0 {
                    println!("{:>25}={}", k, show(v));
                }
                for (title, prefix) in [
                    ("Limits:", "limit."),
                    ("Drops:", "drop."),
                    ("Verify:", "verify."),
                    ("Used:", "used."),
                ] {
                    let rows: Vec<_> = limits
                        .iter()
                        .filter(|(k, _)| k.starts_with(prefix))
                        .collect();
                    if !rows.is_empty() {
                        println!("{title}");
                        for (k, n) in rows {
                            println!("{:>25}={}", &k[prefix.len()..], n);
                        }
                    }
                }
            }
        }
        CtlCmd::Face(FaceCmd::List) => {
            let recs = dataset(&mut c, "faces", "list", DatasetKind::Faces)?;
            if json {
                print_json_list(&recs);
            } else {
                for r in &recs {
                    println!("{}", face_line(r));
                }
            }
        }
        CtlCmd::Face(FaceCmd::Create {
            remote,
            options,
            persistency,
            mtu,
            local_fields,
        }) => {
            let mut opts = FaceOptions::parse(&options)?;
            if let Some(p) = persistency {
                opts.persistency = Some(ctl_face::persistency(&p)?);
            }
            if opts.persistency == Some(1) {
                anyhow::bail!("persistency must be persistent or permanent, not 'on-demand'");
            }
            opts.mtu = opts.mtu.or(mtu);
            if local_fields {
                opts.flags |= 1;
                opts.mask |= 1;
            }
            let mut p = ControlParameters {
                uri: Some(remote),
                local_uri: opts.local.clone(),
                face_persistency: Some(0),
                ..Default::default()
            };
            opts.apply(&mut p);
            let r = c.command_response("faces", "create", &p)?;
            // nfdc: an existing face gets the requested properties instead.
            let existing = r
                .body
                .as_ref()
                .and_then(|b| b.face_id)
                .filter(|_| r.code == 409);
            match existing {
                Some(id) if !opts.is_empty() => {
                    let mut u = ControlParameters {
                        face_id: Some(id),
                        ..Default::default()
                    };
                    opts.apply(&mut u);
                    let r = c.command_response("faces", "update", &u)?;
                    report(json, "face-updated", &r, &[200])?;
                }
                _ => report(json, "face-created", &r, &[200, 409])?,
            }
        }
        CtlCmd::Face(FaceCmd::Update { face, options }) => {
            let opts = FaceOptions::parse(&options)?;
            if opts.local.is_some() {
                anyhow::bail!("'local' names a face at creation; faces/update cannot change it");
            }
            let id = face_id(&mut c, &face)?;
            let mut p = ControlParameters {
                face_id: Some(id),
                ..Default::default()
            };
            opts.apply(&mut p);
            let r = c.command_response("faces", "update", &p)?;
            report(json, "face-updated", &r, &[200])?;
        }
        CtlCmd::Face(FaceCmd::Destroy { face }) => {
            let id = face_id(&mut c, &face)?;
            let r = c.command_response(
                "faces",
                "destroy",
                &ControlParameters {
                    face_id: Some(id),
                    ..Default::default()
                },
            )?;
            report(json, "face-destroyed", &r, &[200])?;
        }
        CtlCmd::Route(RouteCmd::List) => {
            let recs = dataset(&mut c, "rib", "list", DatasetKind::Rib)?;
            if json {
                print_json_list(&recs);
            } else {
                for r in &recs {
                    for route in r.all("route") {
                        println!(
                            "prefix={} nexthop={} origin={} cost={} flags={} expires={}",
                            r.text("name").unwrap_or("?"),
                            route.num("faceId").unwrap_or(0),
                            origin_name(route.num("origin").unwrap_or(0)),
                            route.num("cost").unwrap_or(0),
                            route_flags(route.num("flags").unwrap_or(0)),
                            route
                                .num("expirationPeriod")
                                .map_or("never".into(), |e| format!("{e}ms")),
                        );
                    }
                }
            }
        }
        CtlCmd::Route(RouteCmd::Add {
            prefix,
            nexthop,
            cost,
            origin,
            no_inherit,
            capture,
            expires,
        }) => {
            let id = face_id(&mut c, &nexthop)?;
            let flags = (!no_inherit as u64) | ((capture as u64) << 1);
            let p = ControlParameters {
                name: Some(Name::from_uri(&prefix)?),
                face_id: Some(id),
                origin: Some(origin),
                cost: Some(cost),
                flags: Some(flags),
                expiration_period: expires,
                ..Default::default()
            };
            let r = c.command_response("rib", "register", &p)?;
            report(json, "route-add-accepted", &r, &[200])?;
        }
        CtlCmd::Route(RouteCmd::Remove {
            prefix,
            nexthop,
            origin,
        }) => {
            let id = face_id(&mut c, &nexthop)?;
            let p = ControlParameters {
                name: Some(Name::from_uri(&prefix)?),
                face_id: Some(id),
                origin: Some(origin),
                ..Default::default()
            };
            let r = c.command_response("rib", "unregister", &p)?;
            report(json, "route-removed", &r, &[200])?;
        }
        CtlCmd::Fib(FibCmd::List) => {
            let recs = dataset(&mut c, "fib", "list", DatasetKind::Fib)?;
            if json {
                print_json_list(&recs);
            } else {
                for r in &recs {
                    let hops: Vec<String> = r
                        .all("nexthop")
                        .map(|h| {
                            format!(
                                "faceid={} (cost={})",
                                h.num("faceId").unwrap_or(0),
                                h.num("cost").unwrap_or(0)
                            )
                        })
                        .collect();
                    println!(
                        "{} nexthops={{{}}}",
                        r.text("name").unwrap_or("?"),
                        hops.join(", ")
                    );
                }
            }
        }
        CtlCmd::Strategy(StrategyCmd::List) => {
            let recs = dataset(&mut c, "strategy-choice", "list", DatasetKind::Strategy)?;
            if json {
                print_json_list(&recs);
            } else {
                for r in &recs {
                    println!(
                        "prefix={} strategy={}",
                        r.text("name").unwrap_or("?"),
                        r.text("strategy").unwrap_or("?")
                    );
                }
            }
        }
        CtlCmd::Strategy(StrategyCmd::Set { prefix, strategy }) => {
            let p = ControlParameters {
                name: Some(Name::from_uri(&prefix)?),
                strategy: Some(Name::from_uri(&strategy)?),
                ..Default::default()
            };
            let r = c.command_response("strategy-choice", "set", &p)?;
            report(json, "strategy-set", &r, &[200])?;
        }
        CtlCmd::Strategy(StrategyCmd::Unset { prefix }) => {
            let p = ControlParameters {
                name: Some(Name::from_uri(&prefix)?),
                ..Default::default()
            };
            let r = c.command_response("strategy-choice", "unset", &p)?;
            report(json, "strategy-unset", &r, &[200])?;
        }
        CtlCmd::Cs(CsCmd::Info) => {
            let recs = dataset(&mut c, "cs", "info", DatasetKind::Cs)?;
            let r = recs.first().cloned().unwrap_or_default();
            if json {
                print_json(&r);
            } else {
                let flags = r.num("flags").unwrap_or(0);
                println!("CS information:");
                println!("  capacity={}", r.num("capacity").unwrap_or(0));
                println!("     admit={}", if flags & 1 != 0 { "on" } else { "off" });
                println!("     serve={}", if flags & 2 != 0 { "on" } else { "off" });
                println!("  nEntries={}", r.num("nEntries").unwrap_or(0));
                println!("     nHits={}", r.num("nHits").unwrap_or(0));
                println!("   nMisses={}", r.num("nMisses").unwrap_or(0));
            }
        }
        CtlCmd::Cs(CsCmd::Config {
            capacity,
            admit,
            serve,
        }) => {
            let mut flags = 0;
            let mut mask = 0;
            if let Some(a) = admit {
                mask |= 1;
                flags |= matches!(a, OnOff::On) as u64;
            }
            if let Some(s) = serve {
                mask |= 2;
                flags |= (matches!(s, OnOff::On) as u64) << 1;
            }
            let p = ControlParameters {
                capacity,
                flags: (mask != 0).then_some(flags),
                mask: (mask != 0).then_some(mask),
                ..Default::default()
            };
            let r = c.command_response("cs", "config", &p)?;
            report(json, "cs-config-updated", &r, &[200])?;
        }
        CtlCmd::Cs(CsCmd::Erase { prefix, count }) => {
            let p = ControlParameters {
                name: Some(Name::from_uri(&prefix)?),
                count,
                ..Default::default()
            };
            let r = c.command_response("cs", "erase", &p)?;
            report(json, "cs-erased", &r, &[200])?;
        }
    }
    Ok(())
}

fn dataset(
    c: &mut BlockingClient,
    module: &str,
    ds: &str,
    kind: DatasetKind,
) -> anyhow::Result<Vec<Record>> {
    let payload = c.dataset(module, ds)?;
    decode_records(kind, &payload).map_err(|e| anyhow::anyhow!("cannot decode {module}/{ds}: {e}"))
}

/// A face id from a number or a remote URI (looked up in faces/list).
fn face_id(c: &mut BlockingClient, s: &str) -> anyhow::Result<u64> {
    if let Ok(id) = s.parse() {
        return Ok(id);
    }
    let recs = dataset(c, "faces", "list", DatasetKind::Faces)?;
    recs.iter()
        .find(|r| r.text("remote") == Some(s))
        .and_then(|r| r.num("faceId"))
        .ok_or_else(|| anyhow::anyhow!("no face with remote URI {s}"))
}

/// The `status/limits` dataset (`key value` lines) as pairs; bad lines are skipped.
fn parse_limits(payload: &[u8]) -> Vec<(String, u64)> {
    String::from_utf8_lossy(payload)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

fn show(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::Text(s) => s.clone(),
        Value::Record(r) => format!(
            "{{{}}}",
            r.0.iter()
                .map(|(k, v)| format!("{k}={}", show(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

fn face_line(r: &Record) -> String {
    let n = |k: &str| r.num(k).unwrap_or(0);
    let scope = if n("scope") == 1 {
        "local"
    } else {
        "non-local"
    };
    let pers = match n("persistency") {
        0 => "persistent",
        1 => "on-demand",
        _ => "permanent",
    };
    let link = if n("linkType") == 1 {
        "multi-access"
    } else {
        "point-to-point"
    };
    let mut flags = vec![scope, pers, link];
    flags.extend(ctl_face::flag_names(n("flags")));
    let mtu = r.num("mtu").map_or(String::new(), |m| format!(" mtu={m}"));
    format!(
        "faceid={} remote={} local={} congestion={{base-marking-interval={}ms default-threshold={}B}}{} counters={{in={{{}i {}d {}n {}B}} out={{{}i {}d {}n {}B}}}} flags={{{}}}",
        n("faceId"),
        r.text("remote").unwrap_or("?"),
        r.text("local").unwrap_or("?"),
        n("baseCongestionMarkingInterval") / 1_000_000,
        n("defaultCongestionThreshold"),
        mtu,
        n("nInInterests"),
        n("nInData"),
        n("nInNacks"),
        n("nInBytes"),
        n("nOutInterests"),
        n("nOutData"),
        n("nOutNacks"),
        n("nOutBytes"),
        flags.join(" ")
    )
}

fn origin_name(o: u64) -> String {
    match o {
        0 => "app".into(),
        64 => "autoreg".into(),
        65 => "client".into(),
        66 => "autoconf".into(),
        128 => "nlsr".into(),
        129 => "prefixann".into(),
        255 => "static".into(),
        x => x.to_string(),
    }
}

fn route_flags(f: u64) -> String {
    let mut v = Vec::new();
    if f & 1 != 0 {
        v.push("child-inherit");
    }
    if f & 2 != 0 {
        v.push("capture");
    }
    if v.is_empty() {
        "none".into()
    } else {
        v.join("|")
    }
}

fn to_json(r: &Record) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (k, v) in &r.0 {
        let jv = match v {
            Value::Number(n) => serde_json::json!(n),
            Value::Text(s) => serde_json::json!(s),
            Value::Record(r) => to_json(r),
        };
        // Repeated fields (next hops, routes) become arrays.
        if matches!(v, Value::Record(_)) && matches!(k.as_str(), "nexthop" | "route") {
            if let Some(a) = m
                .entry(format!("{k}s"))
                .or_insert_with(|| serde_json::json!([]))
                .as_array_mut()
            {
                a.push(jv);
            }
        } else {
            m.insert(k.clone(), jv);
        }
    }
    serde_json::Value::Object(m)
}

fn print_json(r: &Record) {
    println!(
        "{}",
        serde_json::to_string_pretty(&to_json(r)).unwrap_or_default()
    );
}

fn print_json_list(rs: &[Record]) {
    let v: Vec<_> = rs.iter().map(to_json).collect();
    println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
}

fn params_json(p: &ControlParameters) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    let mut put = |k: &str, v: serde_json::Value| {
        m.insert(k.into(), v);
    };
    if let Some(n) = &p.name {
        put("name", n.to_string().into());
    }
    for (k, v) in [
        ("faceId", p.face_id),
        ("origin", p.origin),
        ("cost", p.cost),
        ("capacity", p.capacity),
        ("count", p.count),
        ("flags", p.flags),
        ("mask", p.mask),
        ("expirationPeriod", p.expiration_period),
        ("facePersistency", p.face_persistency),
        ("mtu", p.mtu),
        (
            "baseCongestionMarkingInterval",
            p.base_congestion_marking_interval,
        ),
        ("defaultCongestionThreshold", p.default_congestion_threshold),
    ] {
        if let Some(v) = v {
            put(k, v.into());
        }
    }
    if let Some(u) = &p.uri {
        put("remote", u.clone().into());
    }
    if let Some(u) = &p.local_uri {
        put("local", u.clone().into());
    }
    if let Some(s) = &p.strategy {
        put("strategy", s.to_string().into());
    }
    serde_json::Value::Object(m)
}

/// nfdc's route output: `prefix=/a nexthop=300 origin=static cost=0 flags=child-inherit expires=never`.
fn route_text(p: &ControlParameters) -> String {
    let mut s = format!(
        "prefix={} nexthop={}",
        p.name.as_ref().map_or("?".into(), |n| n.to_string()),
        p.face_id.unwrap_or(0)
    );
    if let Some(o) = p.origin {
        s += &format!(" origin={}", origin_name(o));
    }
    if let Some(c) = p.cost {
        s += &format!(" cost={c}");
    }
    if let Some(f) = p.flags {
        s += &format!(" flags={}", route_flags(f));
        s += &p
            .expiration_period
            .map_or(" expires=never".into(), |e| format!(" expires={e}ms"));
    }
    s
}

/// nfdc's face output: `id=300 local=... remote=... persistency=persistent
/// reliability=off congestion-marking=on congestion-marking-interval=100ms
/// default-congestion-threshold=65536B mtu=1452`.
fn face_text(p: &ControlParameters) -> String {
    let mut parts = Vec::new();
    if let Some(id) = p.face_id {
        parts.push(format!("id={id}"));
    }
    face_endpoints(p, &mut parts);
    if let Some(f) = p.flags {
        let on = |bit: u64| if f & bit != 0 { "on" } else { "off" };
        if f & 1 != 0 {
            parts.push("local-fields=on".into());
        }
        parts.push(format!("reliability={}", on(2)));
        parts.push(format!("congestion-marking={}", on(4)));
    }
    if let Some(i) = p.base_congestion_marking_interval {
        parts.push(format!("congestion-marking-interval={}ms", i / 1_000_000));
    }
    if let Some(t) = p.default_congestion_threshold {
        parts.push(format!("default-congestion-threshold={t}B"));
    }
    if let Some(m) = p.mtu {
        parts.push(format!("mtu={m}"));
    }
    parts.join(" ")
}

/// `local=... remote=... persistency=...`, the fields that name a face.
fn face_endpoints(p: &ControlParameters, parts: &mut Vec<String>) {
    if let Some(u) = &p.local_uri {
        parts.push(format!("local={u}"));
    }
    if let Some(u) = &p.uri {
        parts.push(format!("remote={u}"));
    }
    if let Some(x) = p.face_persistency {
        parts.push(format!(
            "persistency={}",
            ["persistent", "on-demand", "permanent"]
                .get(x as usize)
                .unwrap_or(&"?")
        ));
    }
}

fn params_text(p: &ControlParameters) -> String {
    let mut parts = Vec::new();
    if let Some(id) = p.face_id {
        parts.push(format!("id={id}"));
    }
    if let Some(n) = &p.name {
        parts.push(format!("prefix={n}"));
    }
    face_endpoints(p, &mut parts);
    if let Some(o) = p.origin {
        parts.push(format!("origin={}", origin_name(o)));
    }
    if let Some(c) = p.cost {
        parts.push(format!("cost={c}"));
    }
    if let Some(s) = &p.strategy {
        parts.push(format!("strategy={s}"));
    }
    if let Some(c) = p.capacity {
        parts.push(format!("capacity={c}"));
    }
    if let Some(c) = p.count {
        parts.push(format!("erased={c}"));
    }
    if let Some(f) = p.flags {
        parts.push(format!("flags={f}"));
    }
    if let Some(e) = p.expiration_period {
        parts.push(format!("expires={e}ms"));
    }
    parts.join(" ")
}

fn report(json: bool, what: &str, r: &ControlResponse, ok: &[u64]) -> anyhow::Result<()> {
    let body = r.body.clone().unwrap_or_default();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "statusCode": r.code, "statusText": r.text, "parameters": params_json(&body)
            }))
            .unwrap_or_default()
        );
    } else if ok.contains(&r.code) {
        let label = if r.code == 409 { "face-exists" } else { what };
        if what.starts_with("route-") {
            println!("{label} {}", route_text(&body));
        } else if what == "face-created" || what == "face-updated" {
            println!("{label} {}", face_text(&body));
        } else {
            println!("{label} {}", params_text(&body));
        }
    }
    if !ok.contains(&r.code) {
        let text = if what.starts_with("face-") {
            face_text(&body)
        } else {
            params_text(&body)
        };
        anyhow::bail!("{} {} ({text})", r.code, r.text);
    }
    Ok(())
}
