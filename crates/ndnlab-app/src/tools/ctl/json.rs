//! The JSON of `ndnlab ctl --json`, pretty-printed: a record is an object of
//! its fields in NFD's names (repeated next hops and routes as arrays
//! `nexthops`, `routes`), a listing an array of them, and a command's outcome
//! `{statusCode, statusText, parameters}`.

use ndnlab_proto::mgmt::dataset::{Record, Value};
use ndnlab_proto::mgmt::params::ControlParameters;

use super::{Outcome, Status, STATUS_SECTIONS};

/// A record as a JSON object.
pub fn to_json(r: &Record) -> serde_json::Value {
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

/// One record, pretty-printed.
pub fn record(r: &Record) -> String {
    serde_json::to_string_pretty(&to_json(r)).unwrap_or_default()
}

/// A listing, pretty-printed as an array.
pub fn list(rs: &[Record]) -> String {
    let v: Vec<_> = rs.iter().map(to_json).collect();
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// `status/general`'s fields, plus the non-empty sections of `status/limits`
/// as objects `limits`, `drops`, `verify`, `used`.
pub fn status(s: &Status) -> String {
    let mut v = to_json(&s.general);
    if let serde_json::Value::Object(m) = &mut v {
        for (section, _, prefix) in STATUS_SECTIONS {
            let o: serde_json::Map<_, _> = s
                .section(prefix)
                .map(|(k, n)| (k.to_string(), n.into()))
                .collect();
            if !o.is_empty() {
                m.insert(section.into(), o.into());
            }
        }
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// A command's response: `{statusCode, statusText, parameters}`.
pub fn outcome(o: &Outcome) -> String {
    let r = &o.response;
    let body = r.body.clone().unwrap_or_default();
    serde_json::to_string_pretty(&serde_json::json!({
        "statusCode": r.code, "statusText": r.text, "parameters": params_json(&body)
    }))
    .unwrap_or_default()
}

/// ControlParameters as an object of the fields present, in NFD's names.
pub fn params_json(p: &ControlParameters) -> serde_json::Value {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_records_become_arrays() {
        let hop = |id| Value::Record(Record(vec![("faceId".into(), Value::Number(id))]));
        let r = Record(vec![
            ("name".into(), Value::Text("/a".into())),
            ("nexthop".into(), hop(1)),
            ("nexthop".into(), hop(2)),
        ]);
        let j = to_json(&r);
        assert_eq!(j["name"], "/a");
        assert_eq!(j["nexthops"][1]["faceId"], 2);
        let p = ControlParameters {
            face_id: Some(3),
            uri: Some("udp4://x".into()),
            ..Default::default()
        };
        assert_eq!(
            params_json(&p),
            serde_json::json!({"faceId": 3, "remote": "udp4://x"})
        );
    }
}
