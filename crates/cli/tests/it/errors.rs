//! Every error a user can cause, made for real and read as the user reads it: the `eggcat`
//! binary's stderr holds one `eggcat: error:` line that says what happened, where, and what to
//! do, with each cause said once (docs/errors.md). Each test asserts the whole line; where a part
//! cannot be known in advance (a temporary file's name) it is matched by shape.
//!
//! Faults that need root (a full tmpfs, a read-only bind mount, a user other than the owner)
//! are made when the tests run as root, and skipped with one line otherwise; under
//! `EGGCAT_ROOT_TESTS=require` (CI) they fail instead of skipping ([`skip_root_test`]).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::hosts::*;
use crate::publish_site::*;
use crate::support::*;

fn eggcat(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eggcat"));
    cmd.args(args).current_dir(dir).env_remove("EGGCAT_LOG");
    cmd
}

/// The one `eggcat: error:` line of a failed run, checked to be alone and to say no sentence
/// twice (the disk-full error said its cause twice).
/// `eggcat serve --config eggcat.toml` in `dir` on a free port, run to its exit.
fn serve(dir: &Path) -> Output {
    eggcat(
        dir,
        &[
            "serve",
            "--config",
            "eggcat.toml",
            "--listen",
            "127.0.0.1:0",
        ],
    )
    .output()
    .unwrap()
}

fn the_error(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("eggcat: error: "))
        .collect();
    assert_eq!(lines.len(), 1, "one error line expected in:\n{stderr}");
    let line = lines[0].to_owned();
    let parts: Vec<&str> = line.split(": ").filter(|p| p.len() > 12).collect();
    for (i, p) in parts.iter().enumerate() {
        assert!(!parts[i + 1..].contains(p), "`{p}` said twice: {line}");
    }
    line
}

/// A folder source `up` with one egg, and `eggcat.toml` with `data_dir` and that source.
fn site(data_dir: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    let egg = tmp.path().join("up/games/a/egg-a.json");
    std::fs::create_dir_all(egg.parent().expect("parent")).expect("mkdir");
    std::fs::write(&egg, egg_json("A")).expect("write");
    write_config(tmp.path(), data_dir);
    tmp
}

