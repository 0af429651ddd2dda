//! Pre-signed Data by name, bounded: a producer that signs each name once
//! serves repeats from memory (`ndnlab perf server --cache`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use bytes::Bytes;
use ndnlab_wire::Name;

/// Signed Data by name; once full, new names are not kept.
#[derive(Default)]
pub struct DataCache {
    map: Mutex<HashMap<Bytes, Bytes>>,
    capacity: usize,
    /// Lookups that found their Data.
    pub hits: AtomicU64,
}

impl DataCache {
    pub fn new(capacity: usize) -> Self {
        DataCache {
            map: Mutex::new(HashMap::new()),
            capacity,
            hits: AtomicU64::new(0),
        }
    }
    pub fn get(&self, name: &Name) -> Option<Bytes> {
        let hit = self
            .map
            .lock()
            .expect("cache lock")
            .get(name.value_bytes())
            .cloned();
        if hit.is_some() {
            self.hits.fetch_add(1, Relaxed);
        }
        hit
    }
    pub fn insert(&self, name: &Name, data: Bytes) {
        let mut m = self.map.lock().expect("cache lock");
        if m.len() < self.capacity {
            m.insert(name.value().clone(), data);
        }
    }
    pub fn len(&self) -> usize {
        self.map.lock().expect("cache lock").len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_counted_and_capacity_bounds_it() {
        let c = DataCache::new(2);
        let n = |s: &str| s.parse::<Name>().unwrap();
        assert!(c.is_empty());
        c.insert(&n("/a"), Bytes::from_static(b"A"));
        c.insert(&n("/b"), Bytes::from_static(b"B"));
        c.insert(&n("/c"), Bytes::from_static(b"C"));
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(&n("/a")), Some(Bytes::from_static(b"A")));
        assert_eq!(c.get(&n("/c")), None);
        assert_eq!(c.hits.load(Relaxed), 1);
    }
}
