//! Control command handlers (faces, fib, rib, strategy-choice, cs).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use ndnlab_core::StrategyInstance;

use super::params::{ControlParameters as P, ControlResponse as R, ROUTE_CHILD_INHERIT};
use super::rib::{expiry_after_ms, Route};
use super::strategy::refusal;
use super::Manager;
use crate::face::link::set_reliability;
use crate::face::uri::FaceUri;
use crate::face::{FaceEntry, Persistency};
use crate::runtime::shard::ShardMsg;

/// Longest prefix accepted in FIB/RIB commands (NFD: 32 components for the FIB).
pub(crate) const MAX_PREFIX: usize = 32;

pub(super) async fn run(
    m: &mut Manager,
    face: &Arc<FaceEntry>,
    module: &str,
    verb: &str,
    p: P,
) -> R {
    match (module, verb) {
        ("faces", "create") => faces_create(m, p).await,
        ("faces", "update") => faces_update(m, face, p),
        ("faces", "destroy") => faces_destroy(m, p),
        ("fib", "add-nexthop") => fib_add(m, face, p),
        ("fib", "remove-nexthop") => fib_remove(m, face, p),
        ("rib", "register") => rib_register(m, face, p),
        ("rib", "unregister") => rib_unregister(m, face, p),
        ("strategy-choice", "set") => strategy_set(m, p).await,
        ("strategy-choice", "unset") => strategy_unset(m, p).await,
        ("cs", "config") => cs_config(m, p),
        ("cs", "erase") => cs_erase(m, p).await,
        _ => R::error(501, format!("unsupported command {module}/{verb}"), p),
    }
}

fn persistency_of(v: u64) -> Option<Persistency> {
    match v {
        0 => Some(Persistency::Persistent),
        1 => Some(Persistency::OnDemand),
        2 => Some(Persistency::Permanent),
        _ => None,
    }
}

/// NFD face flag bits (ndn-cxx `FaceFlagBit`).
pub const FLAG_LOCAL_FIELDS: u64 = 1 << 0;
pub const FLAG_LP_RELIABILITY: u64 = 1 << 1;
pub const FLAG_CONGESTION_MARKING: u64 = 1 << 2;
const KNOWN_FLAGS: u64 = FLAG_LOCAL_FIELDS | FLAG_LP_RELIABILITY | FLAG_CONGESTION_MARKING;

/// Accepted MTU overrides.
pub(crate) const MTU_RANGE: std::ops::RangeInclusive<u64> = 576..=65000;

/// The body describing a face, as faces/create and faces/update return it.
fn face_body(f: &FaceEntry) -> P {
    let limits = f.marking_limits();
    P {
        face_id: Some(f.id),
        uri: Some(f.remote.to_string()),
        local_uri: Some(f.local.to_string()),
        face_persistency: Some(f.persistency.get() as u64),
        base_congestion_marking_interval: Some(limits.congestion_interval_ns),
        default_congestion_threshold: Some(limits.congestion_threshold as u64),
        mtu: Some(super::status::reported_mtu(f)),
        flags: Some(f.flags()),
        ..Default::default()
    }
}

/// Which flag bits the parameters turn on or off: `(bit, on)` for each bit in Mask.
fn requested_flags(p: &P) -> impl Iterator<Item = (u64, bool)> {
    let (flags, mask) = (p.flags.unwrap_or(0), p.mask.unwrap_or(0));
    [
        FLAG_LOCAL_FIELDS,
        FLAG_LP_RELIABILITY,
        FLAG_CONGESTION_MARKING,
    ]
    .into_iter()
    .filter(move |b| mask & b != 0)
    .map(move |b| (b, flags & b != 0))
}

fn wants(p: &P, bit: u64) -> bool {
    requested_flags(p).any(|(b, on)| b == bit && on)
}

/// Checks shared by faces/create and faces/update (ndn-cxx validates these
/// before the command runs: 400).
fn check_common(p: &P) -> Result<(), &'static str> {
    if p.flags.is_some() != p.mask.is_some() {
        return Err("Flags must be accompanied by Mask");
    }
    if p.mask.is_some_and(|m| m & !KNOWN_FLAGS != 0) {
        return Err("unknown face flag bits in Mask");
    }
    if p.base_congestion_marking_interval == Some(0) {
        return Err("BaseCongestionMarkingInterval must be positive");
    }
    if p.default_congestion_threshold == Some(0) {
        return Err("DefaultCongestionThreshold must be positive");
    }
    Ok(())
}