fn write_config(dir: &Path, data_dir: &str) {
    std::fs::write(
        dir.join("eggcat.toml"),
        format!(
            "data_dir = \"{data_dir}\"\n[images]\nenabled = false\n[[source]]\nurl = \"up\"\nowner = \"o\"\nrepo = \"r\"\n"
        ),
    )
    .expect("write config");
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// A mount made by a test, unmounted (lazily, so a failed test still cleans up) when dropped.
struct Mount(PathBuf);

impl Mount {
    /// `mount ARGS DIR`, or `None` (the test skipped with one line, or failed in strict mode)
    /// when not root or refused.
    fn new(args: &[&str], dir: &Path) -> Option<Mount> {
        if !is_root() {
            skip_root_test("needs root to mount");
            return None;
        }
        std::fs::create_dir_all(dir).expect("mount point");
        let out = Command::new("mount")
            .args(args)
            .arg(dir)
            .output()
            .expect("mount runs");
        if !out.status.success() {
            skip_root_test(&format!(
                "cannot mount: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            return None;
        }
        Some(Mount(dir.to_owned()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system holding `dir` until it has no room left.
fn fill(dir: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(dir.join("filler")).expect("create filler");
    let block = vec![0x5a; 64 * 1024];
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
}

/// `line` is `before`, then one path (no space) that starts with `path_start`, then `after`.
fn assert_shape(line: &str, before: &str, path_start: &str, after: &str) {
    let middle = line
        .strip_prefix(before)
        .and_then(|rest| rest.strip_suffix(after))
        .unwrap_or_else(|| panic!("expected `{before}<path>{after}`, got `{line}`"));
    assert!(
        middle.starts_with(path_start) && !middle.contains(' '),
        "expected a path under {path_start}, got `{middle}` in `{line}`"
    );
}

const DISK_FULL: &str = "No space left on device (os error 28); free some space on that file \
                         system, or choose a folder on another one";

#[test]
fn disk_full_during_a_build_and_during_out_says_so_once_and_what_to_do() {
    let tmp = site("small/data");
    let Some(_mount) = Mount::new(
        &["-t", "tmpfs", "-o", "size=1m", "tmpfs"],
        &tmp.path().join("small"),
    ) else {
        return;
    };
    fill(&tmp.path().join("small"));
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"])
        .output()
        .unwrap();
    let line = the_error(&out);
    // The first write that finds no room: the lock, a folder or a file of the new snapshot.
    let verb = ["open", "create", "write"]
        .into_iter()
        .find(|v| line.starts_with(&format!("eggcat: error: build failed: {v} ")))
        .unwrap_or_else(|| panic!("{line}"));
    assert_shape(
        &line,
        &format!("eggcat: error: build failed: {verb} "),
        "./small/data/",
        &format!(": {DISK_FULL}"),
    );

    // `--out` on the full disk, the data dir elsewhere.
    write_config(tmp.path(), "data");
    let out = eggcat(
        tmp.path(),
        &["build", "--config", "eggcat.toml", "--out", "small/site"],
    )
    .output()
    .unwrap();
    let line = the_error(&out);
    assert_shape(
        &line,
        "eggcat: error: cannot write small/site: write ",
        "small/site/",
        &format!(": {DISK_FULL}"),
    );
}

#[test]
fn a_data_dir_that_is_a_file_names_the_key_and_the_fix() {
    let tmp = site("data");
    std::fs::write(tmp.path().join("data"), "not a folder").unwrap();
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"])
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        "eggcat: error: `data_dir` ./data (eggcat.toml) is a file, not a folder: move the file, \
         or set `data_dir` to a folder"
    );
    // `serve` checks it before listening.
    let out = serve(tmp.path());
    assert_eq!(
        the_error(&out),
        "eggcat: error: `data_dir` ./data (eggcat.toml) is a file, not a folder: move the file, \
         or set `data_dir` to a folder"
    );
}

/// Root ignores file modes, so the build runs as `nobody` (setpriv) over a data dir root owns:
/// the real "another user's files".
#[test]
fn a_data_dir_of_another_user_says_permission_denied_and_what_to_do() {
    if !is_root() {
        skip_root_test("needs root to run eggcat as another user");
        return;
    }
    let tmp = site("data");
    std::fs::create_dir(tmp.path().join("data")).unwrap();
    // `nobody` may read the temp dir (0700 by default) and the config, not write `data`.
    Command::new("chmod")
        .arg("755")
        .arg(tmp.path())
        .status()
        .unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_eggcat"))
        .args(["build", "--config", "eggcat.toml"])
        .current_dir(tmp.path())
        .env_remove("EGGCAT_LOG")
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        "eggcat: error: build failed: open ./data/.lock: Permission denied (os error 13); \
         eggcat's user may not write there: give that user the folder (chown), or choose another \
         folder (as root, check `lsattr` for the immutable flag)"
    );
}

/// A read-only bind mount fails for root too.
#[test]
fn a_read_only_data_dir_says_so_and_what_to_do() {
    let tmp = site("data");
    let data = tmp.path().join("data");
    let Some(_bind) = Mount::new(&["--bind", data.to_str().unwrap()], &data) else {
        return;
    };
    let Some(_ro) = Mount::new(&["-o", "remount,bind,ro"], &data) else {
        return;
    };
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"])
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        "eggcat: error: build failed: open ./data/.lock: Read-only file system (os error 30); \
         that file system is mounted read-only: remount it read-write, or choose a writable folder"
    );

    // `serve` keeps running and logs its failed build in the same words. It runs under
    // `timeout`, so that the read below ends even if the line never comes; `timeout` passes the
    // SIGTERM sent once the line has come on to `serve`.
    let mut serve = Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_eggcat")])
        .args([
            "serve",
            "--config",
            "eggcat.toml",
            "--listen",
            "127.0.0.1:0",
        ])
        .current_dir(tmp.path())
        .env_remove("EGGCAT_LOG")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = serve.stderr.take().unwrap();
    let line = std::io::BufRead::lines(std::io::BufReader::new(stderr))
        .map_while(Result::ok)
        .find(|l| l.contains("build failed"));
    Command::new("kill")
        .arg(serve.id().to_string())
        .status()
        .unwrap();
    serve.wait().unwrap();
    let line = line.expect("serve logs its failed build");
    assert!(
        line.ends_with(
            " error=open ./data/.lock: Read-only file system (os error 30); that file system is \
             mounted read-only: remount it read-write, or choose a writable folder"
        ),
        "{line}"
    );
}

#[test]
fn a_port_in_use_says_how_to_find_who_holds_it() {
    let tmp = site("data");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let out = eggcat(
        tmp.path(),
        &[
            "serve",
            "--config",
            "eggcat.toml",
            "--listen",
            &addr.to_string(),
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        the_error(&out),
        format!(
            "eggcat: error: cannot listen on {addr}: the address is already in use: stop the \
             program listening there (`ss -ltnp 'sport = :{}'` names it), or choose another \
             address with --listen or `listen`",
            addr.port()
        )
    );
}

#[test]
fn a_branch_that_does_not_exist_lists_the_branches_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("egg-a.json", egg_json("A")).commit("an egg");
    git(tmp.path().join("eggs").as_path(), &["branch", "stable"]);
    std::fs::write(
        tmp.path().join("eggcat.toml"),
        format!(
            "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nbranch = \"relase\"\nowner = \"o\"\n",
            repo.url()
        ),
    )
    .unwrap();
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"])
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        format!(
            "eggcat: error: build failed: nothing to publish: no source could be fetched (source \
             `{}`: branch `relase` not found upstream (its branches: main, stable): set the \
             source's `branch` to an existing one, or leave it out for the default branch)",
            repo.url()
        )
    );
}

#[test]
fn config_mistakes_name_file_line_column_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    for (config, want) in [
        (
            "data_dir = \"data\"\n[[source]]\nurl = \"up\"\n  lable = \"x\"\n",
            "eggcat: error: invalid config eggcat.toml:4:3: unknown key `lable`; did you mean \
             `label`?",
        ),
        (
            "refesh = \"3h\"\n",
            "eggcat: error: invalid config eggcat.toml:1:1: unknown key `refesh`; did you mean \
             `refresh`?",
        ),
        (
            "[publish]\nurl = \"s3://b\"\nconcurency = 4\n",
            "eggcat: error: invalid config eggcat.toml:3:1: unknown key `concurency`; did you \
             mean `concurrency`?",
        ),
        // TOML syntax: the line and column of the mistake.
        (
            "data_dir = \"data\nlisten = \"127.0.0.1:1\"\n",
            "eggcat: error: invalid config eggcat.toml:1:17: invalid basic string, expected `\"`",
        ),
        (
            "listen = = \"x\"\n",
            "eggcat: error: invalid config eggcat.toml:1:10: extra `=`, expected nothing",
        ),
        (
            "refresh = \"soon\"\n",
            "eggcat: error: invalid config eggcat.toml: `refresh`: invalid duration `soon` (use \
             e.g. 90s, 30m, 6h): expected number at 0",
        ),
    ] {
        std::fs::write(tmp.path().join("eggcat.toml"), config).unwrap();
        let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"])
            .output()
            .unwrap();
        assert_eq!(the_error(&out), want, "{config:?}");
        assert_eq!(out.status.code(), Some(1));
    }
}

#[test]
fn a_missing_config_file_says_what_is_used_without_one() {
    let tmp = tempfile::tempdir().unwrap();
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.tmol"])
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        "eggcat: error: config eggcat.tmol does not exist: give --config an existing file, or \
         leave --config out to use ./eggcat.toml or, without it, the built-in sources"
    );
}

/// A line break in `cache_control` is shown as `\n`, not folded away, so the user sees what
/// is wrong with the value.
#[test]
fn a_cache_control_that_is_no_header_value_is_shown_quoted() {
    let tmp = site("data");
    let config = tmp.path().join("eggcat.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("cache_control = \"public,\\nmax-age=60\"\n{text}"),
    )
    .unwrap();
    let out = serve(tmp.path());
    assert_eq!(
        the_error(&out),
        "eggcat: error: invalid config eggcat.toml: invalid cache_control \"public,\\nmax-age=60\": \
         an HTTP header value is visible ASCII and spaces, without line breaks"
    );
}

