//! Fitting distributions to latency samples, after the procedure of Dataplot
//! (NIST/SEMATECH e-Handbook, section 1.3.6 and 1.3.3.23-30): probability plot
//! correlation coefficients (PPCC) with Filliben's order-statistic medians, PPCC
//! sweeps over a family's shape parameter, maximum-likelihood estimates, the
//! Anderson-Darling and Kolmogorov-Smirnov statistics and the Box-Cox
//! transformation to normality.
//!
//! * [`dist`]: the fitted distributions ([`Dist`]): density, CDF, quantile,
//!   sampling; serialisable, so a model file can hold them;
//! * [`solve`]: one-dimensional root finding and minimisation (argmin's Brent
//!   solvers) with bracket search;
//! * [`mle`]: maximum-likelihood fits of each [`Family`];
//! * [`ppcc`]: plotting positions, the PPCC and coarse-then-fine shape sweeps;
//! * [`gof`]: log-likelihood, Anderson-Darling and Kolmogorov-Smirnov statistics;
//! * [`boxcox`]: the Box-Cox transformation, its best λ (by normal PPCC, as
//!   Dataplot's Box-Cox normality plot, and by likelihood) and its curve;
//! * [`select`]: every candidate fitted to one sample, the choice and the
//!   explained verdict.
//!
//! Nothing here does I/O; inputs are slices of finite numbers.

pub mod boxcox;
pub mod dist;
pub mod gof;
pub mod mle;
pub mod ppcc;
pub mod select;
pub mod solve;

pub use dist::{Dist, Family, Sampler};
pub use select::{fit_sample, Candidate, FitOptions, SampleFit};
