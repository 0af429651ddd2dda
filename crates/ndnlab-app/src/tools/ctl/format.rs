//! The text of `ndnlab ctl`, in nfdc's style: dataset listings one record a
//! line, `key=value` fields, and the one line a command prints.
//! The listings end every line with a newline.

use ndnlab_proto::mgmt::dataset::{Record, Value};
use ndnlab_proto::mgmt::params::ControlParameters;

use super::face::{CONGESTION_MARKING, LOCAL_FIELDS, LP_RELIABILITY};
use super::{Outcome, Status, CS_ENABLE_ADMIT, CS_ENABLE_SERVE, STATUS_SECTIONS};

/// `General forwarder status:` with one right-aligned `key=value` line per
/// field, then the non-empty sections of `status/limits`.
pub fn status(s: &Status) -> String {
    let mut out = String::from("General forwarder status:\n");
    for (k, v) in &s.general.0 {
        out += &format!("{:>25}={}\n", k, show(v));
    }
    for (_, title, prefix) in STATUS_SECTIONS {
        let mut rows = s.section(prefix).peekable();
        if rows.peek().is_some() {
            out += &format!("{title}\n");
            for (k, n) in rows {
                out += &format!("{:>25}={}\n", k, n);
            }
        }
    }
    out
}

/// A field value: a number, a text, or a nested record as `{k=v ...}`.
pub fn show(v: &Value) -> String {
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

/// faces/list, a [`face_line`] per face.
pub fn faces(recs: &[Record]) -> String {
    recs.iter().map(|r| face_line(r) + "\n").collect()
}

/// One face of faces/list, as nfdc's `face list` shows it.
pub fn face_line(r: &Record) -> String {
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
    flags.extend(flag_names(n("flags")));
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

/// nfdc's names of the face flags set in `flags`.
pub fn flag_names(flags: u64) -> Vec<&'static str> {
    let mut v = Vec::new();
    if flags & LOCAL_FIELDS != 0 {
        v.push("local-fields");
    }
    if flags & LP_RELIABILITY != 0 {
        v.push("lp-reliability");
    }
    if flags & CONGESTION_MARKING != 0 {
        v.push("congestion-marking");
    }
    v
}

/// rib/list, a line per route:
/// `prefix=/a nexthop=300 origin=static cost=0 flags=child-inherit expires=never`.
pub fn routes(recs: &[Record]) -> String {
    let mut out = String::new();
    for r in recs {
        for route in r.all("route") {
            out += &format!(
                "prefix={} nexthop={} origin={} cost={} flags={} expires={}\n",
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
    out
}

/// fib/list, a line per entry: `/a nexthops={faceid=300 (cost=0), ...}`.
pub fn fib(recs: &[Record]) -> String {
    let mut out = String::new();
    for r in recs {
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
        out += &format!(
            "{} nexthops={{{}}}\n",
            r.text("name").unwrap_or("?"),
            hops.join(", ")
        );
    }
    out
}

/// strategy-choice/list, a line per choice: `prefix=/a strategy=/localhost/...`.
pub fn strategies(recs: &[Record]) -> String {
    recs.iter()
        .map(|r| {
            format!(
                "prefix={} strategy={}\n",
                r.text("name").unwrap_or("?"),
                r.text("strategy").unwrap_or("?")
            )
        })
        .collect()
}

/// cs/info: `CS information:` and the capacity, admit, serve and counters.
pub fn cs_info(r: &Record) -> String {
    let flags = r.num("flags").unwrap_or(0);
    let on = |bit: u64| if flags & bit != 0 { "on" } else { "off" };
    format!(
        "CS information:\n  capacity={}\n     admit={}\n     serve={}\n  nEntries={}\n     nHits={}\n   nMisses={}\n",
        r.num("capacity").unwrap_or(0),
        on(CS_ENABLE_ADMIT),
        on(CS_ENABLE_SERVE),
        r.num("nEntries").unwrap_or(0),
        r.num("nHits").unwrap_or(0),
        r.num("nMisses").unwrap_or(0)
    )
}

/// nfdc's names of route origins (others as numbers).
pub fn origin_name(o: u64) -> String {
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

/// nfdc's route flags: `child-inherit|capture`, or `none`.
pub fn route_flags(f: u64) -> String {
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

/// The line of a command that succeeded: what it did (`face-exists` for a 409)
/// and the response's parameters.
pub fn outcome(o: &Outcome) -> String {
    let body = o.response.body.clone().unwrap_or_default();
    let label = if o.response.code == 409 {
        "face-exists"
    } else {
        o.what
    };
    if o.what.starts_with("route-") {
        format!("{label} {}", route_text(&body))
    } else if o.what == "face-created" || o.what == "face-updated" {
        format!("{label} {}", face_text(&body))
    } else {
        format!("{label} {}", params_text(&body))
    }
}

/// The parameters of a command that failed, for its error.
pub fn failure(o: &Outcome) -> String {
    let body = o.response.body.clone().unwrap_or_default();
    if o.what.starts_with("face-") {
        face_text(&body)
    } else {
        params_text(&body)
    }
}

/// nfdc's route output: `prefix=/a nexthop=300 origin=static cost=0 flags=child-inherit expires=never`.
pub fn route_text(p: &ControlParameters) -> String {
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
pub fn face_text(p: &ControlParameters) -> String {
    let mut parts = Vec::new();
    if let Some(id) = p.face_id {
        parts.push(format!("id={id}"));
    }
    face_endpoints(p, &mut parts);
    if let Some(f) = p.flags {
        let on = |bit: u64| if f & bit != 0 { "on" } else { "off" };
        if f & LOCAL_FIELDS != 0 {
            parts.push("local-fields=on".into());
        }
        parts.push(format!("reliability={}", on(LP_RELIABILITY)));
        parts.push(format!("congestion-marking={}", on(CONGESTION_MARKING)));
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

/// The parameters of any other command: `id=... prefix=... strategy=...`.
pub fn params_text(p: &ControlParameters) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_proto::mgmt::params::ControlResponse;

    fn outcome(what: &'static str, code: u64, body: ControlParameters) -> Outcome {
        Outcome {
            what,
            response: ControlResponse {
                code,
                text: "why".into(),
                body: Some(body),
            },
            ok: &[200, 409],
        }
    }

    #[test]
    fn command_lines_in_nfdc_style() {
        let route = ControlParameters {
            name: Some("/a".parse().unwrap()),
            face_id: Some(300),
            origin: Some(255),
            cost: Some(0),
            flags: Some(1),
            ..Default::default()
        };
        assert_eq!(
            super::outcome(&outcome("route-add-accepted", 200, route)),
            "route-add-accepted prefix=/a nexthop=300 origin=static cost=0 flags=child-inherit expires=never"
        );
        let face = ControlParameters {
            face_id: Some(7),
            face_persistency: Some(2),
            flags: Some(LP_RELIABILITY),
            mtu: Some(1400),
            ..Default::default()
        };
        let o = outcome("face-created", 409, face);
        assert_eq!(
            super::outcome(&o),
            "face-exists id=7 persistency=permanent reliability=on congestion-marking=off mtu=1400"
        );
        assert_eq!(
            failure(&o),
            "id=7 persistency=permanent reliability=on congestion-marking=off mtu=1400"
        );
        assert_eq!(route_flags(3), "child-inherit|capture");
        assert_eq!(route_flags(0), "none");
        assert_eq!(origin_name(7), "7");
        assert_eq!(flag_names(5), ["local-fields", "congestion-marking"]);
    }
}
