//! A test site for the publish tests: egg repositories, a data dir, configs publishing to a
//! bucket, and `eggcat publish`/`eggcat build` run as a user runs them, plus readers of their
//! output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::*;

/// Two repositories of eggs (`repo`, which the tests change, and `other`, which stays as it
/// is), a data dir, and configs publishing to a bucket. Two sources, because an egg document
/// carries its source's commit: a change in one repository changes every document of its own.
pub(crate) struct Site {
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) repo: Repo,
    other: Repo,
    clock: Clock,
}

impl Site {
    pub(crate) fn new(eggs: usize) -> Site {
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repo::init(tmp.path().join("eggs"), "main");
        for i in 0..eggs {
            repo.write(
                &format!("games/egg-{i}/egg-{i}.json"),
                egg_json(&format!("Egg {i}")),
            );
        }
        repo.commit("eggs");
        let other = Repo::init(tmp.path().join("other"), "main");
        for i in 0..eggs {
            other.write(&format!("egg-{i}.yaml"), egg_yaml(&format!("Other {i}")));
        }
        other.commit("other eggs");
        Site {
            tmp,
            repo,
            other,
            clock: Clock::new(1_700_000_000_000),
        }
    }

    pub(crate) fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// Builds and returns the published files.
    pub(crate) fn build(&self) -> BTreeMap<String, Vec<u8>> {
        let sources = vec![
            source(&self.repo.url(), "o", "eggs"),
            source(&self.other.url(), "o", "other"),
        ];
        build(&self.data(), sources, &self.clock).snapshot.files
    }

    /// Writes the config for `s3://{bucket}` at `127.0.0.1:{port}`.
    pub(crate) fn config(&self, port: u16, bucket: &str) -> PathBuf {
        let path = self.tmp.path().join(format!("eggcat-{port}-{bucket}.toml"));
        let text = format!(
            "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nowner = \"o\"\n[[source]]\nurl = \"{}\"\nowner = \"o\"\n\
             [publish]\nurl = \"s3://{bucket}\"\n\
             endpoint = \"http://127.0.0.1:{port}\"\npath_style = true\nconcurrency = 4\n",
            self.repo.url(),
            self.other.url()
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `eggcat publish --config FILE ARGS` with the credentials `key`/`secret`.
    pub(crate) fn publish(&self, config: &Path, args: &[&str], key: &str, secret: &str) -> Output {
        self.publish_command(config, args)
            .env("AWS_ACCESS_KEY_ID", key)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .output()
            .unwrap()
    }

    /// `eggcat publish --config FILE ARGS` with no `AWS_*` variable and a `HOME` of its own
    /// (no `~/.aws`): no credentials unless the caller adds them.
    pub(crate) fn publish_command(&self, config: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_eggcat"));
        for (k, _) in std::env::vars() {
            if k.starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        cmd.arg("publish")
            .arg("--config")
            .arg(config)
            .args(args)
            .env("HOME", self.tmp.path());
        cmd
    }
}

/// The counts of a successful publish's summary line: (uploaded, unchanged, deleted).
pub(crate) fn counts(out: &Output) -> (usize, usize, usize) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "publish failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let number_before = |word: &str| -> usize {
        let at = stdout
            .find(word)
            .unwrap_or_else(|| panic!("no `{word}` in {stdout}"));
        stdout[..at]
            .trim_end()
            .rsplit([' ', ','])
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count before `{word}` in {stdout}"))
    };
    // "N uploaded (B), M unchanged, D deleted"
    let uploaded = stdout
        .split(": ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no upload count in {stdout}"));
    (
        uploaded,
        number_before(" unchanged"),
        number_before(" deleted"),
    )
}

/// The object keys a snapshot's files become: each path, plus its extensionless alias, plus
/// the 404 problem document.
pub(crate) fn keys(files: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (path, bytes) in files {
        out.insert(path.clone(), bytes.clone());
        if let Some(alias) = eggcat_publish::alias(path) {
            out.insert(alias, bytes.clone());
        }
    }
    out.insert(
        eggcat_publish::NOT_FOUND_KEY.to_owned(),
        eggcat_publish::rules::not_found_problem(),
    );
    out
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The only error line of a failed run.
pub(crate) fn error_line(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("eggcat: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line expected in:\n{stderr}");
    errors[0].to_owned()
}

/// `eggcat build --config FILE ARGS` with test credentials.
pub(crate) fn build_with(site: &Site, config: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eggcat"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    cmd.arg("build")
        .arg("--config")
        .arg(config)
        .args(args)
        .env("HOME", site.tmp.path())
        .env("AWS_ACCESS_KEY_ID", "k")
        .env("AWS_SECRET_ACCESS_KEY", "s")
        .output()
        .unwrap()
}
