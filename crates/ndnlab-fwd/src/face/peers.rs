//! The unicast faces of a datagram channel (UDP, Ethernet) by remote address: looked
//! up for each datagram received, created on demand for a new remote (or by
//! management), and forgotten when their writer ends.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use super::datagram::{run_writer, DatagramSink, WriterParams};
use super::stream::Ingress;
use super::{FaceEntry, Persistency, SendQueueRx};

struct Peer {
    face: Arc<FaceEntry>,
    /// When the remote last sent something (the idle timeout of on-demand faces).
    last_seen: Arc<AtomicU64>,
}

/// A channel's faces by remote address `K`.
pub struct Peers<K> {
    map: Mutex<HashMap<K, Peer>>,
}

impl<K: Eq + Hash + Copy + Send + 'static> Default for Peers<K> {
    fn default() -> Self {
        Peers {
            map: Mutex::new(HashMap::new()),
        }
    }
}

/// A face [`Peers::connect`] created: its queue, for its writer, and what the writer
/// watches for idleness (on-demand faces only).
pub struct Created {
    pub queue: SendQueueRx,
    pub idle: Option<Arc<AtomicU64>>,
}

impl<K: Eq + Hash + Copy + Send + 'static> Peers<K> {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Peer>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The open face toward `remote`, which was heard from at `now`.
    pub fn heard(&self, remote: &K, now: u64) -> Option<Arc<FaceEntry>> {
        let map = self.lock();
        let p = map.get(remote)?;
        p.last_seen.store(now, Relaxed);
        (!p.face.is_closed()).then(|| p.face.clone())
    }

    /// The open face toward `remote`, or a new one that `make` builds (with its
    /// queue), idle after `idle_timeout_ns` without traffic, and registered with
    /// `ingress`; `spawn` then starts its writer.
    pub fn connect(
        &self,
        remote: K,
        persistency: Persistency,
        idle_timeout_ns: u64,
        ingress: &Arc<dyn Ingress>,
        make: impl FnOnce() -> (Arc<FaceEntry>, SendQueueRx),
        spawn: impl FnOnce(Arc<FaceEntry>, Created),
    ) -> Arc<FaceEntry> {
        let mut map = self.lock();
        if let Some(p) = map.get(&remote) {
            if !p.face.is_closed() {
                return p.face.clone();
            }
        }
        let (face, queue) = make();
        let last_seen = Arc::new(AtomicU64::new(ingress.now()));
        map.insert(
            remote,
            Peer {
                face: face.clone(),
                last_seen: last_seen.clone(),
            },
        );
        drop(map);
        face.set_idle_timeout(last_seen.clone(), idle_timeout_ns);
        ingress.register_face(&face);
        let idle = (persistency == Persistency::OnDemand).then_some(last_seen);
        spawn(face.clone(), Created { queue, idle });
        face
    }

    /// Forgets face `id`.
    pub fn forget(&self, id: u64) {
        self.lock().retain(|_, p| p.face.id != id);
    }

    /// Whether face `id` is one of these.
    pub fn has(&self, id: u64) -> bool {
        self.lock().values().any(|p| p.face.id == id)
    }
}

/// Starts the writer of a datagram face: [`run_writer`] over `sink` until the face
/// ends, then `forget` (the channel drops the face) and the face is closed for
/// `ingress`. A send error ends the face, logged at debug level.
pub fn spawn_writer<S: DatagramSink>(
    sink: S,
    face: Arc<FaceEntry>,
    queue: SendQueueRx,
    ingress: Arc<dyn Ingress>,
    params: WriterParams,
    forget: impl FnOnce(u64) + Send + 'static,
) {
    tokio::spawn(async move {
        let medium = params.medium;
        if let Err(e) = run_writer(&sink, &face, queue, &*ingress, params).await {
            tracing::debug!(face = face.id, error = %e, "{medium} send failed");
        }
        forget(face.id);
        ingress.face_closed(&face);
    });
}
