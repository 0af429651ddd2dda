//! How the dissector reads a TLV-TYPE: the element's name and value kind in
//! the context of its enclosing element.

use crate::tlv::{self, types::*};

/// Where an element sits: decides how its type number is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    Top,
    Interest,
    Data,
    Name,
    MetaInfo,
    SignatureInfo,
    KeyLocator,
    ForwardingHint,
    ValidityPeriod,
    AdditionalDescription,
    DescriptionEntry,
    Lp,
    Nack,
    CachePolicy,
}

/// How an element's value is rendered.
pub(super) enum Kind {
    Nested(Ctx),
    Name,
    Component,
    FinalBlockId,
    Nni,
    Millis,
    Flag,
    Hex,
    Bytes,
    Text,
    Fixed64,
    ContentType,
    SignatureType,
    NackReason,
    CachePolicyType,
    Fragment,
    Unknown,
}

/// The name and value kind of type `typ` inside `ctx`.
pub(super) fn kind_of(ctx: Ctx, typ: u64) -> (&'static str, Kind) {
    use Kind as K;
    let k = match (ctx, typ) {
        (Ctx::Top, INTEREST) => K::Nested(Ctx::Interest),
        (Ctx::Top, DATA) => K::Nested(Ctx::Data),
        (Ctx::Top, LP_PACKET) => K::Nested(Ctx::Lp),
        (Ctx::Top, NAME) => K::Name,
        (Ctx::Interest | Ctx::Data | Ctx::KeyLocator | Ctx::ForwardingHint, NAME) => K::Name,
        (Ctx::Name, _) => K::Component,
        (Ctx::Interest, CAN_BE_PREFIX | MUST_BE_FRESH) => K::Flag,
        (Ctx::Interest, FORWARDING_HINT) => K::Nested(Ctx::ForwardingHint),
        (Ctx::Interest, NONCE) => K::Hex,
        (Ctx::Interest, INTEREST_LIFETIME) => K::Millis,
        (Ctx::Interest, HOP_LIMIT) => K::Nni,
        (Ctx::Interest, APPLICATION_PARAMETERS) => K::Bytes,
        (Ctx::Interest, INTEREST_SIGNATURE_INFO) => K::Nested(Ctx::SignatureInfo),
        (Ctx::Interest, INTEREST_SIGNATURE_VALUE) => K::Hex,
        (Ctx::Data, META_INFO) => K::Nested(Ctx::MetaInfo),
        (Ctx::Data, CONTENT) => K::Bytes,
        (Ctx::Data, SIGNATURE_INFO) => K::Nested(Ctx::SignatureInfo),
        (Ctx::Data, SIGNATURE_VALUE) => K::Hex,
        (Ctx::MetaInfo, CONTENT_TYPE) => K::ContentType,
        (Ctx::MetaInfo, FRESHNESS_PERIOD) => K::Millis,
        (Ctx::MetaInfo, FINAL_BLOCK_ID) => K::FinalBlockId,
        (Ctx::SignatureInfo, SIGNATURE_TYPE) => K::SignatureType,
        (Ctx::SignatureInfo, KEY_LOCATOR) => K::Nested(Ctx::KeyLocator),
        (Ctx::SignatureInfo, SIGNATURE_NONCE) => K::Hex,
        (Ctx::SignatureInfo, SIGNATURE_TIME) => K::Millis,
        (Ctx::SignatureInfo, SIGNATURE_SEQ_NUM) => K::Nni,
        (Ctx::SignatureInfo, VALIDITY_PERIOD) => K::Nested(Ctx::ValidityPeriod),
        (Ctx::SignatureInfo, ADDITIONAL_DESCRIPTION) => K::Nested(Ctx::AdditionalDescription),
        (Ctx::KeyLocator, KEY_DIGEST) => K::Hex,
        (Ctx::ValidityPeriod, NOT_BEFORE | NOT_AFTER) => K::Text,
        (Ctx::AdditionalDescription, DESCRIPTION_ENTRY) => K::Nested(Ctx::DescriptionEntry),
        (Ctx::DescriptionEntry, DESCRIPTION_KEY | DESCRIPTION_VALUE) => K::Text,
        (Ctx::Lp, FRAGMENT) => K::Fragment,
        (Ctx::Lp, SEQUENCE | ACK | TX_SEQUENCE) => K::Fixed64,
        (Ctx::Lp, FRAG_INDEX | FRAG_COUNT) => K::Nni,
        (Ctx::Lp, INCOMING_FACE_ID | NEXT_HOP_FACE_ID | CONGESTION_MARK) => K::Nni,
        (Ctx::Lp, PIT_TOKEN) => K::Hex,
        (Ctx::Lp, NACK) => K::Nested(Ctx::Nack),
        (Ctx::Lp, CACHE_POLICY) => K::Nested(Ctx::CachePolicy),
        (Ctx::Lp, NON_DISCOVERY) => K::Flag,
        (Ctx::Lp, PREFIX_ANNOUNCEMENT) => K::Fragment,
        (Ctx::Nack, NACK_REASON) => K::NackReason,
        (Ctx::CachePolicy, CACHE_POLICY_TYPE) => K::CachePolicyType,
        _ => K::Unknown,
    };
    let name = match (&k, ctx) {
        (Kind::Unknown, _) => "Unknown",
        (Kind::Component, _) => tlv::type_name(typ)
            .filter(|_| matches!(typ, 1 | 2 | 8 | 32 | 50 | 52 | 54 | 56 | 58))
            .unwrap_or("NameComponent"),
        _ => tlv::type_name(typ).unwrap_or("Unknown"),
    };
    (name, k)
}
