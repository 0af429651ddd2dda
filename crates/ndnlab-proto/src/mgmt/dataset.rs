//! Status dataset records (NFD's field order) and their generic decoding.
//!
//! The daemon encodes typed records; `ndnlab ctl` decodes any dataset through
//! [`decode_records`] with a field-name table per dataset, which also gives `--json`.

use bytes::Bytes;
use ndnlab_wire::Name;

use super::codec::{fields, Field, TlvWriter};

/// TLV numbers of dataset fields.
pub mod tt {
    pub const FACE_STATUS: u64 = 128;
    pub const CHANNEL_STATUS: u64 = 130;
    pub const FACE_EVENT_NOTIFICATION: u64 = 192;
    pub const FACE_EVENT_KIND: u64 = 193;
    pub const FACE_QUERY_FILTER: u64 = 150;
    pub const URI_SCHEME: u64 = 131;
    pub const FACE_ID: u64 = 105;
    pub const URI: u64 = 114;
    pub const LOCAL_URI: u64 = 129;
    pub const EXPIRATION_PERIOD: u64 = 109;
    pub const FACE_SCOPE: u64 = 132;
    pub const FACE_PERSISTENCY: u64 = 133;
    pub const LINK_TYPE: u64 = 134;
    pub const BASE_CONGESTION_MARKING_INTERVAL: u64 = 135;
    pub const DEFAULT_CONGESTION_THRESHOLD: u64 = 136;
    pub const MTU: u64 = 137;
    pub const FLAGS: u64 = 108;
    pub const N_IN_INTERESTS: u64 = 144;
    pub const N_IN_DATA: u64 = 145;
    pub const N_OUT_INTERESTS: u64 = 146;
    pub const N_OUT_DATA: u64 = 147;
    pub const N_IN_BYTES: u64 = 148;
    pub const N_OUT_BYTES: u64 = 149;
    pub const N_IN_NACKS: u64 = 151;
    pub const N_OUT_NACKS: u64 = 152;
    pub const N_SATISFIED: u64 = 153;
    pub const N_UNSATISFIED: u64 = 154;
    pub const ENTRY: u64 = 128;
    pub const NEXT_HOP_RECORD: u64 = 129;
    pub const ROUTE: u64 = 129;
    pub const COST: u64 = 106;
    pub const ORIGIN: u64 = 111;
    pub const STRATEGY: u64 = 107;
    pub const CAPACITY: u64 = 131;
    pub const N_CS_ENTRIES: u64 = 135;
    pub const N_HITS: u64 = 129;
    pub const N_MISSES: u64 = 130;
}

/// One face as reported by faces/list, faces/query and faces/events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaceStatus {
    pub face_id: u64,
    pub uri: String,
    pub local_uri: String,
    pub expiration_period: Option<u64>,
    /// 0 non-local, 1 local.
    pub scope: u64,
    /// 0 persistent, 1 on-demand, 2 permanent.
    pub persistency: u64,
    /// 0 point-to-point, 1 multi-access.
    pub link_type: u64,
    pub base_congestion_marking_interval: Option<u64>,
    pub default_congestion_threshold: Option<u64>,
    pub mtu: Option<u64>,
    pub n_in_interests: u64,
    pub n_in_data: u64,
    pub n_in_nacks: u64,
    pub n_out_interests: u64,
    pub n_out_data: u64,
    pub n_out_nacks: u64,
    pub n_in_bytes: u64,
    pub n_out_bytes: u64,
    pub flags: u64,
}

impl FaceStatus {
    /// FaceId, Uri and LocalUri.
    fn encode_identity(&self, w: &mut TlvWriter) {
        w.nni(tt::FACE_ID, self.face_id)
            .string(tt::URI, &self.uri)
            .string(tt::LOCAL_URI, &self.local_uri);
    }

    /// FaceScope, FacePersistency and LinkType.
    fn encode_kind(&self, w: &mut TlvWriter) {
        w.nni(tt::FACE_SCOPE, self.scope)
            .nni(tt::FACE_PERSISTENCY, self.persistency)
            .nni(tt::LINK_TYPE, self.link_type);
    }

