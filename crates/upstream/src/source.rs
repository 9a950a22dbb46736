//! `[[source]]` entries: their fields, defaults, and validation.
//!
//! Only https, git://, file://, plain http to a loopback address, and local paths are accepted:
//! ssh URLs (and `ext::`) have been an injection vector in git tools, and plain http to another
//! host lets anyone on the path change the eggs.

use std::path::{Path, PathBuf};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// A `[[source]]` table as written in the configuration file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// https://, git://, file:// URL or a local path.
    pub url: String,
    /// Branch to read; default: the remote's default branch.
    pub branch: Option<String>,
    /// Becomes `source` of its eggs; default: the owner.
    pub label: Option<String>,
    /// Default: the second-to-last segment of the URL or path.
    pub owner: Option<String>,
    /// Default: the last segment, without `.git`.
    pub repo: Option<String>,
    /// `rawUrl` template; default by host.
    pub raw_url: Option<String>,
}

/// Where a source lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// Fetched with git from this URL (https, git, http to loopback, file).
    Git(String),
    /// A local path: fetched with git (as a file:// URL) when it is a repository, by its path
    /// when it is a git bundle file, else read as a plain folder. Decided at each fetch.
    Local(PathBuf),
}

/// A validated source with every default filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The URL or path as configured.
    pub url: String,
    /// Where to fetch from.
    pub location: Location,
    /// The configured branch, if any.
    pub branch: Option<String>,
    /// The label.
    pub label: String,
    /// The owner.
    pub owner: String,
    /// The repository name.
    pub repo: String,
    /// The `rawUrl` template.
    pub raw_url: String,
}

/// Why a source's configuration is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The URL scheme is not accepted.
    #[error(
        "source `{url}`: unsupported URL (use https://, git://, file://, http:// to a loopback address, or a local path)"
    )]
    UnsupportedUrl {
        /// The URL.
        url: String,
    },
    /// A field is invalid.
    #[error("source `{url}`: {message}")]
    Invalid {
        /// The URL.
        url: String,
        /// What is wrong.
        message: String,
    },
}

impl Source {
    /// Validates `spec`; relative local paths are resolved against `base_dir` (the folder of the
    /// configuration file).
    pub fn resolve(spec: &SourceSpec, base_dir: &Path) -> Result<Source, ConfigError> {
        let url = spec.url.trim().to_owned();
        let location = location(&url, base_dir)?;
        let authority = url
            .split_once("://")
            .map_or("", |(_, rest)| rest.split('/').next().unwrap_or_default());
        if authority.contains('@') {
            // Credentials in a URL would be published in the build report.
            return Err(ConfigError::Invalid {
                url: redact(&url),
                message: "credentials in the URL are not accepted (they would be published in the report)".into(),
            });
        }
        let invalid = |message: String| ConfigError::Invalid {
            url: url.clone(),
            message,
        };
        let segments: Vec<&str> = match &location {
            Location::Git(u) => u
                .split_once("://")
                .map_or("", |(_, rest)| rest)
                .split('/')
                .skip(1)
                .filter(|s| !s.is_empty())
                .collect(),
            Location::Local(path) => path
                .to_str()
                .unwrap_or(&url)
                .split(['/', '\\'])
                .filter(|s| !s.is_empty() && *s != "." && *s != "..")
                .collect(),
        };
        let last = segments.last().map(|s| s.strip_suffix(".git").unwrap_or(s));
        let second = segments.len().checked_sub(2).map(|i| segments[i]);
        // Set, it must say something; unset, it is derived from the URL.
        let named = |key: &str, set: &Option<String>, derived: Option<&str>| match set {
            Some(s) if s.trim().is_empty() => Err(invalid(format!(
                "`{key}` is empty: set it to a name, or leave it out to derive it from the URL"
            ))),
            Some(s) => Ok(s.clone()),
            None => derived
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| invalid(format!("cannot derive `{key}` from the URL: set it"))),
        };
        let repo = named("repo", &spec.repo, last)?;
        let owner = named("owner", &spec.owner, second)?;
        if let Some(branch) = spec.branch.as_ref().filter(|b| !valid_branch(b)) {
            return Err(invalid(format!("invalid branch name `{branch}`")));
        }
        let raw_url = match &spec.raw_url {
            Some(t) => t.clone(),
            None => default_raw_url(&location),
        };
        if !raw_url.contains("{path}") {
            return Err(invalid("`raw_url` must contain `{path}`".into()));
        }
        Ok(Source {
            label: spec.label.clone().unwrap_or_else(|| owner.clone()),
            url,
            location,
            branch: spec.branch.clone(),
            owner,
            repo,
            raw_url,
        })
    }

    /// Identity of the source across builds: its URL and configured branch.
    pub fn key(&self) -> String {
        format!("{}#{}", self.url, self.branch.as_deref().unwrap_or(""))
    }

    /// Folder name of its mirror under `data_dir/mirrors`: readable, and unique per key.
    pub fn mirror_name(&self) -> String {
        let digest = Sha256::digest(self.key().as_bytes());
        let hash = eggcat_wire::hex(&digest[..6]);
        format!(
            "{}-{hash}.git",
            eggcat_wire::kebab(&format!("{}-{}", self.owner, self.repo))
        )
    }
}