async fn faces_create(m: &mut Manager, p: P) -> R {
    if let Err(e) = check_common(&p) {
        return R::error(400, e, p);
    }
    let Some(uri_s) = p.uri.clone() else {
        return R::error(400, "Uri is required", p);
    };
    let uri = match FaceUri::parse(&uri_s) {
        Ok(u) => u,
        Err(e) => return R::error(400, format!("Malformed command: bad Uri: {e}"), p),
    };
    let local_uri = match p.local_uri.as_deref().map(FaceUri::parse) {
        None => None,
        Some(Ok(u)) => Some(u),
        Some(Err(e)) => return R::error(400, format!("Malformed command: bad LocalUri: {e}"), p),
    };
    // NFD's protocol factories check the request in this order (406 each).
    let proto = match &uri {
        FaceUri::Udp(_) => "UDP",
        FaceUri::Tcp(_) => "TCP",
        FaceUri::Ether(_) => "Ethernet",
        _ => return R::error(406, "Unsupported protocol", p),
    };
    let device = match (&uri, local_uri) {
        // NFD's EthernetFactory: a unicast peer, on the interface named by LocalUri.
        (FaceUri::Ether(_), Some(dev @ FaceUri::Dev(_))) => Some(dev),
        (FaceUri::Ether(_), _) => {
            return R::error(
                406,
                "Creation of unicast Ethernet faces requires a LocalUri with dev:// scheme",
                p,
            )
        }
        (_, Some(_)) => {
            return R::error(
                406,
                format!("Unicast {proto} faces cannot be created with a LocalUri"),
                p,
            )
        }
        (_, None) => None,
    };
    let persistency = match p.face_persistency.map(persistency_of) {
        None => Persistency::Persistent,
        Some(Some(Persistency::OnDemand)) => {
            return R::error(
                406,
                format!("Outgoing {proto} faces do not support on-demand persistency"),
                p,
            )
        }
        Some(Some(x)) => x,
        Some(None) => return R::error(400, "unknown FacePersistency", p),
    };
    match &uri {
        FaceUri::Udp(a) if a.ip().is_multicast() => {
            return R::error(406, "Cannot create multicast UDP faces", p)
        }
        FaceUri::Ether(mac) if mac.is_multicast() => {
            return R::error(406, "Cannot create multicast Ethernet faces", p)
        }
        _ => {}
    }
    let local_scope = matches!(&uri, FaceUri::Tcp(a) if a.ip().is_loopback());
    if wants(&p, FLAG_LOCAL_FIELDS) && !local_scope {
        return R::error(
            406,
            "Local fields can only be enabled on faces with local scope",
            p,
        );
    }
    let mtu = match (&uri, p.mtu) {
        (_, None) => None,
        (FaceUri::Tcp(_), Some(_)) => {
            return R::error(406, "TCP faces do not support MTU overrides", p)
        }
        (_, Some(v)) if v < MIN_MTU => {
            return R::error(
                406,
                format!("Override MTU cannot be less than {MIN_MTU}"),
                p,
            )
        }
        (FaceUri::Udp(a), Some(v)) => Some(v.min(udp_max_mtu(a)) as usize),
        // Ethernet: capped at the interface's MTU when the face is made.
        (_, Some(v)) => Some(v.min(65535) as usize),
    };
    if wants(&p, FLAG_LP_RELIABILITY) && !matches!(uri, FaceUri::Udp(_)) {
        return R::error(
            406,
            "LP reliability is supported on UDP unicast faces only",
            p,
        );
    }
    if let Some(existing) = m.shared.faces.find_remote(&uri) {
        return R::error(
            409,
            "Face with remote URI already exists",
            face_body(&existing),
        );
    }
    match crate::runtime::listeners::create_face(&m.shared, &uri, device.as_ref(), persistency, mtu)
        .await
    {
        Ok(f) => {
            if let Err(e) = apply_options(m, &f, &p) {
                // Only a face whose transport changed under us gets here.
                return R::error(406, e, face_body(&f));
            }
            R::ok(face_body(&f))
        }
        Err(e) => R::error(504, format!("cannot create face: {e}"), p),
    }
}