    /// A FaceStatus (128) record.
    pub fn encode(&self, w: &mut TlvWriter) {
        w.nested(tt::FACE_STATUS, |w| {
            self.encode_identity(w);
            if let Some(e) = self.expiration_period {
                w.nni(tt::EXPIRATION_PERIOD, e);
            }
            self.encode_kind(w);
            if let Some(v) = self.base_congestion_marking_interval {
                w.nni(tt::BASE_CONGESTION_MARKING_INTERVAL, v);
            }
            if let Some(v) = self.default_congestion_threshold {
                w.nni(tt::DEFAULT_CONGESTION_THRESHOLD, v);
            }
            if let Some(v) = self.mtu {
                w.nni(tt::MTU, v);
            }
            w.nni(tt::N_IN_INTERESTS, self.n_in_interests)
                .nni(tt::N_IN_DATA, self.n_in_data)
                .nni(tt::N_IN_NACKS, self.n_in_nacks)
                .nni(tt::N_OUT_INTERESTS, self.n_out_interests)
                .nni(tt::N_OUT_DATA, self.n_out_data)
                .nni(tt::N_OUT_NACKS, self.n_out_nacks)
                .nni(tt::N_IN_BYTES, self.n_in_bytes)
                .nni(tt::N_OUT_BYTES, self.n_out_bytes)
                .nni(tt::FLAGS, self.flags);
        });
    }

    /// A FaceEventNotification (192) record; kind 1 created, 2 destroyed, 3 up,
    /// 4 down. It carries exactly the management protocol's fields (FaceEventKind,
    /// FaceId, Uri, LocalUri, FaceScope, FacePersistency, LinkType, Flags): ndn-cxx
    /// rejects a notification with FaceStatus's other fields in between.
    pub fn encode_event(&self, kind: u64) -> Bytes {
        let mut w = TlvWriter::new();
        w.nested(tt::FACE_EVENT_NOTIFICATION, |w| {
            w.nni(tt::FACE_EVENT_KIND, kind);
            self.encode_identity(w);
            self.encode_kind(w);
            w.nni(tt::FLAGS, self.flags);
        });
        w.finish()
    }
}

/// ForwarderStatus (status/general): fields directly in the Content.
#[derive(Debug, Clone, Default)]
pub struct ForwarderStatus {
    pub version: String,
    pub start_ms: u64,
    pub current_ms: u64,
    pub n_name_tree: u64,
    pub n_fib: u64,
    pub n_pit: u64,
    pub n_measurements: u64,
    pub n_cs: u64,
    pub n_in_interests: u64,
    pub n_in_data: u64,
    pub n_in_nacks: u64,
    pub n_out_interests: u64,
    pub n_out_data: u64,
    pub n_out_nacks: u64,
    pub n_satisfied: u64,
    pub n_unsatisfied: u64,
}

impl ForwarderStatus {
    pub fn encode(&self, w: &mut TlvWriter) {
        w.string(128, &self.version)
            .nni(129, self.start_ms)
            .nni(130, self.current_ms)
            .nni(131, self.n_name_tree)
            .nni(132, self.n_fib)
            .nni(133, self.n_pit)
            .nni(134, self.n_measurements)
            .nni(135, self.n_cs)
            .nni(tt::N_IN_INTERESTS, self.n_in_interests)
            .nni(tt::N_IN_DATA, self.n_in_data)
            .nni(tt::N_IN_NACKS, self.n_in_nacks)
            .nni(tt::N_OUT_INTERESTS, self.n_out_interests)
            .nni(tt::N_OUT_DATA, self.n_out_data)
            .nni(tt::N_OUT_NACKS, self.n_out_nacks)
            .nni(tt::N_SATISFIED, self.n_satisfied)
            .nni(tt::N_UNSATISFIED, self.n_unsatisfied);
    }
}

/// cs/info.
#[derive(Debug, Clone, Default)]
pub struct CsInfoRecord {
    pub capacity: u64,
    /// bit 0 admit, bit 1 serve.
    pub flags: u64,
    pub n_entries: u64,
    pub n_hits: u64,
    pub n_misses: u64,
}

impl CsInfoRecord {
    pub fn encode(&self, w: &mut TlvWriter) {
        w.nested(tt::ENTRY, |w| {
            w.nni(tt::CAPACITY, self.capacity)
                .nni(tt::FLAGS, self.flags)
                .nni(tt::N_CS_ENTRIES, self.n_entries)
                .nni(tt::N_HITS, self.n_hits)
                .nni(tt::N_MISSES, self.n_misses);
        });
    }
}

