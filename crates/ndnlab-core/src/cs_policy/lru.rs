//! Least-recently-used order: hits move an entry to the back; the front is evicted.

use super::Lists;

pub(crate) struct Lru {
    list: Lists<1>,
}

impl Lru {
    pub(crate) fn new() -> Self {
        Lru { list: Lists::new() }
    }
    /// Room for `n` more entries.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
    }
    #[inline]
    pub(crate) fn on_insert(&mut self, i: u32) {
        self.list.push_back(0, i);
    }
    /// The next three victims (`NIL` where none; a prefetch hint).
    #[inline]
    pub(crate) fn peek_victims3(&self) -> [u32; 3] {
        self.list.first3(&[0])
    }
    /// The next `k` victims (a prefetch hint).
    pub(crate) fn peek_victims(&self, k: usize, out: &mut Vec<u32>) {
        out.extend(self.list.iter(0).take(k));
    }
    #[inline]
    pub(crate) fn on_hit(&mut self, i: u32) {
        self.list.move_to_back(0, i);
    }
    #[inline]
    pub(crate) fn on_remove(&mut self, i: u32) {
        self.list.remove(i);
    }
    #[inline]
    pub(crate) fn victim(&self) -> Option<u32> {
        self.list.front(0)
    }
    pub(crate) fn order(&self) -> Vec<u32> {
        self.list.iter(0).collect()
    }
}
