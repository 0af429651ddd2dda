//! One-dimensional root finding and minimisation with argmin's Brent solvers,
//! plus the bracket search they need.

use argmin::core::{CostFunction, Executor, State};
use argmin::solver::brent::{BrentOpt, BrentRoot};

struct Fn1<F>(F);

impl<F: Fn(f64) -> f64> CostFunction for Fn1<F> {
    type Param = f64;
    type Output = f64;
    fn cost(&self, x: &f64) -> Result<f64, argmin::core::Error> {
        Ok((self.0)(*x))
    }
}

/// A root of `f` in `[lo, hi]`, where `f(lo)` and `f(hi)` have opposite signs,
/// to relative tolerance `tol`.
pub fn root(f: impl Fn(f64) -> f64, lo: f64, hi: f64, tol: f64) -> Option<f64> {
    let res = Executor::new(Fn1(f), BrentRoot::new(lo, hi, tol))
        .configure(|s| s.max_iters(200))
        .run()
        .ok()?;
    res.state().get_best_param().copied()
}

/// A root of a monotone `f` near `guess > 0`: the bracket `[guess / 2^k, guess * 2^k]`
/// grows until `f` changes sign (at most `2^60` either way), then Brent's method.
pub fn root_near(f: impl Fn(f64) -> f64, guess: f64, tol: f64) -> Option<f64> {
    let (mut lo, mut hi) = (guess / 2.0, guess * 2.0);
    let (mut flo, mut fhi) = (f(lo), f(hi));
    for _ in 0..60 {
        if flo.is_finite() && fhi.is_finite() && flo * fhi <= 0.0 {
            return root(&f, lo, hi, tol);
        }
        lo /= 2.0;
        hi *= 2.0;
        flo = f(lo);
        fhi = f(hi);
    }
    None
}

/// The minimum of `f` on `[lo, hi]` by Brent's method: `(x, f(x))`, to about 1e-10 relative.
pub fn minimize(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> Option<(f64, f64)> {
    minimize_tol(f, lo, hi, 1e-10)
}

/// [`minimize`] to a tolerance of `tol (|x| + 0.01)`.
pub fn minimize_tol(f: impl Fn(f64) -> f64, lo: f64, hi: f64, tol: f64) -> Option<(f64, f64)> {
    let res = Executor::new(Fn1(f), BrentOpt::new(lo, hi).set_tolerance(tol, tol * 0.01))
        .configure(|s| s.max_iters(200))
        .run()
        .ok()?;
    let s = res.state();
    Some((*s.get_best_param()?, s.get_best_cost()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_roots_and_minima() {
        let r = root_near(|x| x * x - 2.0, 10.0, 1e-12).unwrap();
        assert!((r - 2f64.sqrt()).abs() < 1e-9);
        let (x, fx) = minimize(|x| (x - 0.3).powi(2) + 1.0, -2.0, 2.0).unwrap();
        assert!((x - 0.3).abs() < 1e-6 && (fx - 1.0).abs() < 1e-12);
    }
}
