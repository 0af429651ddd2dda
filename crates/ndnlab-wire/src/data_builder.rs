//! [`DataBuilder`]: encodes and signs a new Data packet into one buffer.

use core::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::component::{Component, OwnedComponent};
use crate::data::Data;
use crate::name::Name;
use crate::signature::{DigestSha256, SignError, SignatureInfo, Signer};
use crate::tlv::{self, types};

/// Builder of a Data packet.
#[derive(Debug, Clone)]
pub struct DataBuilder {
    name: Name,
    content_type: Option<u64>,
    freshness_ms: Option<u64>,
    final_block_id: Option<OwnedComponent>,
    content: Option<Bytes>,
    sig_info: Option<SignatureInfo>,
    empty_meta_info: bool,
}

/// Room left before the signed portion for the Data TLV header.
const HEADROOM: usize = 1 + 5;

impl DataBuilder {
    /// A builder for a Data packet named `name`.
    pub fn new(name: Name) -> Self {
        DataBuilder {
            name,
            content_type: None,
            freshness_ms: None,
            final_block_id: None,
            content: None,
            sig_info: None,
            empty_meta_info: false,
        }
    }

    /// Content (always encoded, even if empty, once set).
    pub fn content(mut self, content: impl Into<Bytes>) -> Self {
        self.content = Some(content.into());
        self
    }

    pub fn content_type(mut self, t: u64) -> Self {
        self.content_type = Some(t);
        self
    }

    pub fn freshness(mut self, d: Duration) -> Self {
        self.freshness_ms = Some(d.as_millis().min(u64::MAX as u128) as u64);
        self
    }

    pub fn freshness_ms(mut self, ms: u64) -> Self {
        self.freshness_ms = Some(ms);
        self
    }

    pub fn final_block_id(mut self, c: Component<'_>) -> Self {
        self.final_block_id = Some(c.into());
        self
    }

    /// Uses `info` instead of the signer's SignatureInfo (e.g. to add a ValidityPeriod).
    pub fn signature_info(mut self, info: SignatureInfo) -> Self {
        self.sig_info = Some(info);
        self
    }

    /// Writes a MetaInfo element even when it holds no field (some encoders
    /// such as python-ndn do; off by default).
    pub fn empty_meta_info(mut self, yes: bool) -> Self {
        self.empty_meta_info = yes;
        self
    }

    fn meta_len(&self) -> usize {
        let mut n = 0;
        if let Some(t) = self.content_type {
            n += tlv::nni_tlv_len(types::CONTENT_TYPE, t);
        }
        if let Some(f) = self.freshness_ms {
            n += tlv::nni_tlv_len(types::FRESHNESS_PERIOD, f);
        }
        if let Some(c) = &self.final_block_id {
            n += tlv::tlv_len(types::FINAL_BLOCK_ID, c.as_component().encoded_len());
        }
        n
    }

    /// Encodes and signs.
    pub fn sign(self, signer: &dyn Signer) -> Result<Bytes, SignError> {
        let info = match &self.sig_info {
            Some(i) => i.clone(),
            None => signer.signature_info(),
        };
        let meta_len = self.meta_len();
        let mut signed_len = self.name.encoded_len() + info.encoded_len(types::SIGNATURE_INFO);
        if meta_len > 0 || self.empty_meta_info {
            signed_len += tlv::tlv_len(types::META_INFO, meta_len);
        }
        if let Some(c) = &self.content {
            signed_len += tlv::tlv_len(types::CONTENT, c.len());
        }
        let max_sig = signer.max_signature_len().max(32);
        let mut out = BytesMut::with_capacity(
            HEADROOM + signed_len + tlv::tlv_len(types::SIGNATURE_VALUE, max_sig),
        );
        out.put_bytes(0, HEADROOM);
        self.name.encode(&mut out);
        if meta_len > 0 || self.empty_meta_info {
            tlv::put_header(&mut out, types::META_INFO, meta_len);
            if let Some(t) = self.content_type {
                tlv::put_nni_tlv(&mut out, types::CONTENT_TYPE, t);
            }
            if let Some(f) = self.freshness_ms {
                tlv::put_nni_tlv(&mut out, types::FRESHNESS_PERIOD, f);
            }
            if let Some(c) = &self.final_block_id {
                let c = c.as_component();
                tlv::put_header(&mut out, types::FINAL_BLOCK_ID, c.encoded_len());
                c.encode(&mut out);
            }
        }
        if let Some(c) = &self.content {
            tlv::put_tlv(&mut out, types::CONTENT, c);
        }
        info.encode(types::SIGNATURE_INFO, &mut out);
        debug_assert_eq!(out.len(), HEADROOM + signed_len);
        let value = signer.sign(&out[HEADROOM..])?;
        tlv::put_tlv(&mut out, types::SIGNATURE_VALUE, &value);
        let value_len = out.len() - HEADROOM;
        let hlen = 1 + tlv::varnum_len(value_len as u64);
        let mut header = [0u8; HEADROOM];
        let mut h = &mut header[..];
        tlv::put_header(&mut h, types::DATA, value_len);
        out[HEADROOM - hlen..HEADROOM].copy_from_slice(&header[..hlen]);
        out.advance(HEADROOM - hlen);
        Ok(out.freeze())
    }

    /// Encodes with a DigestSha256 signature (cannot fail).
    pub fn sign_digest(self) -> Bytes {
        match self.sign(&DigestSha256) {
            Ok(b) => b,
            Err(_) => Bytes::new(), // DigestSha256 never fails
        }
    }

    /// Encodes, signs and decodes.
    pub fn sign_view(self, signer: &dyn Signer) -> Result<Data, SignError> {
        let wire = self.sign(signer)?;
        Data::decode(wire).map_err(|e| SignError::Failed(e.to_string()))
    }
}
