//! Errors as RFC 9457 problem details (`application/problem+json`).
//!
//! `type` is `about:blank` (RFC 9457 section 4.2.1): the status code says what kind of problem
//! it is, `title` is the status phrase, `detail` says what exactly was wrong with this request,
//! and `instance` is the request path.

use eggcat_wire::{ProblemDocument, Removed};
use http::StatusCode;

/// A problem to render.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub(crate) status: StatusCode,
    pub(crate) detail: String,
    /// For `410 Gone`: the removed egg, rendered as extension members (RFC 9457 section 3.2)
    /// after the standard ones (boxed: every route returns a `Problem` as its error).
    gone: Option<Box<Removed>>,
}

impl Problem {
    pub(crate) fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            status,
            detail: detail.into(),
            gone: None,
        }
    }

    /// The same problem with the removed egg's members.
    pub(crate) fn with_gone(mut self, gone: Removed) -> Problem {
        self.gone = Some(Box::new(gone));
        self
    }

    /// The body for a request to `instance`.
    pub(crate) fn body(&self, instance: &str) -> Vec<u8> {
        let body = ProblemDocument {
            kind: "about:blank".to_owned(),
            title: self.status.canonical_reason().unwrap_or("Error").to_owned(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            instance: Some(instance.to_owned()),
            gone: self.gone.as_deref().cloned(),
        };
        serde_json::to_vec(&body).expect("a problem always serializes")
    }
}
