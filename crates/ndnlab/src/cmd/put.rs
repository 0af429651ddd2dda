//! `ndnlab put`: publish a file as versioned, segmented Data (ndnputchunks).

use ndnlab_lab::app::tools::{block_on, put};

pub use put::PutArgs;

pub fn run(args: PutArgs) -> anyhow::Result<()> {
    block_on(2, put::run(args))?
}
