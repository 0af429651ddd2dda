//! [`InterestBuilder`]: encodes a new Interest into one exact-size buffer,
//! computing the ParametersSha256DigestComponent and (v0.3) signatures.

use core::ops::Range;
use core::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use sha2::{Digest, Sha256};

use crate::interest::Interest;
use crate::name::Name;
use crate::signature::{SignError, SignatureInfo, Signer};
use crate::tlv::{self, types};
use crate::DecodeError;

/// Builder of an Interest. Without `.nonce(..)` the Interest carries no Nonce
/// (applications normally set a random one; the forwarder adds one if missing).
#[derive(Debug, Clone)]
pub struct InterestBuilder {
    name: Name,
    can_be_prefix: bool,
    must_be_fresh: bool,
    hints: Vec<Name>,
    nonce: Option<u32>,
    lifetime_ms: Option<u64>,
    hop_limit: Option<u8>,
    app_params: Option<Bytes>,
    sig_nonce: Option<Bytes>,
    sig_time: Option<u64>,
    sig_seq_num: Option<u64>,
}

struct Sig {
    info: SignatureInfo,
    value: Vec<u8>,
}

impl InterestBuilder {
    /// A builder for an Interest named `name`. With ApplicationParameters, a
    /// ParametersSha256DigestComponent in `name` is recomputed where it stands
    /// (the spec allows any position), else one is appended; without them, any
    /// such component is dropped.
    pub fn new(name: Name) -> Self {
        InterestBuilder {
            name,
            can_be_prefix: false,
            must_be_fresh: false,
            hints: Vec::new(),
            nonce: None,
            lifetime_ms: None,
            hop_limit: None,
            app_params: None,
            sig_nonce: None,
            sig_time: None,
            sig_seq_num: None,
        }
    }

    pub fn can_be_prefix(mut self, yes: bool) -> Self {
        self.can_be_prefix = yes;
        self
    }

    pub fn must_be_fresh(mut self, yes: bool) -> Self {
        self.must_be_fresh = yes;
        self
    }

    /// Replaces the ForwardingHint names.
    pub fn forwarding_hint(mut self, names: impl IntoIterator<Item = Name>) -> Self {
        self.hints = names.into_iter().collect();
        self
    }

    /// Adds one ForwardingHint name.
    pub fn add_forwarding_hint(mut self, name: Name) -> Self {
        self.hints.push(name);
        self
    }

    pub fn nonce(mut self, nonce: u32) -> Self {
        self.nonce = Some(nonce);
        self
    }

