//! The published contract: every document eggcat publishes, field by field, in output order
//! (the egg documents, the index, the report, the state, the histories, with the diagnostics
//! and changes inside them, the summary items, and the problem documents), where each file of
//! the published tree lives and the media type it is served with ([`paths`]), what reads a
//! snapshot back ([`Catalog`], [`PreviousFiles`], [`Sink`]), and what the fetcher hands the
//! build ([`TreeEntry`], [`SourceHistory`]).
//!
//! Architecture invariant: these are the only types serialized into the published tree (plus
//! the upstream egg itself, carried as raw JSON). docs/catalog-format.md documents each field; a
//! change here is a change of the interface version. This crate depends on serde alone (and
//! humantime for [`rfc3339`]): the build (`eggcat-catalog`), the server, the store and the
//! uploads all read the contract from here, and only the build reaches the code that derives it.

mod change;
mod database;
mod diagnostic;
mod documents;
mod git;
mod image;
pub mod paths;
#[cfg(feature = "schemars")]
mod patterns;
mod snapshot;
mod summary;
mod text;

pub use change::{Change, Kind, ScriptDiff};
pub use database::Database;
pub use diagnostic::{Diagnostic, Severity};
pub use documents::*;
pub use git::{Base, EntryKind, FileChange, LogCommit, MAX_FILE_SIZE, SourceHistory, TreeEntry};
pub use image::{ImageFinding, ImageFindings, ImageReference, ReferenceError, reference_error};
pub use snapshot::{Catalog, PreviousFiles, Sink};
pub use summary::{Importable, NameForms, SummaryItem};
pub use text::{hex, kebab, rfc3339};

/// The interface version the published documents follow.
pub const INTERFACE_VERSION: &str = "2.0.0";