/// The smallest MTU a face may be given (NFD's `MIN_MTU`).
const MIN_MTU: u64 = 64;

/// The largest UDP payload toward `a` (65535 less the IP and UDP headers): the
/// transport MTU an override is clamped to, as NFD clamps it.
fn udp_max_mtu(a: &std::net::SocketAddr) -> u64 {
    65535 - 8 - if a.is_ipv4() { 20 } else { 40 }
}

/// Applies Flags/Mask and the congestion parameters of a faces/create or
/// faces/update that passed validation.
fn apply_options(m: &Manager, f: &Arc<FaceEntry>, p: &P) -> Result<(), &'static str> {
    for (bit, on) in requested_flags(p) {
        match bit {
            FLAG_LOCAL_FIELDS => f.local_fields.store(on && f.local_scope, Relaxed),
            FLAG_CONGESTION_MARKING => f.congestion_marking.store(on, Relaxed),
            FLAG_LP_RELIABILITY => set_reliability(
                f,
                on,
                m.shared.cfg.faces.lp_reliability.options(),
                &m.shared.ingress(),
            )?,
            _ => {}
        }
    }
    f.link.set_congestion(
        p.base_congestion_marking_interval,
        p.default_congestion_threshold.map(|t| t as usize),
    );
    Ok(())
}

/// Whether a face's persistency may change to `to` (NFD's
/// `Transport::canChangePersistencyTo`): any transport may keep its value; UDP
/// unicast may become persistent or permanent; TCP may become persistent (this
/// forwarder does not reconnect permanent TCP faces); Ethernet unicast as UDP.
fn can_change_persistency(f: &FaceEntry, to: Persistency) -> bool {
    if f.persistency.get() == to {
        return true;
    }
    match &f.remote {
        FaceUri::Udp(_) | FaceUri::Ether(_) if !f.multi_access => to != Persistency::OnDemand,
        FaceUri::Tcp(_) => to == Persistency::Persistent,
        _ => false,
    }
}

fn faces_update(m: &mut Manager, face: &Arc<FaceEntry>, p: P) -> R {
    if let Err(e) = check_common(&p) {
        return R::error(400, e, p);
    }
    let id = match p.face_id {
        None | Some(0) => face.id,
        Some(id) => id,
    };
    let Some(f) = m.shared.faces.get(id) else {
        return R::error(404, format!("face {id} does not exist"), p);
    };
    // Validate every requested change first; a 409 lists the invalid ones (NFD).
    let mut invalid = P {
        face_id: Some(id),
        ..Default::default()
    };
    let mut bad = Vec::new();
    let persistency = match p.face_persistency.map(persistency_of) {
        None => None,
        Some(None) => return R::error(400, "unknown FacePersistency", p),
        Some(Some(x)) => Some(x),
    };
    if let Some(x) = persistency {
        if !can_change_persistency(&f, x) {
            invalid.face_persistency = Some(x as u64);
            bad.push("FacePersistency");
        }
    }
    let mut bad_flags = 0;
    if wants(&p, FLAG_LOCAL_FIELDS) && !f.local_scope {
        bad_flags |= FLAG_LOCAL_FIELDS;
        bad.push("LocalFieldsEnabled (face is not local)");
    }
    if wants(&p, FLAG_LP_RELIABILITY) && !f.link.reliability.is_supported() {
        bad_flags |= FLAG_LP_RELIABILITY;
        bad.push("LpReliabilityEnabled (UDP unicast faces only)");
    }
    if bad_flags != 0 {
        invalid.flags = Some(bad_flags);
        invalid.mask = Some(bad_flags);
    }
    // NFD: an override of at least MIN_MTU on a face whose transport has an MTU
    // (datagram faces); the link never exceeds its transport's MTU.
    let mtu = match (p.mtu, f.mtu) {
        (None, _) => None,
        (Some(v), Some(transport)) if v >= MIN_MTU => Some(match &f.remote {
            FaceUri::Udp(a) => v.min(udp_max_mtu(a)) as usize,
            _ => (v as usize).min(transport),
        }),
        (Some(v), _) => {
            invalid.mtu = Some(v);
            bad.push("Mtu (datagram faces only, at least 64)");
            None
        }
    };
    if !bad.is_empty() {
        return R::error(
            409,
            format!("Invalid properties specified: {}", bad.join(", ")),
            invalid,
        );
    }
    if let Some(x) = persistency {
        f.persistency.set(x);
    }
    if let Some(mtu) = mtu {
        f.link.set_mtu(mtu);
    }
    if let Err(e) = apply_options(m, &f, &p) {
        return R::error(409, e, invalid);
    }
    let mut body = face_body(&f);
    body.uri = None;
    body.local_uri = None;
    R::ok(body)
}

