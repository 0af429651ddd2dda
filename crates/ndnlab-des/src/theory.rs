//! Analytic results of queueing theory that a [`crate::station::Station`] and
//! the data-plane model must reproduce (`tests/queueing.rs` of this crate and
//! of `ndnlab-model`). Rates are per unit time, times in the same
//! unit; λ is the arrival rate, μ the service rate, ρ = λ/μ.
//!
//! "Waiting time" Wq is the time in the queue before service starts, "queue
//! length" Lq the number waiting (not in service), as a station counts them.

/// M/M/1: mean waiting time Wq = ρ / (μ - λ). Needs ρ < 1.
pub fn mm1_wait(lambda: f64, mu: f64) -> f64 {
    let rho = lambda / mu;
    rho / (mu - lambda)
}

/// M/M/1: mean number waiting Lq = ρ² / (1 - ρ). Needs ρ < 1.
pub fn mm1_queue_len(lambda: f64, mu: f64) -> f64 {
    let rho = lambda / mu;
    rho * rho / (1.0 - rho)
}

/// M/M/1/K (K places in the system, one in service): the probability that an
/// arrival finds the system full and is lost,
/// P_K = (1 - ρ) ρ^K / (1 - ρ^(K+1)), or 1/(K + 1) at ρ = 1.
pub fn mm1k_loss(lambda: f64, mu: f64, k: u32) -> f64 {
    let rho = lambda / mu;
    if (rho - 1.0).abs() < 1e-12 {
        return 1.0 / f64::from(k + 1);
    }
    (1.0 - rho) * rho.powi(k as i32) / (1.0 - rho.powi(k as i32 + 1))
}

/// M/G/1 (Pollaczek-Khinchine): Wq = λ E[S²] / (2 (1 - ρ)), with ρ = λ E[S].
pub fn mg1_wait(lambda: f64, mean_s: f64, second_moment_s: f64) -> f64 {
    let rho = lambda * mean_s;
    lambda * second_moment_s / (2.0 * (1.0 - rho))
}

/// M/D/1: Wq = ρ / (2 μ (1 - ρ)), the P-K formula with a constant service 1/μ.
pub fn md1_wait(lambda: f64, mu: f64) -> f64 {
    let s = 1.0 / mu;
    mg1_wait(lambda, s, s * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_values() {
        // λ = 0.8, μ = 1: Wq = 4, Lq = 3.2 (Little: Lq = λ Wq).
        assert!((mm1_wait(0.8, 1.0) - 4.0).abs() < 1e-12);
        assert!((mm1_queue_len(0.8, 1.0) - 3.2).abs() < 1e-12);
        // M/D/1 waits half as long as M/M/1.
        assert!((md1_wait(0.8, 1.0) - 2.0).abs() < 1e-12);
        // M/M/1/K at ρ = 1 is uniform over 0..=K.
        assert!((mm1k_loss(1.0, 1.0, 4) - 0.2).abs() < 1e-12);
        // K = 1 (no waiting room): Erlang B with one server, ρ/(1+ρ).
        assert!((mm1k_loss(0.5, 1.0, 1) - 0.5 / 1.5).abs() < 1e-12);
        // Exponential service in P-K gives M/M/1: E[S²] = 2/μ².
        assert!((mg1_wait(0.8, 1.0, 2.0) - mm1_wait(0.8, 1.0)).abs() < 1e-12);
    }
}