/// A FibEntry record.
pub fn encode_fib_entry(w: &mut TlvWriter, name: &Name, hops: impl Iterator<Item = (u64, u64)>) {
    w.nested(tt::ENTRY, |w| {
        w.name(name);
        for (face, cost) in hops {
            w.nested(tt::NEXT_HOP_RECORD, |w| {
                w.nni(tt::FACE_ID, face).nni(tt::COST, cost);
            });
        }
    });
}

/// One Route of a RibEntry record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteRecord {
    pub face_id: u64,
    pub origin: u64,
    pub cost: u64,
    pub flags: u64,
    /// Milliseconds left, `None` = never expires.
    pub expiration_period_ms: Option<u64>,
}

/// A RibEntry record.
pub fn encode_rib_entry(w: &mut TlvWriter, name: &Name, routes: impl Iterator<Item = RouteRecord>) {
    w.nested(tt::ENTRY, |w| {
        w.name(name);
        for r in routes {
            w.nested(tt::ROUTE, |w| {
                w.nni(tt::FACE_ID, r.face_id)
                    .nni(tt::ORIGIN, r.origin)
                    .nni(tt::COST, r.cost)
                    .nni(tt::FLAGS, r.flags);
                if let Some(ms) = r.expiration_period_ms {
                    w.nni(tt::EXPIRATION_PERIOD, ms);
                }
            });
        }
    });
}

/// A StrategyChoice record.
pub fn encode_strategy_choice(w: &mut TlvWriter, name: &Name, strategy: &Name) {
    w.nested(tt::ENTRY, |w| {
        w.name(name);
        w.nested(tt::STRATEGY, |w| {
            w.name(strategy);
        });
    });
}

/// A ChannelStatus record.
pub fn encode_channel(w: &mut TlvWriter, local_uri: &str) {
    w.nested(tt::CHANNEL_STATUS, |w| {
        w.string(tt::LOCAL_URI, local_uri);
    });
}

/// Which dataset a payload belongs to (selects the field-name table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetKind {
    General,
    Faces,
    Channels,
    Fib,
    Rib,
    Cs,
    Strategy,
    FaceEvent,
}

fn field_name(kind: DatasetKind, parent: Option<u64>, typ: u64) -> String {
    use DatasetKind::*;
    let s = match (kind, parent, typ) {
        (_, _, 7) => "name",
        (General, None, 128) => "version",
        (General, None, 129) => "startTimestamp",
        (General, None, 130) => "currentTimestamp",
        (General, None, 131) => "nNameTreeEntries",
        (General, None, 132) => "nFibEntries",
        (General, None, 133) => "nPitEntries",
        (General, None, 134) => "nMeasurementsEntries",
        (General, None, 135) => "nCsEntries",
        (Faces | FaceEvent, _, 193) => "kind",
        (Faces | FaceEvent | Channels, _, 105) => "faceId",
        (Faces | FaceEvent | Channels, _, 114) => "remote",
        (Faces | FaceEvent | Channels, _, 129) => "local",
        (Faces | FaceEvent, _, 109) => "expirationPeriod",
        (Faces | FaceEvent, _, 132) => "scope",
        (Faces | FaceEvent, _, 133) => "persistency",
        (Faces | FaceEvent, _, 134) => "linkType",
        (Faces | FaceEvent, _, 135) => "baseCongestionMarkingInterval",
        (Faces | FaceEvent, _, 136) => "defaultCongestionThreshold",
        (Faces | FaceEvent, _, 137) => "mtu",
        (Cs, _, 131) => "capacity",
        (Cs, _, 135) => "nEntries",
        (Cs, _, 129) => "nHits",
        (Cs, _, 130) => "nMisses",
        (Fib, Some(128), 129) => "nexthop",
        (Rib, Some(128), 129) => "route",
        (_, _, 105) => "faceId",
        (_, _, 106) => "cost",
        (_, _, 108) => "flags",
        (_, _, 109) => "expirationPeriod",
        (_, _, 111) => "origin",
        (Strategy, _, 107) => "strategy",
        (_, _, 144) => "nInInterests",
        (_, _, 145) => "nInData",
        (_, _, 146) => "nOutInterests",
        (_, _, 147) => "nOutData",
        (_, _, 148) => "nInBytes",
        (_, _, 149) => "nOutBytes",
        (_, _, 151) => "nInNacks",
        (_, _, 152) => "nOutNacks",
        (_, _, 153) => "nSatisfiedInterests",
        (_, _, 154) => "nUnsatisfiedInterests",
        _ => return format!("tlv{typ}"),
    };
    s.to_string()
}

