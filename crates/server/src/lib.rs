//! The HTTP server of the catalog.
//!
//! One module per HTTP concern: [`routes`](crate::routes) (paths and query), `encoding`
//! (Accept-Encoding), `snapshot` (the index of a snapshot's files, their bodies read from disk), `conditional` (ETag and dates), `problem` (RFC 9457
//! errors), `metrics` (Prometheus), `listener` (the accept loop and its limits), `framing` (strict request framing, checked before hyper parses a head), `sendfile` (large bodies sent from their files), `openapi` (the
//! served OpenAPI document: the committed `openapi.served.json`, which the tests compose from the
//! hand-written part of that same file and schemas generated from the types). The pipeline reads top to bottom in [`App::handle`].

mod answers;
mod app;
mod bodies;
mod conditional;
mod encoding;
mod error;
mod framing;
mod listener;
mod metrics;
mod openapi;
mod problem;
mod routes;
mod sendfile;
mod snapshot;

pub use answers::{
    Health, HealthStatus, LastRebuild, Ready, ReadyProblem, ReadyProblemCode, ReadyStatus,
    RebuildOutcome, ServedReport,
};
pub use app::{App, AppOptions, Body};
pub use error::ServerError;
pub use listener::{ServeOptions, Server};
pub use snapshot::Snapshot;
