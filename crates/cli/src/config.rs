//! The configuration file (TOML): which sources to index, where data lives, how to serve.
//!
//! Without `--config`, `eggcat.toml` in the working directory is used when present, else the
//! built-in default: the ten pelican-eggs repositories and pterodactyl/game-eggs on GitHub.
//! Relative paths in a file are relative to the file's folder.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use eggcat_publish::{CacheControl, Target};
use eggcat_upstream::{HistoryDepth, Limits, Source, SourceSpec, default_sources};
use serde::Deserialize;

/// The file's keys, all optional but `[[source]]` (which defaults to the built-in list when the
/// file has none).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    data_dir: Option<PathBuf>,
    listen: Option<String>,
    base_url: Option<String>,
    refresh: Option<String>,
    cache_control: Option<String>,
    fetch_timeout: Option<String>,
    max_source_bytes: Option<u64>,
    history_depth: Option<u32>,
    history_since: Option<String>,
    max_connections: Option<usize>,
    workers: Option<usize>,
    #[serde(default)]
    source: Vec<SourceSpec>,
    publish: Option<PublishTable>,
    images: Option<ImagesTable>,
}

/// `[images]`: asking the registries whether the catalog's images exist, and for which
/// platforms (docs/operations.md). Every key optional; the defaults are
/// [`eggcat_images::Options::default`]'s.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImagesTable {
    enabled: Option<bool>,
    ttl: Option<String>,
    concurrency: Option<usize>,
    timeout: Option<String>,
    budget: Option<String>,
    skip: Option<Vec<String>>,
    allow_internal: Option<bool>,
    resolve: Option<std::collections::BTreeMap<String, String>>,
    ca_file: Option<PathBuf>,
}

impl ImagesTable {
    fn resolve(self) -> Result<eggcat_images::Options> {
        let defaults = eggcat_images::Options::default();
        let duration = |key: &str, text: Option<String>, default| match text {
            Some(t) => parse_duration(key, &t),
            None => Ok(default),
        };
        if self.concurrency == Some(0) {
            bail!("`concurrency` must be at least 1");
        }
        let skip = self.skip.unwrap_or_default();
        if let Some(bad) = skip.iter().find(|r| r.is_empty() || r.contains(['/', ' '])) {
            bail!(
                "`skip`: `{bad}` is not a registry host (write it as an image reference starts: \
                 `docker.io`, `ghcr.io`, `registry.example.org:5000`)"
            );
        }
        let mut resolve = std::collections::BTreeMap::new();
        for (host, to) in self.resolve.unwrap_or_default() {
            let resolution = if to == "hang" {
                eggcat_images::Resolution::Hang
            } else {
                let ip = to.parse().map_err(|_| {
                    anyhow::anyhow!(
                        "`resolve`: `{host}` = `{to}` is neither an IP address nor `hang`"
                    )
                })?;
                eggcat_images::Resolution::Address(ip)
            };
            resolve.insert(host.to_ascii_lowercase(), resolution);
        }
        Ok(eggcat_images::Options {
            allow_internal: self.allow_internal.unwrap_or(defaults.allow_internal),
            resolve,
            ca_file: self.ca_file.or(defaults.ca_file),
            enabled: self.enabled.unwrap_or(defaults.enabled),
            ttl: duration("ttl", self.ttl, defaults.ttl)?,
            concurrency: self.concurrency.unwrap_or(defaults.concurrency),
            timeout: duration("timeout", self.timeout, defaults.timeout)?,
            budget: duration("budget", self.budget, defaults.budget)?,
            skip,
        })
    }
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Where this configuration came from, for messages.
    pub(crate) origin: String,
    /// The file it was read from (`None`: the built-in default), which `serve` hands to the
    /// builds it runs.
    pub(crate) path: Option<PathBuf>,
    pub(crate) data_dir: PathBuf,
    pub(crate) listen: String,
    /// `base_url` as configured; see [`Config::base_url`].
    pub(crate) base_url: Option<String>,
    pub(crate) refresh: Duration,
    pub(crate) cache_control: String,
    pub(crate) max_connections: usize,
    /// HTTP worker threads; `None`: one per core.
    pub(crate) workers: Option<usize>,
    pub(crate) sources: Vec<Source>,
    pub(crate) limits: Limits,
    /// `[publish]`: the bucket to publish to after each build.
    pub(crate) publish: Option<eggcat_publish::Target>,
    /// `[images]`: how the images' registries are asked.
    pub(crate) images: eggcat_images::Options,
}

