//! TinyLFU admission (Einziger, Friedman, Manes): a count-min sketch of 4-bit
//! counters estimates how often each name was requested recently; when the CS is
//! full, a new Data is admitted only if its name is requested more often than the
//! LRU victim's. Counters are halved every `10 x capacity` increments (aging), so
//! the sketch follows shifting popularity. Better than plain LRU under skewed
//! (Zipf) popularity because one-hit wonders no longer flush popular entries.

/// A count-min sketch with 4 rows of 4-bit counters packed in `u64` words.
pub(crate) struct Sketch {
    table: Vec<u64>,
    mask: usize,
    additions: u64,
    sample: u64,
}

const SEEDS: [u64; 4] = [
    0xc3a5_c85c_97cb_3127,
    0xb492_b66f_be98_f273,
    0x9ae1_6a3b_2f90_404f,
    0xcbf2_9ce4_8422_2325,
];

impl Sketch {
    /// A sketch sized for a cache of `capacity` entries.
    pub(crate) fn new(capacity: usize) -> Self {
        let words = capacity.max(64).next_power_of_two();
        Sketch {
            table: vec![0; words],
            mask: words - 1,
            additions: 0,
            sample: 10 * capacity.max(64) as u64,
        }
    }

    #[inline]
    fn slot(&self, hash: u64, row: usize) -> (usize, u32) {
        let h = (hash ^ SEEDS[row]).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let word = (h >> 32) as usize & self.mask;
        // 16 counters per word; each row uses its own quarter of them
        let counter = ((h >> 8) & 3) as u32 + (row as u32) * 4;
        (word, counter * 4)
    }

    /// Count one access to `hash`.
    #[inline]
    pub(crate) fn increment(&mut self, hash: u64) {
        let mut added = false;
        for row in 0..4 {
            let (w, shift) = self.slot(hash, row);
            let v = (self.table[w] >> shift) & 0xF;
            if v < 15 {
                self.table[w] += 1 << shift;
                added = true;
            }
        }
        if added {
            self.additions += 1;
            if self.additions >= self.sample {
                self.reset();
            }
        }
    }

    /// Estimated access count of `hash` (0..=15).
    #[inline]
    pub(crate) fn frequency(&self, hash: u64) -> u64 {
        (0..4)
            .map(|row| {
                let (w, shift) = self.slot(hash, row);
                (self.table[w] >> shift) & 0xF
            })
            .min()
            .unwrap_or(0)
    }

    /// Halve every counter.
    fn reset(&mut self) {
        for w in &mut self.table {
            *w = (*w >> 1) & 0x7777_7777_7777_7777;
        }
        self.additions /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_keys_estimate_higher() {
        let mut s = Sketch::new(100);
        for _ in 0..10 {
            s.increment(42);
        }
        s.increment(7);
        assert!(s.frequency(42) >= 10);
        assert!(s.frequency(7) >= 1 && s.frequency(7) < s.frequency(42));
        assert_eq!(s.frequency(12345), 0);
    }

    #[test]
    fn aging_halves() {
        let mut s = Sketch::new(64);
        for _ in 0..15 {
            s.increment(1);
        }
        for i in 0..(10 * 64) {
            s.increment(1000 + i);
        }
        assert!(s.frequency(1) <= 8);
    }
}
