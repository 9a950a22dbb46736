//! The eggs for the same game as an egg page shows them: the egg's own version and each other
//! version, with the changes from the egg to each ([`super::Siblings::of`]).

use eggcat_diff::Change;

use super::Doc;
use crate::wire::Meta;

/// The most eggs of one version the section names; the others are counted.
pub const LISTED: usize = 3;

/// The eggs for the same game as the egg page shows them.
#[derive(Debug)]
pub enum Others<'a> {
    /// The egg is the only one for its game: no section.
    Alone,
    /// The other eggs, in at most [`super::MAX_COMPARED`] versions.
    Compared(Compared<'a>),
    /// The game has this many eggs, in too many versions to compare each with every other.
    TooMany(usize),
}

/// The other eggs of a game of at most [`super::MAX_COMPARED`] versions.
#[derive(Debug)]
pub struct Compared<'a> {
    /// How many eggs serve the game, this one included.
    pub eggs: usize,
    /// How many versions they come in.
    pub versions: usize,
    /// The first [`LISTED`] other eggs of this egg's version.
    pub same: Vec<Sibling<'a>>,
    /// How many other eggs this egg's version has.
    pub same_total: usize,
    /// Every other version, in the order of their first slugs.
    pub others: Vec<Version<'a>>,
}

/// Another egg of this egg's version.
#[derive(Debug)]
pub struct Sibling<'a> {
    /// Its document's `meta`.
    pub meta: &'a Meta,
    /// The changes from this egg to it (to its identity only).
    pub changes: &'a [Change],
}

/// Another version of the game.
#[derive(Debug)]
pub struct Version<'a> {
    /// Its first egg by slug, the one set beside this egg.
    pub doc: &'a Doc,
    /// The first [`LISTED`] of its other eggs.
    pub more: Vec<&'a Meta>,
    /// How many other eggs it has.
    pub more_total: usize,
    /// The changes from this egg to its first egg.
    pub changes: &'a [Change],
}
