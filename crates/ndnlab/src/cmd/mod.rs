//! One module per subcommand.

pub mod packet;
