//! Publishing the catalog past one machine: uploading the current snapshot to S3-compatible
//! object storage incrementally and in a reader-safe order, and generating the rules a static
//! host or CDN needs for the API's aliases, `410 Gone` and problem documents.
//!
//! [`plan`] (pure) decides what to upload, skip and delete; [`publish`] does it against a
//! bucket through `object_store`; [`rules`] (pure) writes the nginx, Caddy and CloudFront
//! configuration for an `eggcat build --out` tree or a bucket.

mod error;
mod execute;
mod objects;
mod plan;
pub mod rules;
mod target;

pub use error::{PublishError, redact};
pub use execute::{Event, Options, Summary, publish};
pub use objects::{LocalObject, NOT_FOUND_KEY, alias, key, objects};
pub use plan::{Plan, RemoteObject, is_md5, plan};
pub use target::{
    CacheControl, DEFAULT_CONCURRENCY, DEFAULT_DOCUMENTS_CACHE_CONTROL,
    DEFAULT_LISTS_CACHE_CONTROL, DEFAULT_REQUEST_TIMEOUT, Target,
};
