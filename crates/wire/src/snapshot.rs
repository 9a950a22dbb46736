//! A catalog as the build hands it over and as its readers take it: the files, the report and
//! the state, and the two functions through which a build reads the previous snapshot and puts
//! the new one's files (the caller's IO).

use std::collections::BTreeMap;

use crate::{Report, State};

/// Reads a file of the previous snapshot by its published path; `None` when it cannot. The
/// caller gives one that reads nothing when the previous snapshot was made under another
/// derivation. Reading is the caller's IO: the build stays a function of what it is given.
pub type PreviousFiles<'a> = &'a (dyn Fn(&str) -> Option<Vec<u8>> + Sync);

/// Takes each published file (its path under the output root, its bytes) as soon as the build
/// has made it, from any of the build's threads; each path once. Writing it is the caller's IO.
pub type Sink<'a> = &'a (dyn Fn(String, Vec<u8>) + Sync);

/// A complete catalog, ready to publish.
#[derive(Debug)]
pub struct Catalog {
    /// Every published document, by path under the output root.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The build report (also in `files` as [`crate::paths::STATUS`]).
    pub report: Report,
    /// What the next build needs to reuse this one.
    pub state: State,
}
