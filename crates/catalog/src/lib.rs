//! The catalog: the pure build from upstream files to published documents.
//!
//! Architecture invariant: nothing here does IO or reads the clock. [`build`] is a function of
//! (the sources' scanned files, the previous catalog's state, the times it is given), and the same
//! input gives byte-identical documents. Only the types of `eggcat-wire` (re-exported in [`wire`])
//! reach the output.
//!
//! The flow for one source: the fetcher lists the upstream tree as [`TreeEntry`]s, asks
//! [`needs_content`] which blobs to read, fills them in, and [`scan`] turns the entries into
//! parsed eggs plus the files it skipped and why. [`build`] then merges every source with the
//! previous catalog (kept eggs, `indexedAt`), assigns slugs, and renders the documents.

mod compat;
pub mod downloads;
pub mod games;
pub mod history;
mod identity;
pub mod images;
mod imports;
mod name;
mod par;
mod raw_url;
pub mod reuse;
mod scan;
mod slug;
mod stages;
pub mod wire;

pub use downloads::DownloadFindings;
pub use eggcat_wire::{Catalog, INTERFACE_VERSION, PreviousFiles, Sink, hex, paths, rfc3339};
pub use images::{ImageFinding, ImageFindings};
pub use name::{display_name, sort_names};
pub use raw_url::render_raw_url;
pub use scan::{
    EntryKind, MAX_FILE_SIZE, ParsedEgg, SourceScan, TreeEntry, is_egg_file_name, needs_content,
    scan,
};
pub use slug::{SlugKey, assign_slugs, kebab, stem};
pub use stages::{
    BuildContext, Built, Fetched, FirstRead, KEPT_PREVIOUS_EGGS, Previous, PreviousError,
    PreviousSource, SourceInfo, SourceInput, build, build_into, input_downloads, input_references,
};
