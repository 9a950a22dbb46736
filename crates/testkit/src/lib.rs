//! Test support only: what the tests of several eggcat crates share, written once. It is a
//! `[dev-dependencies]` entry of those crates and never a dependency of a library or of the
//! binary, and it depends on no eggcat crate, so it adds nothing to what eggcat builds.
//!
//! - [`corpus`]: the real corpus beside the checkout (`../shared/upstream`), the one place that
//!   decides whether a test that needs it runs, is skipped with one line, or fails
//!   (`EGGCAT_CORPUS=require`); and the egg files in it.
//! - [`git`]: the `git` program run under a fixed identity and date, and work-tree repositories
//!   made with it, as upstreams for tests.
//! - [`nginx`]: nginx run as the test's own process on loopback, with an access log the test
//!   reads back (what the server saw).
//! - [`tls`]: a test CA and a server certificate `openssl` makes, for nginx to serve HTTPS.

pub mod corpus;
pub mod git;
pub mod nginx;
pub mod tls;

pub use corpus::{corpus, egg_files, pelican_eggs, skip_test, strict};
pub use git::{DATE, Repo, git, git_at};
