//! Where a publish goes: the `s3://bucket/prefix` URL with its region, endpoint and path style,
//! and the credentials, which never come from the config file.
//!
//! Credentials, in order: the `AWS_*` environment variables (`AmazonS3Builder::from_env`: key,
//! secret, session token, web identity, container credentials); else the shared credentials
//! file (`AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`, profile `AWS_PROFILE` or
//! `default`), which `object_store` does not read itself; else the instance metadata service
//! (on EC2). The region likewise: `[publish] region`, `AWS_REGION`/`AWS_DEFAULT_REGION`, the
//! profile's `region` in `~/.aws/config`, `us-east-1`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{BackoffConfig, ClientOptions, RetryConfig};

use crate::error::PublishError;

/// The `Cache-Control` values uploaded with the objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheControl {
    /// For documents (egg documents, import files, pages of one egg, assets).
    pub documents: String,
    /// For the lists ([`eggcat_wire::paths::LISTS`] and the `api/v1/eggs` alias).
    pub lists: String,
}

/// Documents change only when their egg changes and a CDN may serve them for five minutes, and
/// stale for a day while it revalidates or when the bucket fails: the same default as `eggcat
/// serve`.
pub const DEFAULT_DOCUMENTS_CACHE_CONTROL: &str =
    "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400";

/// The lists change at every build that changes anything and name the documents: a short
/// freshness keeps what a CDN shows close to the bucket (a new egg appears within a minute), and
/// keeps short the time a cached list may name an egg just deleted (that path then answers 410
/// through the edge rules, or 404 from a bare bucket).
pub const DEFAULT_LISTS_CACHE_CONTROL: &str =
    "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400";

impl Default for CacheControl {
    fn default() -> CacheControl {
        CacheControl {
            documents: DEFAULT_DOCUMENTS_CACHE_CONTROL.into(),
            lists: DEFAULT_LISTS_CACHE_CONTROL.into(),
        }
    }
}

/// The `[publish]` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `s3://bucket` or `s3://bucket/prefix`.
    pub url: String,
    pub region: Option<String>,
    /// The S3 API's base URL for a service other than AWS (R2, MinIO, Garage, B2, moto).
    pub endpoint: Option<String>,
    /// Address the bucket as `endpoint/bucket` rather than `bucket.endpoint`.
    pub path_style: bool,
    pub cache_control: CacheControl,
    /// Upload the alias objects (`api/v1/eggs`, `api/v1/eggs/{slug}`) beside the files. Off for
    /// MinIO, Garage and other file-backed stores, which cannot hold a key `a/b` beside a key
    /// `a/b/c`: there the edge or host rules map the aliases.
    pub aliases: bool,
    /// Uploads in flight at once.
    pub concurrency: usize,
    /// How long one request may take before it is abandoned (and retried, up to three times):
    /// a store that hangs fails the publish within about four times this, never forever.
    pub request_timeout: Duration,
}

/// [`Target::request_timeout`] unless a caller sets another: long enough for a large object on
/// a slow link.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Eight uploads in flight keep a link busy with small objects without tripping rate limits
/// (S3 allows 3,500 writes per second per prefix; R2 and B2 fewer).
pub const DEFAULT_CONCURRENCY: usize = 8;

impl Target {
    /// A target for `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Target {
        Target {
            url: url.into(),
            region: None,
            endpoint: None,
            path_style: false,
            cache_control: CacheControl::default(),
            aliases: true,
            concurrency: DEFAULT_CONCURRENCY,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }

