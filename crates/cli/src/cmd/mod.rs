//! One file per subcommand.

pub(crate) mod build;
pub(crate) mod diff;
pub(crate) mod publish;
pub(crate) mod serve;
pub(crate) mod validate;
