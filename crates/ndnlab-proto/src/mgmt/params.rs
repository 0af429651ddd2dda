//! ControlParameters (104) and ControlResponse (101) of the NFD management protocol.
//!
//! Encoding follows ndn-cxx's field order (python-ndn parses in that order);
//! decoding accepts any order and says precisely what is wrong, which becomes the
//! StatusText of a 400 response.

use bytes::Bytes;
use ndnlab_wire::Name;

use super::codec::{fields, TlvWriter};

pub mod tt {
    pub const CONTROL_RESPONSE: u64 = 101;
    pub const STATUS_CODE: u64 = 102;
    pub const STATUS_TEXT: u64 = 103;
    pub const CONTROL_PARAMETERS: u64 = 104;
    pub const NAME: u64 = 7;
    pub const FACE_ID: u64 = 105;
    pub const URI: u64 = 114;
    pub const LOCAL_URI: u64 = 129;
    pub const ORIGIN: u64 = 111;
    pub const COST: u64 = 106;
    pub const CAPACITY: u64 = 131;
    pub const COUNT: u64 = 132;
    pub const FLAGS: u64 = 108;
    pub const MASK: u64 = 112;
    pub const STRATEGY: u64 = 107;
    pub const EXPIRATION_PERIOD: u64 = 109;
    pub const FACE_PERSISTENCY: u64 = 133;
    pub const BASE_CONGESTION_MARKING_INTERVAL: u64 = 135;
    pub const DEFAULT_CONGESTION_THRESHOLD: u64 = 136;
    pub const MTU: u64 = 137;
}

/// Route flags.
pub const ROUTE_CHILD_INHERIT: u64 = 1;
pub const ROUTE_CAPTURE: u64 = 2;

/// ControlParameters: every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControlParameters {
    pub name: Option<Name>,
    pub face_id: Option<u64>,
    pub uri: Option<String>,
    pub local_uri: Option<String>,
    pub origin: Option<u64>,
    pub cost: Option<u64>,
    pub capacity: Option<u64>,
    pub count: Option<u64>,
    pub flags: Option<u64>,
    pub mask: Option<u64>,
    pub strategy: Option<Name>,
    pub expiration_period: Option<u64>,
    pub face_persistency: Option<u64>,
    pub base_congestion_marking_interval: Option<u64>,
    pub default_congestion_threshold: Option<u64>,
    pub mtu: Option<u64>,
}

impl ControlParameters {
    /// Decodes a whole ControlParameters TLV.
    pub fn decode(wire: &Bytes) -> Result<ControlParameters, String> {
        let top = fields(wire)?;
        let [outer] = top.as_slice() else {
            return Err("expected exactly one ControlParameters element".into());
        };
        if outer.typ != tt::CONTROL_PARAMETERS {
            return Err(format!(
                "expected ControlParameters (104), got TLV {}",
                outer.typ
            ));
        }
        Self::decode_value(&outer.value)
    }

    /// Decodes the TLV-VALUE of a ControlParameters.
    pub fn decode_value(value: &Bytes) -> Result<ControlParameters, String> {
        let mut p = ControlParameters::default();
        for f in fields(value)? {
            match f.typ {
                tt::NAME => p.name = Some(f.name().map_err(|e| format!("Name: {e}"))?),
                tt::FACE_ID => p.face_id = Some(f.nni()?),
                tt::URI => p.uri = Some(f.string()?),
                tt::LOCAL_URI => p.local_uri = Some(f.string()?),
                tt::ORIGIN => p.origin = Some(f.nni()?),
                tt::COST => p.cost = Some(f.nni()?),
                tt::CAPACITY => p.capacity = Some(f.nni()?),
                tt::COUNT => p.count = Some(f.nni()?),
                tt::FLAGS => p.flags = Some(f.nni()?),
                tt::MASK => p.mask = Some(f.nni()?),
                tt::STRATEGY => {
                    let inner = f.children()?;
                    let [n] = inner.as_slice() else {
                        return Err("Strategy must hold exactly one Name".into());
                    };
                    if n.typ != tt::NAME {
                        return Err("Strategy must hold a Name".into());
                    }
                    p.strategy = Some(n.name().map_err(|e| format!("Strategy: {e}"))?);
                }
                tt::EXPIRATION_PERIOD => p.expiration_period = Some(f.nni()?),
                tt::FACE_PERSISTENCY => p.face_persistency = Some(f.nni()?),
                tt::BASE_CONGESTION_MARKING_INTERVAL => {
                    p.base_congestion_marking_interval = Some(f.nni()?)
                }
                tt::DEFAULT_CONGESTION_THRESHOLD => p.default_congestion_threshold = Some(f.nni()?),
                tt::MTU => p.mtu = Some(f.nni()?),
                other if ndnlab_wire::tlv::is_critical(other) => {
                    return Err(format!("unknown critical TLV {other} in ControlParameters"))
                }
                _ => {}
            }
        }
        Ok(p)
    }