pub(crate) const DEFAULT_CACHE_CONTROL: &str =
    "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400";

impl Config {
    /// Loads `path`, or `./eggcat.toml`, or the built-in default.
    pub(crate) fn load(path: Option<&Path>) -> Result<Config> {
        let implicit = Path::new("eggcat.toml");
        let path = match path {
            Some(p) => Some(p),
            None if implicit.is_file() => Some(implicit),
            None => None,
        };
        let Some(path) = path else {
            return Config::from_file(File::default(), Path::new("."), "built-in default".into());
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                "config {} does not exist: give --config an existing file, or leave --config out \
                 to use ./eggcat.toml or, without it, the built-in sources",
                path.display()
            ),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read config {}", path.display()));
            }
        };
        let file: File = toml::from_str(&text).map_err(|e| {
            anyhow::anyhow!("invalid config {}{}", path.display(), describe(&e, &text))
        })?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut config = Config::from_file(file, base, path.display().to_string())
            .with_context(|| format!("invalid config {}", path.display()))?;
        config.path = Some(path.to_path_buf());
        Ok(config)
    }

    fn from_file(file: File, base: &Path, origin: String) -> Result<Config> {
        let specs = if file.source.is_empty() {
            default_sources()
        } else {
            file.source
        };
        let sources = specs
            .iter()
            .map(|s| Source::resolve(s, base))
            .collect::<Result<Vec<_>, _>>()?;
        let mut keys: Vec<String> = sources.iter().map(Source::key).collect();
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            bail!("source `{}` is configured twice", w[0]);
        }
        if file.max_connections == Some(0) {
            bail!("`max_connections` must be at least 1");
        }
        if file.workers == Some(0) {
            bail!("`workers` must be at least 1");
        }
        let defaults = Limits::default();
        Ok(Config {
            origin,
            path: None,
            data_dir: base.join(
                file.data_dir
                    .unwrap_or_else(|| PathBuf::from("eggcat-data")),
            ),
            listen: file.listen.unwrap_or_else(|| "127.0.0.1:8080".into()),
            base_url: file.base_url.as_deref().map(parse_base_url).transpose()?,
            refresh: parse_duration("refresh", file.refresh.as_deref().unwrap_or("3h"))?,
            cache_control: file
                .cache_control
                .unwrap_or_else(|| DEFAULT_CACHE_CONTROL.into()),
            max_connections: file.max_connections.unwrap_or(1024),
            workers: file.workers,
            limits: Limits {
                timeout: match file.fetch_timeout {
                    Some(t) => parse_duration("fetch_timeout", &t)?,
                    None => defaults.timeout,
                },
                max_bytes: file.max_source_bytes.unwrap_or(defaults.max_bytes),
                history: history_depth(file.history_depth, file.history_since.as_deref())?,
                history_bytes: defaults.history_bytes,
            },
            sources,
            publish: file
                .publish
                .map(PublishTable::resolve)
                .transpose()
                .context("invalid `[publish]`")?,
            images: {
                let mut images = file.images.unwrap_or_default();
                images.ca_file = images.ca_file.map(|f| base.join(f));
                images.resolve().context("invalid `[images]`")?
            },
        })
    }
}

/// `history_depth` (commits) or `history_since` (a date): how much of each source's history is
/// fetched for the eggs' histories. One or the other; the default is 100 commits.
fn history_depth(depth: Option<u32>, since: Option<&str>) -> Result<HistoryDepth> {
    match (depth, since) {
        (Some(_), Some(_)) => {
            bail!("`history_depth` and `history_since` cannot both be set: choose one")
        }
        (Some(0), None) => {
            bail!("`history_depth` must be at least 1 (1: the tip alone, no history)")
        }
        (Some(n), None) => Ok(HistoryDepth::Commits(n)),
        (None, Some(text)) => {
            let time = humantime::parse_rfc3339_weak(text)
                .or_else(|_| humantime::parse_rfc3339_weak(&format!("{text} 00:00:00")))
                .map_err(|_| {
                    anyhow::anyhow!(
                        "`history_since` = `{text}` is not a date (expected e.g. 2024-01-01 or 2024-01-01T12:00:00Z)"
                    )
                })?;
            let unix = time
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| anyhow::anyhow!("`history_since` = `{text}` is before 1970"))?;
            Ok(HistoryDepth::Since(unix.as_secs()))
        }
        (None, None) => Ok(HistoryDepth::default()),
    }
}

