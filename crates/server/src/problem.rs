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
    /// Extension members (RFC 9457 section 3.2), after the standard ones.
    members: Option<serde_json::Value>,
}

impl Problem {
    pub(crate) fn new(status: StatusCode, detail: impl Into<String>) -> Problem {
        Problem {
            status,
            detail: detail.into(),
            members: None,
        }
    }

    /// The same problem with extension members (a JSON object).
    pub(crate) fn with_members(mut self, members: serde_json::Value) -> Problem {
        self.members = Some(members);
        self
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
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            members: Option<&'a serde_json::Value>,
        }
        let body = Body {
            kind: "about:blank",
            title: self.status.canonical_reason().unwrap_or("Error"),
            status: self.status.as_u16(),
            detail: &self.detail,
            instance,
            members: self.members.as_ref(),
        };
        serde_json::to_vec(&body).expect("a problem always serializes")
    }
}
