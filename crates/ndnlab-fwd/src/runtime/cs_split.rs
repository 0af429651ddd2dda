//! How a Content Store capacity given for the whole forwarder is split between the
//! shards, each of which has a private CS. Both ways of setting the capacity use
//! [`shard_cs_capacity`]: `[cs] capacity` in the configuration file (at startup)
//! and the Capacity of a `cs/config` command (`ndnlab ctl cs config capacity N`).

/// The CS capacity, in packets, of shard `index` of `shards` when the forwarder as a
/// whole may hold `total` packets.
///
/// The rule:
///
/// * `total == 0` turns caching off: every shard gets 0;
/// * otherwise `total` is divided evenly and the remainder goes one packet each to
///   the first shards, so that shares differ by at most one and add up to `total`;
/// * but while caching is on no shard gets less than one packet: with fewer packets
///   than shards, every shard gets 1 (and the shares add up to `shards`, more than
///   `total`). A shard with 0 would never cache the names dispatched to it, which
///   would be caching off for part of the namespace only.
///
/// `shards == 0` is treated as one shard.
pub fn shard_cs_capacity(total: usize, index: usize, shards: usize) -> usize {
    if total == 0 {
        return 0;
    }
    let shards = shards.max(1);
    let base = total / shards;
    let extra = usize::from(index < total % shards);
    (base + extra).max(1)
}

#[cfg(test)]
mod tests {
    use super::shard_cs_capacity;

    fn shares(total: usize, shards: usize) -> Vec<usize> {
        (0..shards)
            .map(|i| shard_cs_capacity(total, i, shards))
            .collect()
    }

    #[test]
    fn zero_means_caching_off_on_every_shard() {
        assert_eq!(shares(0, 1), [0]);
        assert_eq!(shares(0, 4), [0, 0, 0, 0]);
    }

    #[test]
    fn the_remainder_goes_to_the_first_shards() {
        assert_eq!(shares(10, 3), [4, 3, 3]);
        assert_eq!(shares(11, 4), [3, 3, 3, 2]);
        assert_eq!(shares(8, 4), [2, 2, 2, 2]);
        assert_eq!(shares(65536, 1), [65536]);
        for (total, shards) in [(10, 3), (11, 4), (65537, 8), (7, 7)] {
            assert_eq!(shares(total, shards).iter().sum::<usize>(), total);
        }
    }

    #[test]
    fn fewer_packets_than_shards_gives_every_shard_one() {
        assert_eq!(shares(1, 4), [1, 1, 1, 1]);
        assert_eq!(shares(3, 4), [1, 1, 1, 1]);
        assert_eq!(shares(1, 1), [1]);
    }

    #[test]
    fn no_shards_counts_as_one() {
        assert_eq!(shard_cs_capacity(5, 0, 0), 5);
        assert_eq!(shard_cs_capacity(0, 0, 0), 0);
    }
}
