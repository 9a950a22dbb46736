//! Errors as RFC 9457 problem details (`application/problem+json`).
//!
//! `type` is `about:blank` (RFC 9457 section 4.2.1): the status code says what kind of problem
//! it is, `title` is the status phrase, `detail` says what exactly was wrong with this request,
//! and `instance` is the request path.

use http::StatusCode;
use serde::Serialize;

/// A problem to render.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub(crate) status: StatusCode,
    pub(crate) detail: String,
}

impl Problem {
    pub(crate) fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            status,
            detail: detail.into(),
        }
    }

    /// The body for a request to `instance`.
    pub(crate) fn body(&self, instance: &str) -> Vec<u8> {
        #[derive(Serialize)]
        struct Body<'a> {
            #[serde(rename = "type")]
            kind: &'a str,
            title: &'a str,
            status: u16,
            detail: &'a str,
            instance: &'a str,
        }
        let body = Body {
            kind: "about:blank",
            title: self.status.canonical_reason().unwrap_or("Error"),
            status: self.status.as_u16(),
            detail: &self.detail,
            instance,
        };
        serde_json::to_vec(&body).expect("a problem always serializes")
    }
}