    /// The bucket and the prefix (without `/` at either end) of [`Target::url`].
    pub fn bucket_and_prefix(&self) -> Result<(String, String), PublishError> {
        let refuse = |why: &str| {
            PublishError::Config(format!(
                "`{}` {why} (expected s3://bucket or s3://bucket/prefix)",
                self.url
            ))
        };
        let rest = self
            .url
            .strip_prefix("s3://")
            .ok_or_else(|| refuse("is not an s3:// URL"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !bucket_ok {
            return Err(refuse("has no valid bucket name"));
        }
        let prefix = prefix.trim_matches('/');
        if prefix.split('/').any(|s| s == "." || s == "..")
            || prefix.contains("//")
            || prefix.contains(['?', '#', '\\'])
        {
            return Err(refuse("has an unusable prefix"));
        }
        Ok((bucket.to_owned(), prefix.to_owned()))
    }
}

/// The store's base URL, for messages: `endpoint` as it is used (from the configuration or
/// `AWS_ENDPOINT_URL`; naming AWS when the request went to the environment's endpoint told the
/// user to look in the wrong place), without a `user:password@` part.
fn endpoint_label(endpoint: Option<&str>, bucket: &str) -> String {
    let Some(e) = endpoint else {
        return format!("https://{bucket}.s3.amazonaws.com");
    };
    let e = e.trim_end_matches('/');
    let Some((scheme, rest)) = e.split_once("://") else {
        return e.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{scheme}://{host}{path}")
}

/// The configured store, the secrets to keep out of every message, and the endpoint's label
/// for messages.
pub(crate) fn connect(
    target: &Target,
    bucket: &str,
) -> Result<(Arc<AmazonS3>, Vec<String>, String), PublishError> {
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let profile = env("AWS_PROFILE").unwrap_or_else(|| "default".into());
    let mut secrets: Vec<String> = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"]
        .iter()
        .filter_map(|k| env(k))
        .collect();
    if env("AWS_ACCESS_KEY_ID").is_none() {
        let file = env("AWS_SHARED_CREDENTIALS_FILE")
            .map(PathBuf::from)
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".aws/credentials")));
        let section = file.and_then(|f| read_ini_section(&f, &profile));
        if let Some(s) = section {
            let get = |k: &str| s.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            if let (Some(id), Some(secret)) =
                (get("aws_access_key_id"), get("aws_secret_access_key"))
            {
                secrets.push(secret.clone());
                builder = builder
                    .with_access_key_id(id)
                    .with_secret_access_key(secret);
                if let Some(token) = get("aws_session_token") {
                    secrets.push(token.clone());
                    builder = builder.with_token(token);
                }
            }
        }
    }
    let region = target
        .region
        .clone()
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .or_else(|| {
            let file = env("AWS_CONFIG_FILE")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".aws/config")))?;
            // `~/.aws/config` names profiles `[profile x]`, except `[default]`.
            let name = if profile == "default" {
                profile.clone()
            } else {
                format!("profile {profile}")
            };
            let section = read_ini_section(&file, &name)?;
            section
                .into_iter()
                .find(|(k, _)| k == "region")
                .map(|(_, v)| v)
        });
    if let Some(region) = region {
        builder = builder.with_region(region);
    }
    // The endpoint as configured, or as the AWS tools read it from the environment (which
    // `from_env` passes on without allowing plain http, so that an `http://` endpoint given only
    // there failed with "URL scheme is not allowed").
    let endpoint = target
        .endpoint
        .clone()
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .or_else(|| env("AWS_ENDPOINT"));
    let label = endpoint_label(endpoint.as_deref(), bucket);
    let plain_http = endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    if let Some(endpoint) = &endpoint {
        builder = builder
            .with_endpoint(endpoint.trim_end_matches('/'))
            .with_allow_http(plain_http);
    }
    builder = builder
        .with_virtual_hosted_style_request(!target.path_style)
        .with_client_options(
            ClientOptions::new()
                .with_allow_http(plain_http)
                .with_connect_timeout(Duration::from_secs(5))
                .with_timeout(target.request_timeout),
        )
        // A few quick retries ride out a blip; a dead store is reported within seconds rather
        // than after the library's default of ten retries over three minutes.
        .with_retry(RetryConfig {
            backoff: BackoffConfig::default(),
            max_retries: 3,
            retry_timeout: Duration::from_secs(20),
        });
    let store = builder
        .build()
        .map_err(|e| PublishError::Config(crate::error::redact(&e.to_string(), &secrets)))?;
    Ok((Arc::new(store), secrets, label))
}

/// The `key = value` lines of `[name]` in an INI file (the AWS shared files' format).
fn read_ini_section(path: &std::path::Path, name: &str) -> Option<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut inside = false;
    let mut found = None::<Vec<(String, String)>>;
    for line in text.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = header.trim() == name;
            if inside {
                found.get_or_insert_with(Vec::new);
            }
        } else if inside
            && !line.starts_with(['#', ';'])
            && let Some((k, v)) = line.split_once('=')
        {
            let section = found.get_or_insert_with(Vec::new);
            section.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_label_is_the_endpoint_used_without_credentials() {
        assert_eq!(
            endpoint_label(None, "eggs"),
            "https://eggs.s3.amazonaws.com"
        );
        assert_eq!(
            endpoint_label(Some("http://127.0.0.1:9000/"), "eggs"),
            "http://127.0.0.1:9000"
        );
        assert_eq!(
            endpoint_label(Some("https://user:secret@s3.example.org/base"), "eggs"),
            "https://s3.example.org/base"
        );
    }

    #[test]
    fn urls_give_bucket_and_prefix() {
        let bp = |u: &str| Target::new(u).bucket_and_prefix();
        assert_eq!(bp("s3://eggs").unwrap(), ("eggs".into(), String::new()));
        assert_eq!(
            bp("s3://eggs/cat/v1/").unwrap(),
            ("eggs".into(), "cat/v1".into())
        );
        for bad in [
            "https://eggs",
            "s3://",
            "s3://UPPER",
            "s3://ab",
            "s3://eggs/a/../b",
            "s3://e_g",
        ] {
            let e = bp(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn ini_sections_are_read() {
        let dir = std::env::temp_dir().join(format!("eggcat-ini-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("credentials");
        std::fs::write(
            &f,
            "[default]\naws_access_key_id = A\n# c\n[other]\naws_access_key_id=B\naws_secret_access_key = s\n",
        )
        .unwrap();
        let other = read_ini_section(&f, "other").unwrap();
        assert_eq!(other[1], ("aws_secret_access_key".into(), "s".into()));
        assert_eq!(read_ini_section(&f, "default").unwrap().len(), 1);
        assert!(read_ini_section(&f, "none").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
