//! The figures of the models, drawn with `ndnlab_report`'s plots and written
//! as SVG and PNG: the model crate computes, the laboratory draws.
//!
//! - [`fitting`]: the figures of `ndnlab model fit` and `sample`;
//! - [`trace`]: a data-plane model run's queues and PIT over time
//!   (`ndnlab model simulate --trace`).
//!
//! The figures of an exploration are `crate::explore::plot`'s.

pub mod fitting;
pub mod trace;
