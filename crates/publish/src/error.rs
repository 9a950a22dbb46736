//! The errors of a publish, sorted into the kinds an operator acts on differently: the
//! configuration, the credentials, the bucket, the network, and anything else the store said.
//! Every message is one line and never carries a credential: [`redact`] removes the configured
//! secrets from whatever text the store or the HTTP client produced.

/// A failed publish.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The `[publish]` settings or `--to` cannot be used.
    #[error("invalid publish target: {0}")]
    Config(String),
    /// There is no published snapshot to upload yet.
    #[error("nothing to publish: {0}")]
    NoSnapshot(String),
    /// No credentials anywhere: not in the environment, not in the shared credentials file, and
    /// no instance metadata service answered (the last place `object_store` looks).
    #[error(
        "no credentials found for {target}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, \
         or put them in ~/.aws/credentials"
    )]
    NoCredentials { target: String },
    /// The store refused the credentials (wrong, or without the permission).
    #[error(
        "the store refused the credentials for {target}: {detail}; check the key and secret \
         (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials) and that the key \
         may write to the bucket"
    )]
    Credentials { target: String, detail: String },
    /// The bucket does not exist.
    #[error(
        "bucket `{bucket}` does not exist at {endpoint}: create it, or fix the bucket in \
         `[publish]` `url` (or --to)"
    )]
    NoBucket { bucket: String, endpoint: String },
    /// The store could not be reached, or stopped answering.
    #[error(
        "cannot reach the store at {endpoint}: {detail}; check the endpoint (`endpoint` in \
         `[publish]`, or AWS_ENDPOINT_URL) and that the store is up"
    )]
    Network { endpoint: String, detail: String },
    /// Any other answer of the store, with the operation and key it was for.
    #[error("{operation} {key} failed: {detail}")]
    Store {
        operation: &'static str,
        key: String,
        detail: String,
    },
}

/// Where an error happened, to classify and word it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) target: &'a str,
    pub(crate) bucket: &'a str,
    pub(crate) endpoint: &'a str,
    pub(crate) secrets: &'a [String],
}

impl Context<'_> {
    /// Sorts an `object_store` error from `operation` on `key` into a [`PublishError`].
    pub(crate) fn classify(
        &self,
        operation: &'static str,
        key: &str,
        error: &object_store::Error,
    ) -> PublishError {
        let text = one_line(&redact(&chain(error), self.secrets));
        let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
        // Without configured credentials `object_store` asks the EC2 instance metadata service
        // (`/latest/api/token`, then `/latest/meta-data/iam/security-credentials/`); off EC2
        // that request fails (refused, timed out, or denied by a proxy), and the store itself
        // was never asked. Explicit credentials never reach that service.
        if has(&[
            "/latest/api/token",
            "/latest/meta-data/iam/security-credentials",
        ]) {
            return PublishError::NoCredentials {
                target: self.target.to_owned(),
            };
        }
        if has(&["NoSuchBucket", "bucket does not exist"]) {
            return PublishError::NoBucket {
                bucket: self.bucket.to_owned(),
                endpoint: self.endpoint.to_owned(),
            };
        }
        let auth = matches!(
            error,
            object_store::Error::PermissionDenied { .. }
                | object_store::Error::Unauthenticated { .. }
        ) || has(&[
            "SignatureDoesNotMatch",
            "InvalidAccessKeyId",
            "AccessDenied",
            "ExpiredToken",
            "InvalidToken",
            "403 Forbidden",
            "credential",
        ]);
        if auth {
            // The store's sentence ends with a full stop; the advice follows after `; `.
            let detail = s3_error(&text).unwrap_or(text);
            return PublishError::Credentials {
                target: self.target.to_owned(),
                detail: detail.trim_end_matches('.').to_owned(),
            };
        }
        let network = has(&[
            "error sending request",
            "connect",
            "Connection refused",
            "connection closed",
            "timed out",
            "dns error",
            "error trying to connect",
            "incomplete message",
            "reset by peer",
        ]);
        if network {
            // The innermost cause says what happened ("tcp connect error: Connection refused");
            // the layers above it repeat the request.
            let parts: Vec<&str> = text.split(": ").collect();
            let cause = parts[parts.len().saturating_sub(2)..].join(": ");
            let retries = text
                .split(", ")
                .find(|p| p.starts_with("after ") && p.ends_with(" retries"))
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            // A timeout is one request's: say which object the store did not answer for.
            let what = if has(&["timed out"]) && !key.is_empty() {
                format!("{operation} {key}: ")
            } else {
                String::new()
            };
            return PublishError::Network {
                endpoint: self.endpoint.to_owned(),
                detail: format!("{what}{cause}{retries}"),
            };
        }
        PublishError::Store {
            operation,
            key: key.to_owned(),
            detail: s3_error(&text).unwrap_or(text),
        }
    }
}

