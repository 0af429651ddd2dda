//! Goodness of fit of a distribution to a sample: log-likelihood, the
//! Anderson-Darling A² and the Kolmogorov-Smirnov D statistics (as
//! `scipy.stats.anderson` and `scipy.stats.kstest` compute them).

use super::dist::Dist;

/// Σ ln f(x_i); minus infinity when a value lies outside the support.
pub fn log_likelihood(dist: &Dist, x: &[f64]) -> f64 {
    x.iter().map(|&v| dist.pdf(v).ln()).sum()
}

/// A² = -n - Σ (2i - 1)/n [ln F(x_(i)) + ln(1 - F(x_(n+1-i)))], of a sorted sample.
pub fn anderson_darling(dist: &Dist, sorted: &[f64]) -> f64 {
    let n = sorted.len();
    let f: Vec<f64> = sorted.iter().map(|&v| dist.cdf(v)).collect();
    let nf = n as f64;
    let mut s = 0.0;
    for i in 0..n {
        let lc = f[i].max(1e-300).ln();
        let ls = (-f[n - 1 - i]).ln_1p().max(-700.0);
        s += (2 * i + 1) as f64 / nf * (lc + ls);
    }
    -nf - s
}

/// D = sup |F_n(x) - F(x)| of a sorted sample.
pub fn kolmogorov_smirnov(dist: &Dist, sorted: &[f64]) -> f64 {
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let f = dist.cdf(v);
            ((i + 1) as f64 / n - f).max(f - i as f64 / n)
        })
        .fold(0.0, f64::max)
}

/// The two-sample Kolmogorov-Smirnov D of two sorted samples.
pub fn ks_two_sample(a: &[f64], b: &[f64]) -> f64 {
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    while i < a.len() && j < b.len() {
        let v = a[i].min(b[j]);
        while i < a.len() && a[i] <= v {
            i += 1;
        }
        while j < b.len() && b[j] <= v {
            j += 1;
        }
        d = d.max((i as f64 / na - j as f64 / nb).abs());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_of_a_perfect_grid() {
        let d = Dist::Exponential {
            scale: 1.0,
            location: 0.0,
        };
        let x: Vec<f64> = (0..100)
            .map(|i| d.quantile((i as f64 + 0.5) / 100.0))
            .collect();
        assert!((kolmogorov_smirnov(&d, &x) - 0.005).abs() < 1e-9);
        assert_eq!(ks_two_sample(&x, &x), 0.0);
    }
}