/// A decoded dataset value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number(u64),
    Text(String),
    Record(Record),
}

/// A decoded record: (field name, value) in wire order; repeated fields repeat.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record(pub Vec<(String, Value)>);

impl Record {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn num(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.0.iter().filter_map(move |(k, v)| match v {
            Value::Record(r) if k == key => Some(r),
            _ => None,
        })
    }
}

fn decode_value(kind: DatasetKind, parent: Option<u64>, f: &Field) -> Result<Value, String> {
    let nested = matches!(
        (kind, parent, f.typ),
        (DatasetKind::Fib, Some(128), 129)
            | (DatasetKind::Rib, Some(128), 129)
            | (DatasetKind::Strategy, _, 107)
    );
    if nested {
        let mut r = Record::default();
        for c in f.children()? {
            r.0.push((
                field_name(kind, Some(f.typ), c.typ),
                decode_value(kind, Some(f.typ), &c)?,
            ));
        }
        // A Strategy holds only a Name: flatten it.
        if f.typ == 107 {
            if let Some(v) = r.get("name") {
                return Ok(v.clone());
            }
        }
        return Ok(Value::Record(r));
    }
    if f.typ == 7 {
        return Ok(Value::Text(f.name()?.to_string()));
    }
    let textual = matches!(f.typ, 114 | 129 if !matches!(kind, DatasetKind::Cs | DatasetKind::General))
        || (kind == DatasetKind::General && f.typ == 128 && parent.is_none());
    if textual {
        return Ok(Value::Text(f.string()?));
    }
    Ok(Value::Number(f.nni()?))
}

/// Decodes a dataset payload into records. `status/general` yields one record.
pub fn decode_records(kind: DatasetKind, payload: &Bytes) -> Result<Vec<Record>, String> {
    let top = fields(payload)?;
    if kind == DatasetKind::General {
        let mut r = Record::default();
        for f in &top {
            r.0.push((field_name(kind, None, f.typ), decode_value(kind, None, f)?));
        }
        return Ok(vec![r]);
    }
    let mut out = Vec::new();
    for rec in top {
        let mut r = Record::default();
        for f in rec.children()? {
            r.0.push((
                field_name(kind, Some(rec.typ), f.typ),
                decode_value(kind, Some(rec.typ), &f)?,
            ));
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_status_decodes_generically() {
        let fs = FaceStatus {
            face_id: 300,
            uri: "fd://7".into(),
            local_uri: "unix:///run/nfd/nfd.sock".into(),
            scope: 1,
            persistency: 1,
            n_in_interests: 5,
            ..Default::default()
        };
        let mut w = TlvWriter::new();
        fs.encode(&mut w);
        let recs = decode_records(DatasetKind::Faces, &w.finish()).unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].num("faceId"), Some(300));
        assert_eq!(recs[0].text("remote"), Some("fd://7"));
        assert_eq!(recs[0].num("nInInterests"), Some(5));
    }

    #[test]
    fn fib_and_strategy_records() {
        let mut w = TlvWriter::new();
        encode_fib_entry(
            &mut w,
            &Name::from_uri("/a").unwrap(),
            [(300, 1), (301, 2)].into_iter(),
        );
        let recs = decode_records(DatasetKind::Fib, &w.finish()).unwrap();
        assert_eq!(recs[0].text("name"), Some("/a"));
        assert_eq!(recs[0].all("nexthop").count(), 2);
        let mut w = TlvWriter::new();
        let s = Name::from_uri("/localhost/nfd/strategy/best-route/v=5").unwrap();
        encode_strategy_choice(&mut w, &Name::from_uri("/").unwrap(), &s);
        let recs = decode_records(DatasetKind::Strategy, &w.finish()).unwrap();
        assert_eq!(recs[0].text("strategy"), Some(s.to_string().as_str()));
    }
}