/// The built-in sources used when there is no configuration file.
pub fn default_sources() -> Vec<SourceSpec> {
    let pelican = [
        "chatbots",
        "database",
        "games-standalone",
        "games-steamcmd",
        "generic",
        "minecraft",
        "monitoring",
        "software",
        "storage",
        "voice",
    ];
    let mut specs: Vec<SourceSpec> = pelican
        .iter()
        .map(|repo| SourceSpec {
            url: format!("https://github.com/pelican-eggs/{repo}"),
            label: Some("pelican".into()),
            ..SourceSpec::default()
        })
        .collect();
    specs.push(SourceSpec {
        url: "https://github.com/pterodactyl/game-eggs".into(),
        label: Some("pterodactyl".into()),
        ..SourceSpec::default()
    });
    specs
}

fn location(url: &str, base_dir: &Path) -> Result<Location, ConfigError> {
    // Redacted: the URL may hold credentials.
    let unsupported = || ConfigError::UnsupportedUrl { url: redact(url) };
    if url.is_empty() || url.starts_with('-') || url.chars().any(char::is_control) {
        return Err(unsupported());
    }
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split('/').next().unwrap_or_default();
            let ok = match scheme {
                "https" | "git" => !host.is_empty(),
                "file" => true,
                "http" => is_loopback(host),
                _ => false,
            };
            if ok {
                Ok(Location::Git(url.to_owned()))
            } else {
                Err(unsupported())
            }
        }
        // `host:path` is git's scp-like ssh syntax; refuse it rather than read it as a path.
        None if url.contains(':') && !url.starts_with('/') && !url.starts_with('.') => {
            Err(unsupported())
        }
        None => {
            let path = base_dir.join(url);
            Ok(Location::Local(
                std::path::absolute(&path)
                    .map(|p| normalize(&p))
                    .unwrap_or(path),
            ))
        }
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system (the folder may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The URL without a `user:password@` part.
fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) => format!("{scheme}://***@{host}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

fn is_loopback(host_port: &str) -> bool {
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Conservative branch names: what git accepts minus the oddities that could be read as options
/// or ranges.
fn valid_branch(branch: &str) -> bool {
    !branch.is_empty()
        && !branch.starts_with(['-', '/', '.'])
        && !branch.ends_with(['/', '.'])
        && !branch.contains("..")
        && !branch.contains("//")
        && !branch.ends_with(".lock")
        && branch
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./+".contains(&b))
}

const PATH_CHARS: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'#')
    .add(b'%')
    .add(b'?')
    .add(b'{')
    .add(b'}');

fn default_raw_url(location: &Location) -> String {
    match location {
        Location::Local(path) => local_raw_url(&path.to_string_lossy()),
        Location::Git(url) => {
            let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
            let host = rest.split('/').next().unwrap_or_default();
            match (scheme, host) {
                ("file", _) => local_raw_url(rest),
                (_, "github.com" | "www.github.com") => {
                    "https://raw.githubusercontent.com/{owner}/{repo}/{branch}/{path}".into()
                }
                (_, "gitlab.com") => {
                    "https://gitlab.com/{owner}/{repo}/-/raw/{branch}/{path}".into()
                }
                (scheme, host) => {
                    let web = if scheme == "http" { "http" } else { "https" };
                    format!("{web}://{host}/{{owner}}/{{repo}}/raw/branch/{{branch}}/{{path}}")
                }
            }
        }
    }
}

fn local_raw_url(path: &str) -> String {
    let path = path.trim_end_matches('/');
    format!("file://{}/{{path}}", utf8_percent_encode(path, PATH_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str) -> SourceSpec {
        SourceSpec {
            url: url.into(),
            ..SourceSpec::default()
        }
    }

    fn resolve(url: &str) -> Result<Source, ConfigError> {
        Source::resolve(&spec(url), Path::new("/etc/eggcat"))
    }

    #[test]
    fn defaults_from_a_github_url() {
        let s = resolve("https://github.com/pelican-eggs/minecraft.git").unwrap();
        assert_eq!(
            (s.owner.as_str(), s.repo.as_str(), s.label.as_str()),
            ("pelican-eggs", "minecraft", "pelican-eggs")
        );
        assert_eq!(
            s.raw_url,
            "https://raw.githubusercontent.com/{owner}/{repo}/{branch}/{path}"
        );
        assert_eq!(
            s.location,
            Location::Git("https://github.com/pelican-eggs/minecraft.git".into())
        );
    }

    #[test]
    fn raw_url_defaults_by_host() {
        assert_eq!(
            resolve("https://gitlab.com/a/b").unwrap().raw_url,
            "https://gitlab.com/{owner}/{repo}/-/raw/{branch}/{path}"
        );
        assert_eq!(
            resolve("https://codeberg.org/a/b").unwrap().raw_url,
            "https://codeberg.org/{owner}/{repo}/raw/branch/{branch}/{path}"
        );
        assert_eq!(
            resolve("file:///srv/git/a b/eggs").unwrap().raw_url,
            "file:///srv/git/a%20b/eggs/{path}"
        );
        let local = resolve("mirrors/pelican/eggs").unwrap();
        assert_eq!(
            local.location,
            Location::Local(PathBuf::from("/etc/eggcat/mirrors/pelican/eggs"))
        );
        assert_eq!(
            local.raw_url,
            "file:///etc/eggcat/mirrors/pelican/eggs/{path}"
        );
        assert_eq!(
            (local.owner.as_str(), local.repo.as_str()),
            ("pelican", "eggs")
        );
    }

    #[test]
    fn only_safe_schemes_are_accepted() {
        for bad in [
            "ssh://git@github.com/a/b",
            "git@github.com:a/b.git",
            "ext::sh -c touch% /tmp/pwned",
            "http://example.com/a/b",
            "ftp://example.com/a/b",
            "-oProxyCommand=touch /tmp/x",
            "https:///a/b",
            "",
        ] {
            assert!(
                matches!(resolve(bad), Err(ConfigError::UnsupportedUrl { .. })),
                "{bad}"
            );
        }
        for good in [
            "http://127.0.0.1:9000/a/b",
            "http://localhost/a/b",
            "http://[::1]:80/a/b",
            "git://127.0.0.1/a/b",
        ] {
            assert!(resolve(good).is_ok(), "{good}");
        }
        // Looks like loopback, is not.
        assert!(resolve("http://127.evil.example/a/b").is_err());
    }

    #[test]
    fn credentials_in_urls_are_refused_and_not_repeated() {
        let e = resolve("https://user:s3cret@github.com/a/b")
            .unwrap_err()
            .to_string();
        assert!(e.contains("credentials in the URL are not accepted"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
    }

    #[test]
    fn relative_local_paths_become_absolute() {
        let s = Source::resolve(
            &spec("../eggs/./pelican/minecraft"),
            Path::new("/etc/eggcat"),
        )
        .unwrap();
        assert_eq!(
            s.location,
            Location::Local(PathBuf::from("/etc/eggs/pelican/minecraft"))
        );
        assert_eq!(
            (s.owner.as_str(), s.repo.as_str()),
            ("pelican", "minecraft")
        );
        assert_eq!(s.raw_url, "file:///etc/eggs/pelican/minecraft/{path}");
    }

    #[test]
    fn branch_names_are_checked() {
        let with = |b: &str| {
            Source::resolve(
                &SourceSpec {
                    branch: Some(b.into()),
                    ..spec("https://github.com/a/b")
                },
                Path::new("/"),
            )
        };
        assert!(with("main").is_ok());
        assert!(with("release/1.x").is_ok());
        for bad in ["-x", "a..b", "a b", "a~1", "x.lock", "", "a:b"] {
            assert!(with(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_owner_must_be_configured() {
        let e = resolve("https://github.com/only").unwrap_err();
        assert!(e.to_string().contains("cannot derive `owner`"), "{e}");
        // Set but empty is not "cannot derive": the URL would have given one.
        for (key, owner, repo) in [("repo", None, Some("")), ("owner", Some(" "), None)] {
            let spec = SourceSpec {
                owner: owner.map(str::to_owned),
                repo: repo.map(str::to_owned),
                ..spec("https://github.com/o/r")
            };
            let e = Source::resolve(&spec, Path::new("/")).unwrap_err();
            assert!(
                e.to_string().contains(&format!(
                    "`{key}` is empty: set it to a name, or leave it out to derive it from the URL"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn default_sources_are_the_eleven_upstreams() {
        let specs = default_sources();
        assert_eq!(specs.len(), 11);
        let sources: Vec<Source> = specs
            .iter()
            .map(|s| Source::resolve(s, Path::new("/")).unwrap())
            .collect();
        assert_eq!(sources.iter().filter(|s| s.label == "pelican").count(), 10);
        assert_eq!(sources[10].owner, "pterodactyl");
        assert_eq!(sources[10].repo, "game-eggs");
    }
}
