//! `eggcat serve`: not yet wired.

use anyhow::Result;

use crate::config::Config;

pub(crate) fn run(_config: Config) -> Result<()> {
    anyhow::bail!("serve is not implemented yet")
}
