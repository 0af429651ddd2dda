//! One module per subcommand.

pub mod analyze;
pub mod bench;
pub mod bench_fwd;
pub mod bench_sim;
pub mod ctl;
pub mod fwd;
pub mod get;
pub mod key;
pub mod merge;
pub mod model;
pub mod model_dp;
pub mod model_explore;
pub mod model_validate;
pub mod packet;
pub mod perf;
pub mod ping;
pub mod put;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod submit;
pub mod topo;
pub mod traffic;
