//! Intrusive doubly-linked queues over CS entry indices (links kept in a parallel
//! array, so the CS entries stay policy-agnostic). Up to `Q` queues.

pub(crate) const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Link {
    prev: u32,
    next: u32,
    queue: u8,
}

/// `Q` FIFO/LRU queues sharing one link array.
pub(crate) struct Lists<const Q: usize> {
    links: Vec<Link>,
    head: [u32; Q],
    tail: [u32; Q],
    len: [usize; Q],
}

/// Marker for "not in any queue".
const NO_QUEUE: u8 = u8::MAX;

impl<const Q: usize> Lists<Q> {
    pub(crate) fn new() -> Self {
        Lists {
            links: Vec::new(),
            head: [NIL; Q],
            tail: [NIL; Q],
            len: [0; Q],
        }
    }

    /// Room for `n` more entries.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.links.reserve(n);
    }

    /// Append `i` at the tail of queue `q`.
    pub(crate) fn push_back(&mut self, q: usize, i: u32) {
        let iu = i as usize;
        if self.links.len() <= iu {
            self.links.resize(
                iu + 1,
                Link {
                    prev: NIL,
                    next: NIL,
                    queue: NO_QUEUE,
                },
            );
        }
        debug_assert_eq!(self.links[iu].queue, NO_QUEUE, "entry already queued");
        let t = self.tail[q];
        self.links[iu] = Link {
            prev: t,
            next: NIL,
            queue: q as u8,
        };
        if t == NIL {
            self.head[q] = i;
        } else {
            self.links[t as usize].next = i;
        }
        self.tail[q] = i;
        self.len[q] += 1;
    }

    /// Unlink `i` from its queue (no-op if not queued). Returns the queue it was in.
    #[inline(always)]
    pub(crate) fn remove(&mut self, i: u32) -> Option<usize> {
        let l = *self.links.get(i as usize)?;
        if l.queue == NO_QUEUE {
            return None;
        }
        let q = l.queue as usize;
        if l.prev == NIL {
            self.head[q] = l.next;
        } else {
            self.links[l.prev as usize].next = l.next;
        }
        if l.next == NIL {
            self.tail[q] = l.prev;
        } else {
            self.links[l.next as usize].prev = l.prev;
        }
        self.links[i as usize] = Link {
            prev: NIL,
            next: NIL,
            queue: NO_QUEUE,
        };
        self.len[q] -= 1;
        Some(q)
    }

    /// Move `i` to the tail of queue `q`.
    pub(crate) fn move_to_back(&mut self, q: usize, i: u32) {
        if self.tail[q] == i {
            return;
        }
        self.remove(i);
        self.push_back(q, i);
    }

    /// Head of queue `q`.
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        (self.head[q] != NIL).then_some(self.head[q])
    }

    /// The first three entries of `queues` taken in order as one sequence (`NIL`
    /// where there are fewer): the next victims, for prefetching.
    #[inline]
    pub(crate) fn first3(&self, queues: &[usize]) -> [u32; 3] {
        let mut out = [NIL; 3];
        let mut n = 0;
        for &q in queues {
            let mut cur = self.head[q];
            while cur != NIL && n < 3 {
                out[n] = cur;
                n += 1;
                cur = self.links[cur as usize].next;
            }
            if n == 3 {
                break;
            }
        }
        out
    }

    /// Queue of `i`.
    pub(crate) fn queue_of(&self, i: u32) -> Option<usize> {
        let l = self.links.get(i as usize)?;
        (l.queue != NO_QUEUE).then_some(l.queue as usize)
    }

    /// Length of queue `q`.
    pub(crate) fn len(&self, q: usize) -> usize {
        self.len[q]
    }

    /// Entries of queue `q`, head first.
    pub(crate) fn iter(&self, q: usize) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.head[q];
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let i = cur;
            cur = self.links[i as usize].next;
            Some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_ops() {
        let mut l: Lists<2> = Lists::new();
        l.push_back(0, 3);
        l.push_back(0, 1);
        l.push_back(1, 2);
        l.move_to_back(0, 3);
        assert_eq!(l.iter(0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(l.remove(1), Some(0));
        assert_eq!(l.remove(1), None);
        assert_eq!(l.front(0), Some(3));
        assert_eq!(l.queue_of(2), Some(1));
        assert_eq!(l.len(0), 1);
    }

    #[test]
    fn first3_spans_queues_in_order() {
        let mut l: Lists<3> = Lists::new();
        assert_eq!(l.first3(&[0, 1, 2]), [NIL; 3]);
        l.push_back(2, 7);
        l.push_back(0, 4);
        l.push_back(2, 9);
        l.push_back(2, 1);
        assert_eq!(l.first3(&[0, 1, 2]), [4, 7, 9]);
        assert_eq!(l.first3(&[2]), [7, 9, 1]);
        l.remove(4);
        l.remove(9);
        assert_eq!(l.first3(&[0, 1, 2]), [7, 1, NIL]);
    }
}
