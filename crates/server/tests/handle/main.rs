//! The server's request handling, in-process: [`eggcat_server::App::handle`] over snapshots
//! saved through `eggcat-store` into temporary folders and opened from disk, as
//! `eggcat serve` opens them, without a socket or a build. Each module holds one part of the
//! contract docs/api.md states (documents and encodings, conditional requests, paths and errors,
//! damaged files, swaps, readiness); the end-to-end tests on a real port stay in
//! `crates/cli/tests/it/serve.rs`.

mod conditional;
mod damage;
mod documents;
mod errors;
mod readiness;
mod support;
mod swap;