/// A TOML error on one line (TOML's own message draws a multi-line snippet): `:LINE:COLUMN: reason`
/// after the file name, as compilers print it (editors jump there); an unknown key gets "did you
/// mean" when one known key is close, else the list of known keys.
fn describe(e: &toml::de::Error, text: &str) -> String {
    // The span starts at the offending key or value: its line is the number of line breaks
    // before it, plus one. (Counting `lines()` of the text before it is one short when the span
    // starts a line, as an unknown key does.) The column counts characters, from 1.
    let at = e
        .span()
        .map(|s| {
            let before = &text.as_bytes()[..s.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
            format!(":{line}:{column}")
        })
        .unwrap_or_default();
    let message = e.message().trim();
    let said = match unknown_key(message) {
        Some((typed, known)) => {
            let known: Vec<&str> = known.collect();
            match crate::words::closest(typed, known.iter().copied()) {
                Some(k) => format!("unknown key `{typed}`; did you mean `{k}`?"),
                None if known.is_empty() => {
                    format!("unknown key `{typed}` (this table has no keys)")
                }
                None => format!(
                    "unknown key `{typed}` (the keys here: {})",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        None => message.replace('\n', " "),
    };
    format!("{at}: {said}")
}

/// The key and the known keys of serde's unknown-field message, "unknown field `lable`, expected
/// one of `url`, `branch`, ..." (or "expected `a` or `b`", or "there are no fields"): the names
/// are the backquoted words, the first being the unknown one.
fn unknown_key(message: &str) -> Option<(&str, impl Iterator<Item = &str>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (typed, rest) = rest.split_once('`')?;
    Some((typed, rest.split('`').skip(1).step_by(2)))
}

impl Config {
    /// Refuses a `data_dir` that is a file (the store would fail on it with "File exists", which
    /// names neither the key nor the fix). Permissions are left to the first write, whose error
    /// says what the OS refused.
    pub(crate) fn check_data_dir(&self) -> Result<()> {
        let dir = &self.data_dir;
        if dir.exists() && !dir.is_dir() {
            bail!(
                "`data_dir` {} ({}) is a file, not a folder: move the file, or set `data_dir` to \
                 a folder",
                dir.display(),
                self.origin
            );
        }
        Ok(())
    }

    /// Sets `base_url` (`build --base-url`), checked as the configured one is.
    pub(crate) fn set_base_url(&mut self, text: &str) -> Result<()> {
        self.base_url = Some(parse_base_url(text)?);
        Ok(())
    }

    /// The public address of the catalog: `base_url`, or `http://` + the listen address.
    pub(crate) fn base_url(&self) -> String {
        match &self.base_url {
            Some(url) => url.clone(),
            None => format!("http://{}", self.listen),
        }
    }
}

/// `base_url`: an absolute `http` or `https` URL with a host, no query, fragment or credentials.
/// A trailing `/` is dropped, so that paths join with one `/`.
fn parse_base_url(text: &str) -> Result<String> {
    let refuse = |why: &str| {
        anyhow::anyhow!(
            "`base_url` = `{text}` is not usable: {why} (expected an absolute http(s) URL such as \
             https://eggs.example.org or https://example.org/eggcat)"
        )
    };
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| refuse("it must start with http:// or https://"))?;
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() {
        return Err(refuse("it has no host"));
    }
    if host.contains('@') {
        return Err(refuse("credentials do not belong in a public address"));
    }
    if text.contains(['?', '#']) {
        return Err(refuse("a query or fragment cannot prefix paths"));
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse("it contains white space"));
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// `90s`, `30m`, `6h`, `1h 30m`: at least one second.
pub(crate) fn parse_duration(key: &str, text: &str) -> Result<Duration> {
    let d = humantime::parse_duration(text)
        .with_context(|| format!("`{key}`: invalid duration `{text}` (use e.g. 90s, 30m, 6h)"))?;
    if d < Duration::from_secs(1) {
        bail!("`{key}`: duration `{text}` is shorter than one second");
    }
    Ok(d)
}

/// The `[publish]` table as written in the file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PublishTable {
    url: Option<String>,
    region: Option<String>,
    endpoint: Option<String>,
    #[serde(default)]
    path_style: bool,
    cache_control: Option<String>,
    lists_cache_control: Option<String>,
    /// Alias objects beside the files; `false` for MinIO and Garage (see [`Target::aliases`]).
    aliases: Option<bool>,
    concurrency: Option<usize>,
    /// How long one request may take (see [`Target::request_timeout`]).
    timeout: Option<String>,
}

impl PublishTable {
    /// The target, checked. Credentials are deliberately not a key of the table.
    pub(crate) fn resolve(self) -> Result<Target> {
        let Some(url) = self.url else {
            bail!("`[publish]` needs `url` (s3://bucket or s3://bucket/prefix)");
        };
        if self.concurrency == Some(0) {
            bail!("`[publish] concurrency` must be at least 1");
        }
        let defaults = CacheControl::default();
        let target = Target {
            url,
            region: self.region,
            endpoint: self.endpoint,
            path_style: self.path_style,
            cache_control: CacheControl {
                documents: self.cache_control.unwrap_or(defaults.documents),
                lists: self.lists_cache_control.unwrap_or(defaults.lists),
            },
            aliases: self.aliases.unwrap_or(true),
            concurrency: self
                .concurrency
                .unwrap_or(eggcat_publish::DEFAULT_CONCURRENCY),
            request_timeout: match self.timeout {
                Some(t) => parse_duration("[publish] timeout", &t)?,
                None => eggcat_publish::DEFAULT_REQUEST_TIMEOUT,
            },
        };
        target.bucket_and_prefix()?;
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        let file: File = toml::from_str(text)?;
        Config::from_file(file, Path::new("/srv/eggcat"), "test".into())
    }

    #[test]
    fn defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.sources.len(), 11);
        assert_eq!(c.data_dir, Path::new("/srv/eggcat/eggcat-data"));
        assert_eq!(c.listen, "127.0.0.1:8080");
        assert_eq!(c.refresh, Duration::from_secs(3 * 3600));
        assert_eq!(c.cache_control, DEFAULT_CACHE_CONTROL);
        assert_eq!(c.images, eggcat_images::Options::default());
        assert!(c.images.enabled, "image checks are on unless turned off");
    }

    #[test]
    fn the_images_table() {
        let c = parse(
            "[images]\nenabled = false\nttl = \"6h\"\nconcurrency = 2\ntimeout = \"5s\"\nbudget = \"30s\"\nskip = [\"docker.io\"]\nallow_internal = true\nca_file = \"ca.pem\"\nresolve = { \"GHCR.io\" = \"127.0.0.1\", \"slow.example\" = \"hang\" }\n",
        )
        .unwrap();
        assert_eq!(
            c.images,
            eggcat_images::Options {
                enabled: false,
                ttl: Duration::from_secs(6 * 3600),
                concurrency: 2,
                timeout: Duration::from_secs(5),
                budget: Duration::from_secs(30),
                skip: vec!["docker.io".to_owned()],
                allow_internal: true,
                ca_file: Some(Path::new("/srv/eggcat/ca.pem").to_path_buf()),
                resolve: [
                    (
                        "ghcr.io".to_owned(),
                        eggcat_images::Resolution::Address("127.0.0.1".parse().unwrap())
                    ),
                    ("slow.example".to_owned(), eggcat_images::Resolution::Hang),
                ]
                .into_iter()
                .collect(),
            }
        );
        for (bad, why) in [
            ("concurrency = 0", "`concurrency` must be at least 1"),
            ("ttl = \"soon\"", "`ttl`: invalid duration"),
            ("skip = [\"ghcr.io/x\"]", "is not a registry host"),
            (
                "resolve = { \"a.example\" = \"nowhere\" }",
                "neither an IP address nor `hang`",
            ),
        ] {
            let e = format!("{:#}", parse(&format!("[images]\n{bad}\n")).unwrap_err());
            assert!(e.contains(why) && e.contains("[images]"), "{bad}: {e}");
        }
    }

    #[test]
    fn full_file() {
        let c = parse(
            r#"
            data_dir = "/var/lib/eggcat"
            refresh = "90s"
            [[source]]
            url = "https://github.com/pelican-eggs/minecraft"
            branch = "main"
            label = "pelican"
            "#,
        )
        .unwrap();
        assert_eq!(c.data_dir, Path::new("/var/lib/eggcat"));
        assert_eq!(c.refresh, Duration::from_secs(90));
        assert_eq!(c.sources.len(), 1);
        assert_eq!(c.sources[0].label, "pelican");
    }

    #[test]
    fn base_url_defaults_to_the_listen_address_and_is_checked() {
        let c = parse("listen = \"0.0.0.0:9000\"").unwrap();
        assert_eq!(c.base_url(), "http://0.0.0.0:9000");
        let c = parse("base_url = \"https://eggs.example.org/cat/\"").unwrap();
        assert_eq!(c.base_url(), "https://eggs.example.org/cat");
        for (bad, why) in [
            ("eggs.example.org", "must start with http:// or https://"),
            (
                "ftp://eggs.example.org",
                "must start with http:// or https://",
            ),
            ("https://", "has no host"),
            ("https:///path", "has no host"),
            ("https://user:pw@eggs.example.org", "credentials"),
            ("https://eggs.example.org/?x=1", "query or fragment"),
            ("https://eggs example.org", "white space"),
        ] {
            let e = format!("{:#}", parse(&format!("base_url = \"{bad}\"")).unwrap_err());
            assert!(e.contains(why), "{bad}: {e}");
            assert!(e.contains("`base_url`"), "{bad}: {e}");
        }
    }

    #[test]
    fn unknown_keys_are_read_from_each_shape_of_serde_message() {
        fn keys(m: &str) -> Option<(String, Vec<&str>)> {
            unknown_key(m).map(|(t, k)| (t.to_owned(), k.collect()))
        }
        assert_eq!(
            keys("unknown field `lable`, expected one of `url`, `branch`, `label`"),
            Some(("lable".into(), vec!["url", "branch", "label"]))
        );
        assert_eq!(
            keys("unknown field `x`, expected `a` or `b`"),
            Some(("x".into(), vec!["a", "b"]))
        );
        assert_eq!(
            keys("unknown field `x`, there are no fields"),
            Some(("x".into(), vec![]))
        );
        assert_eq!(keys("invalid type: integer `3`, expected a string"), None);
    }

    #[test]
    fn mistakes_are_refused() {
        assert!(
            parse("refresh = \"soon\"")
                .unwrap_err()
                .to_string()
                .contains("invalid duration")
        );
        assert!(
            parse("refesh = \"3h\"").is_err(),
            "unknown keys are refused"
        );
        let twice = "[[source]]\nurl = \"https://github.com/a/b\"\n[[source]]\nurl = \"https://github.com/a/b\"\n";
        assert!(
            parse(twice)
                .unwrap_err()
                .to_string()
                .contains("configured twice")
        );
        let ssh = "[[source]]\nurl = \"ssh://git@github.com/a/b\"\n";
        assert!(format!("{:#}", parse(ssh).unwrap_err()).contains("unsupported URL"));
    }

    fn table(text: &str) -> Result<Target> {
        let t: PublishTable = toml::from_str(text)?;
        t.resolve()
    }

    #[test]
    fn the_publish_table_resolves_with_defaults_and_refuses_mistakes() {
        let t = table("url = \"s3://eggs/cat\"").unwrap();
        assert_eq!(t.cache_control, CacheControl::default());
        assert_eq!(t.concurrency, eggcat_publish::DEFAULT_CONCURRENCY);
        assert!(!t.path_style);
        assert!(t.aliases, "alias objects by default");
        let t = table("url = \"s3://eggs\"\naliases = false").unwrap();
        assert!(!t.aliases, "MinIO and Garage turn them off");
        let t = table(
            "url = \"s3://eggs\"\nendpoint = \"http://127.0.0.1:9000\"\npath_style = true\n\
             cache_control = \"max-age=1\"\nlists_cache_control = \"max-age=2\"\nconcurrency = 2",
        )
        .unwrap();
        assert_eq!(
            (
                t.cache_control.documents.as_str(),
                t.cache_control.lists.as_str()
            ),
            ("max-age=1", "max-age=2")
        );
        assert_eq!(t.concurrency, 2);
        for (bad, why) in [
            ("region = \"x\"", "needs `url`"),
            ("url = \"https://eggs\"", "not an s3:// URL"),
            ("url = \"s3://eggs\"\nconcurrency = 0", "at least 1"),
            ("url = \"s3://eggs\"\naliases = \"no\"", "invalid type"),
            (
                "url = \"s3://eggs\"\nsecret_access_key = \"x\"",
                "unknown field",
            ),
        ] {
            let e = format!("{:#}", table(bad).unwrap_err());
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