    pub fn lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime_ms = Some(lifetime.as_millis().min(u64::MAX as u128) as u64);
        self
    }

    pub fn lifetime_ms(mut self, ms: u64) -> Self {
        self.lifetime_ms = Some(ms);
        self
    }

    pub fn hop_limit(mut self, hop_limit: u8) -> Self {
        self.hop_limit = Some(hop_limit);
        self
    }

    /// ApplicationParameters (the digest component is added to the name).
    pub fn app_params(mut self, params: impl Into<Bytes>) -> Self {
        self.app_params = Some(params.into());
        self
    }

    /// SignatureNonce for a signed Interest (added to the signer's SignatureInfo).
    pub fn signature_nonce(mut self, nonce: impl Into<Bytes>) -> Self {
        self.sig_nonce = Some(nonce.into());
        self
    }

    /// SignatureTime (ms since the Unix epoch) for a signed Interest.
    pub fn signature_time(mut self, ms: u64) -> Self {
        self.sig_time = Some(ms);
        self
    }

    /// SignatureSeqNum for a signed Interest.
    pub fn signature_seq_num(mut self, n: u64) -> Self {
        self.sig_seq_num = Some(n);
        self
    }

    /// Normalizes the name and returns where its ParametersSha256DigestComponent
    /// goes: the byte range of `name.value_bytes()` it replaces (empty at the
    /// end when the name has none), or `None` without ApplicationParameters.
    /// Only the first digest component is kept; any other is dropped.
    fn digest_slot(&mut self) -> Option<Range<usize>> {
        let mut first = None;
        let mut count = 0;
        for (j, c) in self.name.iter().enumerate() {
            if c.is_params_digest() {
                count += 1;
                first.get_or_insert(j);
            }
        }
        let keep = if self.app_params.is_some() {
            first
        } else {
            None
        };
        if count > usize::from(keep.is_some()) {
            self.name = self
                .name
                .iter()
                .enumerate()
                .filter(|(j, c)| !c.is_params_digest() || Some(*j) == keep)
                .map(|(_, c)| c)
                .collect();
        }
        self.app_params.as_ref()?;
        let end = self.name.value_bytes().len();
        Some(
            keep.and_then(|j| self.name.component_range(j))
                .unwrap_or(end..end),
        )
    }

    /// Encodes an unsigned Interest.
    pub fn build(self) -> Bytes {
        self.encode(None)
    }

    /// Encodes and decodes (fails only for an Interest the decoder rejects,
    /// e.g. an empty name).
    pub fn build_view(self) -> Result<Interest, DecodeError> {
        Interest::decode(self.build())
    }

    /// Encodes a signed Interest (packet format v0.3): ApplicationParameters
    /// (empty if not set), InterestSignatureInfo, InterestSignatureValue.
    pub fn sign(mut self, signer: &dyn Signer) -> Result<Bytes, SignError> {
        let mut info = signer.signature_info();
        if self.sig_nonce.is_some() {
            info.nonce = self.sig_nonce.take();
        }
        if self.sig_time.is_some() {
            info.time = self.sig_time;
        }
        if self.sig_seq_num.is_some() {
            info.seq_num = self.sig_seq_num;
        }
        let params = self.app_params.get_or_insert_with(Bytes::new).clone();
        let slot = self.digest_slot().unwrap_or_default();
        let name = self.name.value_bytes();
        let info_len = info.encoded_len(types::INTEREST_SIGNATURE_INFO);
        let mut portion = Vec::with_capacity(
            name.len() + tlv::tlv_len(types::APPLICATION_PARAMETERS, params.len()) + info_len,
        );
        // the name without its digest component
        portion.extend_from_slice(&name[..slot.start]);
        portion.extend_from_slice(&name[slot.end..]);
        tlv::put_tlv(&mut portion, types::APPLICATION_PARAMETERS, &params);
        info.encode(types::INTEREST_SIGNATURE_INFO, &mut portion);
        let value = signer.sign(&portion)?;
        Ok(self.encode(Some(Sig { info, value })))
    }

    /// Encodes and decodes a signed Interest.
    pub fn sign_view(self, signer: &dyn Signer) -> Result<Interest, SignError> {
        let wire = self.sign(signer)?;
        Interest::decode(wire).map_err(|e| SignError::Failed(e.to_string()))
    }

    fn encode(mut self, sig: Option<Sig>) -> Bytes {
        let slot = self.digest_slot();
        let name = self.name.value_bytes();
        // everything from ApplicationParameters on, and its digest
        let tail_len = match &self.app_params {
            None => 0,
            Some(p) => {
                tlv::tlv_len(types::APPLICATION_PARAMETERS, p.len())
                    + sig.as_ref().map_or(0, |s| {
                        s.info.encoded_len(types::INTEREST_SIGNATURE_INFO)
                            + tlv::tlv_len(types::INTEREST_SIGNATURE_VALUE, s.value.len())
                    })
            }
        };
        let name_value_len = match &slot {
            Some(r) => name.len() - r.len() + 34,
            None => name.len(),
        };
        let hints_len: usize = self.hints.iter().map(Name::encoded_len).sum();
        let mut len = tlv::tlv_len(types::NAME, name_value_len);
        if self.can_be_prefix {
            len += 2;
        }
        if self.must_be_fresh {
            len += 2;
        }
        if !self.hints.is_empty() {
            len += tlv::tlv_len(types::FORWARDING_HINT, hints_len);
        }
        if self.nonce.is_some() {
            len += 6;
        }
        if let Some(l) = self.lifetime_ms {
            len += tlv::nni_tlv_len(types::INTEREST_LIFETIME, l);
        }
        if self.hop_limit.is_some() {
            len += 3;
        }
        len += tail_len;
        let total = tlv::tlv_len(types::INTEREST, len);
        let mut out = BytesMut::with_capacity(total);
        tlv::put_header(&mut out, types::INTEREST, len);
        tlv::put_header(&mut out, types::NAME, name_value_len);
        let mut digest_at = 0;
        match &slot {
            Some(r) => {
                out.put_slice(&name[..r.start]);
                tlv::put_header(&mut out, types::PARAMETERS_SHA256_DIGEST_COMPONENT, 32);
                digest_at = out.len();
                out.put_bytes(0, 32);
                out.put_slice(&name[r.end..]);
            }
            None => out.put_slice(name),
        }
        if self.can_be_prefix {
            tlv::put_header(&mut out, types::CAN_BE_PREFIX, 0);
        }
        if self.must_be_fresh {
            tlv::put_header(&mut out, types::MUST_BE_FRESH, 0);
        }
        if !self.hints.is_empty() {
            tlv::put_header(&mut out, types::FORWARDING_HINT, hints_len);
            for h in &self.hints {
                h.encode(&mut out);
            }
        }
        if let Some(n) = self.nonce {
            tlv::put_header(&mut out, types::NONCE, 4);
            out.put_u32(n);
        }
        if let Some(l) = self.lifetime_ms {
            tlv::put_nni_tlv(&mut out, types::INTEREST_LIFETIME, l);
        }
        if let Some(h) = self.hop_limit {
            tlv::put_header(&mut out, types::HOP_LIMIT, 1);
            out.put_u8(h);
        }
        if let Some(p) = &self.app_params {
            let tail_at = out.len();
            tlv::put_tlv(&mut out, types::APPLICATION_PARAMETERS, p);
            if let Some(s) = &sig {
                s.info.encode(types::INTEREST_SIGNATURE_INFO, &mut out);
                tlv::put_tlv(&mut out, types::INTEREST_SIGNATURE_VALUE, &s.value);
            }
            let d = Sha256::digest(&out[tail_at..]);
            out[digest_at..digest_at + 32].copy_from_slice(&d);
        }
        debug_assert_eq!(out.len(), total);
        out.freeze()
    }
}