/// `Code: Message` of an S3 error document in `text`, if there is one.
fn s3_error(text: &str) -> Option<String> {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&format!("</{name}>"))? + start;
        Some(text[start..end].trim().to_owned())
    };
    let code = tag("Code")?;
    Some(match tag("Message") {
        Some(message) => format!("{code}: {message}"),
        None => code,
    })
}

/// The error and its sources, joined with `: `.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

/// `text` with every non-empty secret replaced by `***`.
pub fn redact(text: &str, secrets: &[String]) -> String {
    secrets
        .iter()
        .filter(|s| s.len() >= 4)
        .fold(text.to_owned(), |t, s| t.replace(s.as_str(), "***"))
}

/// White space (the store's XML bodies span lines) folded to single spaces, at most 400 chars.
fn one_line(text: &str) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.len() > 400 {
        let mut end = 400;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push_str(" ...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_and_text_is_one_line() {
        let secrets = vec!["s3cr3tKEY".to_owned(), String::new()];
        assert_eq!(
            redact("key=s3cr3tKEY, again s3cr3tKEY", &secrets),
            "key=***, again ***"
        );
        assert_eq!(one_line("a\n  <Code>\n b"), "a <Code> b");
        assert!(one_line(&"é".repeat(300)).ends_with(" ..."));
    }

    #[test]
    fn errors_are_sorted_by_what_the_store_said() {
        let secrets = vec!["topsecret".to_owned()];
        let cx = Context {
            target: "s3://b/p",
            bucket: "b",
            endpoint: "http://127.0.0.1:1",
            secrets: &secrets,
        };
        let generic = |msg: &str| object_store::Error::Generic {
            store: "S3",
            source: msg.to_owned().into(),
        };
        let e = cx.classify("list", "p/", &generic("<Code>NoSuchBucket</Code>"));
        assert!(matches!(e, PublishError::NoBucket { .. }), "{e}");
        let xml = "403 Forbidden: <Error><Code>SignatureDoesNotMatch</Code>\
                   <Message>Bad topsecret</Message></Error>";
        let e = cx.classify("put", "p/x", &generic(xml));
        assert!(matches!(e, PublishError::Credentials { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("s3://b/p: SignatureDoesNotMatch: Bad ***; check the key"),
            "{e}"
        );
        assert!(!e.to_string().contains("topsecret"), "{e}");
        let e = cx.classify(
            "put",
            "p/x",
            &generic(
                "GET x in 1ms, after 3 retries, max_retries: 3 - HTTP error: error sending \
                 request: client error (Connect): tcp connect error: Connection refused",
            ),
        );
        assert!(matches!(e, PublishError::Network { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "cannot reach the store at http://127.0.0.1:1: tcp connect error: \
             Connection refused (after 3 retries); check the endpoint (`endpoint` in \
             `[publish]`, or AWS_ENDPOINT_URL) and that the store is up"
        );
        let imds = "Error performing PUT http://169.254.169.254/latest/api/token in 2ms - \
                    Server returned non-2xx status code: 403 Forbidden: resolve_deny";
        let e = cx.classify("list", "p/", &generic(imds));
        assert_eq!(
            e.to_string(),
            "no credentials found for s3://b/p: set AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY, or put them in ~/.aws/credentials"
        );
        let e = cx.classify("put", "p/x", &generic("500 Internal Server Error"));
        assert_eq!(
            e.to_string(),
            "put p/x failed: Generic S3 error: 500 Internal Server Error"
        );
    }
}
