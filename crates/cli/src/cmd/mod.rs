//! One file per subcommand.

pub(crate) mod build;
pub(crate) mod serve;
