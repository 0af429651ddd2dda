//! `ndnlab get`: fetch versioned, segmented Data (ndncatchunks).

use ndnlab_lab::app::tools::{block_on, get};

pub use get::GetArgs;

pub fn run(args: GetArgs) -> anyhow::Result<()> {
    block_on(2, get::run(args))?.map(|_| ())
}