fn faces_destroy(m: &mut Manager, p: P) -> R {
    let Some(id) = p.face_id else {
        return R::error(400, "FaceId is required", p);
    };
    if let Some(f) = m.shared.faces.get(id) {
        m.shared.close_face(&f);
    }
    R::ok(P {
        face_id: Some(id),
        ..Default::default()
    })
}

fn requested_face(m: &Manager, face: &Arc<FaceEntry>, p: &P) -> Result<u64, Box<R>> {
    let id = match p.face_id {
        None | Some(0) => face.id,
        Some(id) => id,
    };
    if m.shared.faces.get(id).is_none() {
        return Err(Box::new(R::error(
            410,
            format!("face {id} does not exist"),
            p.clone(),
        )));
    }
    Ok(id)
}

fn fib_add(m: &mut Manager, face: &Arc<FaceEntry>, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    if name.len() > MAX_PREFIX {
        return R::error(
            414,
            format!("prefix longer than {MAX_PREFIX} components"),
            p,
        );
    }
    let id = match requested_face(m, face, &p) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let cost = p.cost.unwrap_or(0);
    let ops = m.rib.add_nexthop(&name, id, cost);
    m.apply(ops);
    R::ok(P {
        name: Some(name),
        face_id: Some(id),
        cost: Some(cost),
        ..Default::default()
    })
}

fn fib_remove(m: &mut Manager, face: &Arc<FaceEntry>, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    let id = match p.face_id {
        None | Some(0) => face.id,
        Some(id) => id,
    };
    let ops = m.rib.remove_nexthop(&name, id);
    m.apply(ops);
    R::ok(P {
        name: Some(name),
        face_id: Some(id),
        ..Default::default()
    })
}

fn rib_register(m: &mut Manager, face: &Arc<FaceEntry>, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    if name.len() > MAX_PREFIX {
        return R::error(
            414,
            format!("prefix longer than {MAX_PREFIX} components"),
            p,
        );
    }
    let id = match requested_face(m, face, &p) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let origin = p.origin.unwrap_or(0);
    let cost = p.cost.unwrap_or(0);
    let flags = p.flags.unwrap_or(ROUTE_CHILD_INHERIT);
    let now = m.shared.clock();
    let expires = p.expiration_period.and_then(|ms| expiry_after_ms(now, ms));
    let ops = m.rib.register(
        &name,
        Route {
            face_id: id,
            origin,
            cost,
            flags,
            expires,
            ..Default::default()
        },
    );
    m.apply(ops);
    R::ok(P {
        name: Some(name),
        face_id: Some(id),
        origin: Some(origin),
        cost: Some(cost),
        flags: Some(flags),
        expiration_period: p.expiration_period,
        ..Default::default()
    })
}

fn rib_unregister(m: &mut Manager, face: &Arc<FaceEntry>, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    let id = match p.face_id {
        None | Some(0) => face.id,
        Some(id) => id,
    };
    let origin = p.origin.unwrap_or(0);
    let ops = m.rib.unregister(&name, id, origin);
    m.apply(ops);
    R::ok(P {
        name: Some(name),
        face_id: Some(id),
        origin: Some(origin),
        ..Default::default()
    })
}