    /// Writes the TLV-VALUE fields in ndn-cxx's order.
    pub fn encode_fields(&self, w: &mut TlvWriter) {
        if let Some(n) = &self.name {
            w.name(n);
        }
        let nni = |w: &mut TlvWriter, t, v: Option<u64>| {
            if let Some(v) = v {
                w.nni(t, v);
            }
        };
        nni(w, tt::FACE_ID, self.face_id);
        if let Some(u) = &self.uri {
            w.string(tt::URI, u);
        }
        if let Some(u) = &self.local_uri {
            w.string(tt::LOCAL_URI, u);
        }
        nni(w, tt::ORIGIN, self.origin);
        nni(w, tt::COST, self.cost);
        nni(w, tt::CAPACITY, self.capacity);
        nni(w, tt::COUNT, self.count);
        nni(w, tt::FLAGS, self.flags);
        nni(w, tt::MASK, self.mask);
        if let Some(s) = &self.strategy {
            w.nested(tt::STRATEGY, |w| {
                w.name(s);
            });
        }
        nni(w, tt::EXPIRATION_PERIOD, self.expiration_period);
        nni(w, tt::FACE_PERSISTENCY, self.face_persistency);
        nni(
            w,
            tt::BASE_CONGESTION_MARKING_INTERVAL,
            self.base_congestion_marking_interval,
        );
        nni(
            w,
            tt::DEFAULT_CONGESTION_THRESHOLD,
            self.default_congestion_threshold,
        );
        nni(w, tt::MTU, self.mtu);
    }

    /// The whole ControlParameters TLV.
    pub fn encode(&self) -> Bytes {
        let mut w = TlvWriter::new();
        w.nested(tt::CONTROL_PARAMETERS, |w| self.encode_fields(w));
        w.finish()
    }
}

/// ControlResponse: status and (always, unlike NFD on errors) a ControlParameters body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlResponse {
    pub code: u64,
    pub text: String,
    pub body: Option<ControlParameters>,
}

impl ControlResponse {
    pub fn ok(body: ControlParameters) -> Self {
        ControlResponse {
            code: 200,
            text: "OK".into(),
            body: Some(body),
        }
    }

    pub fn error(code: u64, text: impl Into<String>, body: ControlParameters) -> Self {
        ControlResponse {
            code,
            text: text.into(),
            body: Some(body),
        }
    }

    pub fn encode(&self) -> Bytes {
        let mut w = TlvWriter::new();
        w.nested(tt::CONTROL_RESPONSE, |w| {
            w.nni(tt::STATUS_CODE, self.code);
            w.string(tt::STATUS_TEXT, &self.text);
            if let Some(b) = &self.body {
                w.nested(tt::CONTROL_PARAMETERS, |w| b.encode_fields(w));
            }
        });
        w.finish()
    }

    pub fn decode(wire: &Bytes) -> Result<ControlResponse, String> {
        let top = fields(wire)?;
        let [outer] = top.as_slice() else {
            return Err("expected one ControlResponse".into());
        };
        if outer.typ != tt::CONTROL_RESPONSE {
            return Err(format!(
                "expected ControlResponse (101), got TLV {}",
                outer.typ
            ));
        }
        let mut code = None;
        let mut text = String::new();
        let mut body = None;
        for f in outer.children()? {
            match f.typ {
                tt::STATUS_CODE => code = Some(f.nni()?),
                tt::STATUS_TEXT => text = f.string()?,
                tt::CONTROL_PARAMETERS => body = Some(ControlParameters::decode_value(&f.value)?),
                _ => {}
            }
        }
        Ok(ControlResponse {
            code: code.ok_or("ControlResponse without StatusCode")?,
            text,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_round_trip_in_cxx_order() {
        let p = ControlParameters {
            name: Some(Name::from_uri("/a/b").unwrap()),
            face_id: Some(300),
            origin: Some(0),
            cost: Some(10),
            flags: Some(1),
            strategy: Some(Name::from_uri("/localhost/nfd/strategy/best-route").unwrap()),
            expiration_period: Some(3_600_000),
            ..Default::default()
        };
        let wire = p.encode();
        assert_eq!(ControlParameters::decode(&wire).unwrap(), p);
        let top = fields(&wire).unwrap();
        let types: Vec<u64> = top[0].children().unwrap().iter().map(|f| f.typ).collect();
        assert_eq!(types, vec![7, 105, 111, 106, 108, 107, 109]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let bad = Bytes::from_static(&[104, 3, 105, 3, 1]);
        assert!(ControlParameters::decode(&bad)
            .unwrap_err()
            .contains("malformed"));
        let bad = Bytes::from_static(&[104, 5, 105, 3, 1, 2, 3]);
        assert!(ControlParameters::decode(&bad)
            .unwrap_err()
            .contains("NonNegativeInteger"));
        let bad = Bytes::from_static(&[7, 0]);
        assert!(ControlParameters::decode(&bad).unwrap_err().contains("104"));
    }

    #[test]
    fn response_round_trip() {
        let r = ControlResponse::error(400, "bad", ControlParameters::default());
        assert_eq!(ControlResponse::decode(&r.encode()).unwrap(), r);
    }
}
