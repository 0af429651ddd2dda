//! Small TLV helpers for management structures (not on the data path):
//! a nesting writer and a flat reader of sibling elements.

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv;
use ndnlab_wire::Name;

/// Builds nested TLVs; children are encoded into their own buffer first.
#[derive(Default)]
pub struct TlvWriter {
    buf: BytesMut,
}

impl TlvWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn nni(&mut self, typ: u64, n: u64) -> &mut Self {
        tlv::put_nni_tlv(&mut self.buf, typ, n);
        self
    }

    pub fn bytes(&mut self, typ: u64, v: &[u8]) -> &mut Self {
        tlv::put_tlv(&mut self.buf, typ, v);
        self
    }

    pub fn string(&mut self, typ: u64, s: &str) -> &mut Self {
        self.bytes(typ, s.as_bytes())
    }

    /// Writes a Name TLV (type 7).
    pub fn name(&mut self, n: &Name) -> &mut Self {
        n.encode(&mut self.buf);
        self
    }

    /// Writes an already-encoded TLV.
    pub fn raw(&mut self, wire: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(wire);
        self
    }

    pub fn nested(&mut self, typ: u64, f: impl FnOnce(&mut TlvWriter)) -> &mut Self {
        let mut child = TlvWriter::new();
        f(&mut child);
        tlv::put_tlv(&mut self.buf, typ, &child.buf);
        self
    }

    pub fn finish(self) -> Bytes {
        self.buf.freeze()
    }
}

/// A TLV element of a management structure.
#[derive(Debug, Clone)]
pub struct Field {
    pub typ: u64,
    /// The whole TLV.
    pub wire: Bytes,
    /// The TLV-VALUE.
    pub value: Bytes,
}

impl Field {
    pub fn nni(&self) -> Result<u64, String> {
        tlv::read_nni(&self.value)
            .map_err(|_| format!("TLV {} is not a NonNegativeInteger", self.typ))
    }

    pub fn string(&self) -> Result<String, String> {
        String::from_utf8(self.value.to_vec()).map_err(|_| format!("TLV {} is not UTF-8", self.typ))
    }

    pub fn name(&self) -> Result<Name, String> {
        Name::decode(self.wire.clone()).map_err(|e| e.reason().to_string())
    }

    pub fn children(&self) -> Result<Vec<Field>, String> {
        fields(&self.value)
    }
}

/// Reads the sibling TLVs filling `buf`.
pub fn fields(buf: &Bytes) -> Result<Vec<Field>, String> {
    let mut out = Vec::new();
    for e in tlv::elements(buf) {
        let e = e.map_err(|e| format!("malformed TLV: {}", e.reason()))?;
        out.push(Field {
            typ: e.typ,
            wire: buf.slice(e.range()),
            value: buf.slice(e.value.clone()),
        });
    }
    Ok(out)
}