#[test]
fn a_mistyped_flag_or_sub_command_is_one_line_with_a_suggestion() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, want) in [
        (
            &["build", "--confg", "x"][..],
            "eggcat: error: unexpected argument '--confg' found; tip: a similar argument exists: \
             '--config'; Usage: eggcat build --config <FILE>; For more information, try '--help'.",
        ),
        (
            &["serv"],
            "eggcat: error: unrecognized subcommand 'serv'; tip: a similar subcommand exists: \
             'serve'; Usage: eggcat <COMMAND>; For more information, try '--help'.",
        ),
    ] {
        let out = eggcat(tmp.path(), args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(the_error(&out), want, "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
}

/// The endpoint given only as `AWS_ENDPOINT_URL` (no `endpoint` in the config) is the one used
/// and named: it once failed with "URL scheme is not allowed". Here nothing listens there.
#[test]
fn an_endpoint_from_the_environment_is_named_when_it_cannot_be_reached() {
    let site = Site::new(1);
    site.build();
    let config = site.tmp.path().join("env.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nowner = \"o\"\n[publish]\nurl = \"s3://eggs\"\npath_style = true\n",
            site.repo.url()
        ),
    )
    .unwrap();
    let port = free_port();
    let out = site
        .publish_command(&config, &[])
        .env("AWS_ACCESS_KEY_ID", "k")
        .env("AWS_SECRET_ACCESS_KEY", "s")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"))
        .output()
        .unwrap();
    assert_eq!(
        the_error(&out),
        format!(
            "eggcat: error: publish to s3://eggs failed: cannot reach the store at \
             http://127.0.0.1:{port}: tcp connect error: Connection refused (os error 111) (after \
             3 retries); check the endpoint (`endpoint` in `[publish]`, or AWS_ENDPOINT_URL) and \
             that the store is up"
        )
    );
}

#[test]
fn credentials_refused_by_the_store_say_which_and_never_show_the_secret() {
    let Some(moto) = moto_binary() else { return };
    let python = moto.with_file_name("python");
    let s3 = start_moto(&moto, Some(4));
    let (key, _) = crate::publish_failures::iam_user(&python, s3.port);
    let key = key.as_str();
    let site = Site::new(1);
    site.build();
    let config = site.config(s3.port, "eggs");
    let wrong = "wrong-secret-0123456789";
    let out = site.publish(&config, &[], key, wrong);
    assert_eq!(
        the_error(&out),
        "eggcat: error: publish to s3://eggs failed: the store refused the credentials for \
         s3://eggs: SignatureDoesNotMatch: The request signature we calculated does not match the \
         signature you provided. Check your key and signing method; check the key and secret \
         (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials) and that the key \
         may write to the bucket"
    );
    let all = String::from_utf8_lossy(&out.stderr);
    assert!(!all.contains(wrong), "the secret was printed: {all}");
}
