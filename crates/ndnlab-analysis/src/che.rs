//! Che's approximation of an LRU cache's hit ratio under the independent
//! reference model (H. Che, Y. Tung, Z. Wang, "Hierarchical Web caching
//! systems: modeling, design and experimental results", IEEE JSAC 20(7),
//! 2002; its accuracy is explained by C. Fricker, P. Robert, J. Roberts, "A
//! versatile and accurate approximation for LRU cache performance", ITC 24,
//! 2012).
//!
//! Requests are independent draws: content `i` with probability `p_i`. An LRU
//! cache of `C` contents behaves as if each content stayed for the same
//! characteristic time `T` (counted in requests) after its last request, `T`
//! being the root of `sum_i (1 - exp(-p_i T)) = C` (the expected number of
//! contents requested within `T` fills the cache). Content `i` is then a hit
//! with probability `1 - exp(-p_i T)`, and the cache's hit ratio is
//! `sum_i p_i (1 - exp(-p_i T))`. Uniform popularity over `N` contents gives
//! exactly `C / N`.

/// Zipf popularity of `n` contents with exponent `s`: `p_k` proportional to
/// `k^-s` for ranks `k = 1..=n` (rank 1 the most popular; `s = 0` is uniform),
/// the law the laboratory's consumers draw names from.
pub fn zipf_popularity(n: usize, s: f64) -> Vec<f64> {
    let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-s)).collect();
    let total: f64 = w.iter().sum();
    w.into_iter().map(|x| x / total).collect()
}

/// The characteristic time `T` (in requests) of an LRU cache of `cache_size`
/// contents under request probabilities `popularity` (summing to 1): the root
/// of `sum_i (1 - exp(-p_i T)) = cache_size`, found by bisection to a relative
/// precision of 1e-12. Infinite when every content with a positive
/// probability fits.
pub fn che_characteristic_time(popularity: &[f64], cache_size: usize) -> f64 {
    let requested = popularity.iter().filter(|&&p| p > 0.0).count();
    if cache_size >= requested {
        return f64::INFINITY;
    }
    if cache_size == 0 {
        return 0.0;
    }
    let c = cache_size as f64;
    let filled = |t: f64| -> f64 { popularity.iter().map(|&p| -(-p * t).exp_m1()).sum() };
    // filled(t) rises from 0 towards `requested` > c: bracket the root
    let (mut lo, mut hi) = (0.0_f64, c);
    while filled(hi) < c {
        lo = hi;
        hi *= 2.0;
    }
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        if filled(mid) < c {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Che's approximation of the hit ratio of an LRU cache of `cache_size`
/// contents under the request probabilities `popularity` (summing to 1):
/// `sum_i p_i (1 - exp(-p_i T))` with `T` from [`che_characteristic_time`].
/// A cache holding every requested content hits always (1); an empty one never (0).
pub fn che_hit_ratio(popularity: &[f64], cache_size: usize) -> f64 {
    let t = che_characteristic_time(popularity, cache_size);
    if t.is_infinite() {
        return popularity.iter().sum();
    }
    popularity.iter().map(|&p| p * -(-p * t).exp_m1()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Zipf};
    use std::collections::VecDeque;

    #[test]
    fn uniform_popularity_gives_cache_over_catalogue() {
        for (n, c) in [(10, 1), (1000, 100), (1000, 999), (50_000, 1234)] {
            let p = vec![1.0 / n as f64; n];
            let h = che_hit_ratio(&p, c);
            assert!((h - c as f64 / n as f64).abs() < 1e-9, "N={n} C={c}: {h}");
            // T solves N (1 - exp(-T/N)) = C: T = -N ln(1 - C/N)
            let t = che_characteristic_time(&p, c);
            let exact = -(n as f64) * (1.0 - c as f64 / n as f64).ln();
            assert!(
                (t - exact).abs() < 1e-6 * exact,
                "N={n} C={c}: T {t} vs {exact}"
            );
        }
    }

    #[test]
    fn the_ends_hit_always_and_never() {
        let p = zipf_popularity(100, 0.8);
        assert_eq!(che_hit_ratio(&p, 0), 0.0);
        assert!((che_hit_ratio(&p, 100) - 1.0).abs() < 1e-12);
        assert!((che_hit_ratio(&p, 500) - 1.0).abs() < 1e-12);
        // contents never requested take no room
        let q = [0.5, 0.5, 0.0, 0.0];
        assert!((che_hit_ratio(&q, 2) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn zipf_popularity_is_normalised_and_ranked() {
        let p = zipf_popularity(1000, 0.8);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p.windows(2).all(|w| w[0] > w[1]));
        // p_1 / p_2 = 2^0.8
        assert!((p[0] / p[1] - 2f64.powf(0.8)).abs() < 1e-12);
        let u = zipf_popularity(4, 0.0);
        assert_eq!(u, vec![0.25; 4]);
    }

    #[test]
    fn the_hit_ratio_rises_with_the_cache_and_the_exponent() {
        let p = zipf_popularity(10_000, 0.8);
        let h: Vec<f64> = [10, 100, 1000, 5000]
            .iter()
            .map(|&c| che_hit_ratio(&p, c))
            .collect();
        assert!(h.windows(2).all(|w| w[0] < w[1]), "{h:?}");
        assert!(che_hit_ratio(&zipf_popularity(10_000, 1.2), 100) > h[1]);
    }

    /// An exact LRU of `c` contents fed `requests` seeded Zipf(`s`) draws over
    /// `n` contents, after a warm-up of `warmup` draws: its hit ratio.
    fn lru_simulation(n: u64, s: f64, c: usize, warmup: usize, requests: usize) -> f64 {
        let zipf = Zipf::new(n, s).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        // front: most recently used; n and c are small enough for a linear scan
        let mut lru: VecDeque<u64> = VecDeque::with_capacity(c + 1);
        let mut hits = 0usize;
        for k in 0..warmup + requests {
            let x = zipf.sample(&mut rng) as u64;
            let hit = match lru.iter().position(|&y| y == x) {
                Some(i) => {
                    lru.remove(i);
                    true
                }
                None => {
                    if lru.len() == c {
                        lru.pop_back();
                    }
                    false
                }
            };
            lru.push_front(x);
            if hit && k >= warmup {
                hits += 1;
            }
        }
        hits as f64 / requests as f64
    }

    #[test]
    fn zipf_against_an_exact_lru_within_half_a_point() {
        // 400k draws: the simulated ratio's standard error is below 0.1 point
        for (n, s, c) in [(2000, 0.8, 100), (2000, 1.0, 200), (5000, 0.6, 250)] {
            let che = che_hit_ratio(&zipf_popularity(n, s), c);
            let sim = lru_simulation(n as u64, s, c, 20_000, 400_000);
            assert!(
                (che - sim).abs() < 0.005,
                "N={n} s={s} C={c}: Che {che:.4}, LRU {sim:.4}"
            );
        }
    }
}