/// `rib/announce` (NFD's RibManager `announce`): the command Interest's
/// ApplicationParameters are a prefix-announcement Data; its route goes toward the
/// requesting face (origin 129, cost 2048, CHILD_INHERIT, expiring with the
/// announcement). Announcements are accepted whatever their signature, as NFD's
/// sample configuration (`prefix_announcement_validation` trust-anchor `any`) does.
pub(super) fn rib_announce(
    m: &mut Manager,
    face: &Arc<FaceEntry>,
    interest: &ndnlab_wire::Interest,
) -> R {
    let empty = P::default();
    if let Err(e) = ndnlab_proto::mgmt::command::check_signature(interest) {
        return R::error(403, e, empty);
    }
    let Some(params) = interest.app_params() else {
        return R::error(
            400,
            "missing ApplicationParameters (a PrefixAnnouncement)",
            empty,
        );
    };
    let pa = match ndnlab_wire::PrefixAnnouncement::decode(params) {
        Ok(pa) => pa,
        Err(e) => return R::error(400, format!("malformed PrefixAnnouncement: {e}"), empty),
    };
    let name = pa.announced_name().clone();
    if name.len() > MAX_PREFIX {
        return R::error(
            414,
            format!("Route prefix cannot exceed {MAX_PREFIX} components"),
            empty,
        );
    }
    let now = m.shared.clock();
    let route = Route::from_announcement(&pa, face.id, now, super::unix_ms());
    let body = P {
        name: Some(name.clone()),
        face_id: Some(route.face_id),
        origin: Some(route.origin),
        cost: Some(route.cost),
        flags: Some(route.flags),
        expiration_period: route.remaining_ms(now),
        ..Default::default()
    };
    let ops = m.rib.add_route(&name, route, now);
    m.apply(ops);
    R::ok(body)
}

async fn strategy_set(m: &mut Manager, p: P) -> R {
    let (Some(name), Some(strategy)) = (p.name.clone(), p.strategy.clone()) else {
        return R::error(400, "Name and Strategy are required", p);
    };
    // The one parse of the strategy name: the shards receive the typed instance.
    let instance = match StrategyInstance::parse(&strategy) {
        Ok(i) => i,
        Err(e) => {
            let (code, text) = refusal(&e);
            return R::error(code, text, p);
        }
    };
    match m.set_strategy(&name, instance).await {
        Ok(full) => R::ok(P {
            name: Some(name),
            strategy: Some(full),
            ..Default::default()
        }),
        Err((code, text)) => R::error(code, text, p),
    }
}

async fn strategy_unset(m: &mut Manager, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    match m.unset_strategy(&name).await {
        Ok(()) => R::ok(P {
            name: Some(name),
            ..Default::default()
        }),
        Err((code, text)) => R::error(code, text, p),
    }
}

fn cs_config(m: &mut Manager, p: P) -> R {
    let (flags, mask) = (p.flags.unwrap_or(0), p.mask.unwrap_or(0));
    if p.flags.is_some() != p.mask.is_some() {
        return R::error(400, "Flags and Mask must be given together", p);
    }
    if mask & !3 != 0 {
        return R::error(400, "unknown CS flag bits in Mask", p);
    }
    let admit = (mask & 1 != 0).then_some(flags & 1 != 0);
    let serve = (mask & 2 != 0).then_some(flags & 2 != 0);
    let capacity = p.capacity.map(|c| c as usize);
    {
        let mut cs = m.status.cs_config.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = capacity {
            cs.0 = c as u64;
        }
        if let Some(a) = admit {
            cs.1 = a;
        }
        if let Some(s) = serve {
            cs.2 = s;
        }
    }
    m.shared.broadcast(|| ShardMsg::CsConfig {
        capacity,
        admit,
        serve,
    });
    let (cap, a, s) = *m.status.cs_config.lock().unwrap_or_else(|e| e.into_inner());
    R::ok(P {
        capacity: Some(cap),
        flags: Some(a as u64 | ((s as u64) << 1)),
        ..Default::default()
    })
}

async fn cs_erase(m: &mut Manager, p: P) -> R {
    let Some(name) = p.name.clone() else {
        return R::error(400, "Name is required", p);
    };
    let limit = p.count.map_or(usize::MAX, |c| c as usize);
    if p.count == Some(0) {
        return R::error(400, "Count must be positive", p);
    }
    let mut erased = 0usize;
    for i in 0..m.shared.shards.len() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        m.shared.send_to_shard(
            i,
            ShardMsg::CsErase {
                prefix: name.clone(),
                limit: limit - erased.min(limit),
                reply: tx,
            },
        );
        erased += rx.await.unwrap_or(0);
        if erased >= limit {
            break;
        }
    }
    // NFD adds Capacity only when it stopped at its per-command erase limit, and
    // nfdc then asks again for the rest; this forwarder erases all that was asked
    // in one command, so the body never has one.
    R::ok(P {
        name: Some(name),
        count: Some(erased as u64),
        ..Default::default()
    })
}
