//! The commands the README's "Try it" and the guides (docs/guides/) show run, against the demo
//! served by `eggcat serve`, as a reader would type them. Each shell block (```sh) of a guide is
//! run, but one whose line before says `<!-- not run by the test: why -->` (it needs root, the
//! network, a bucket or a panel); of the README, the blocks of "Try it". In a copy of `demo/`
//! (its image checks off: tests never touch the internet), one command at a time:
//! `cargo run -- ` and a leading `eggcat ` are this eggcat, `localhost:8080` is the test's
//! server, and `curl` fails on an HTTP error (`--fail`). A command must exit 0, or with the
//! status its comment names (`# exits 1`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{copy_dir, free_port};

const NOT_RUN: &str = "<!-- not run by the test:";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// One command of a page, with the status it must exit with.
#[derive(Debug, PartialEq)]
pub(crate) struct Shown {
    pub(crate) line: String,
    pub(crate) status: i32,
}

/// The commands of the ```sh blocks of `text` that are run: every block but those after a
/// `<!-- not run by the test: ... -->` line; with `section`, only the blocks under that `## `
/// heading. Lines ending in `\` continue; comments and blank lines are no commands.
pub(crate) fn commands(text: &str, section: Option<&str>) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut in_section = section.is_none();
    let mut previous = "";
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = section.is_none_or(|s| s == heading.trim());
        }
        if line.trim_start().starts_with("```") && line.trim() != "```" {
            let run = line.trim() == "```sh" && in_section && !previous.starts_with(NOT_RUN);
            let mut pending = String::new();
            for body in lines.by_ref() {
                if body.trim() == "```" {
                    break;
                }
                if !run {
                    continue;
                }
                if let Some(start) = body.strip_suffix('\\') {
                    pending.push_str(start);
                    continue;
                }
                pending.push_str(body);
                let command = std::mem::take(&mut pending);
                let trimmed = command.trim();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                out.push(Shown {
                    status: expected_status(trimmed),
                    line: trimmed.to_owned(),
                });
            }
        }
        if !line.trim().is_empty() {
            previous = line.trim();
        }
    }
    out
}

/// The exit status a command's comment names (`# ... exits 1`), else 0.
fn expected_status(command: &str) -> i32 {
    command
        .rsplit_once(" # ")
        .and_then(|(_, comment)| comment.split("exits ").nth(1))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The command as the test runs it: this eggcat, this server, curl failing on an HTTP error.
fn as_run(command: &str, eggcat: &Path, port: u16) -> String {
    let eggcat = format!("'{}' ", eggcat.display());
    let mut line = command
        .replace("cargo run -- ", &eggcat)
        .replace("localhost:8080", &format!("127.0.0.1:{port}"))
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
    if let Some(rest) = line.strip_prefix("eggcat ") {
        line = format!("{eggcat}{rest}");
    }
    line.replace("curl ", "curl --fail --show-error --max-time 30 ")
}

/// `eggcat serve` of a copy of the demo, stopped when dropped.
struct Demo {
    dir: tempfile::TempDir,
    port: u16,
    server: Child,
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

fn serve_the_demo() -> Demo {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("demo"), &dir.path().join("demo"));
    let config = dir.path().join("demo/eggcat.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let offline = text.replace("[images]\nbudget = \"5s\"", "[images]\nenabled = false");
    assert_ne!(
        offline, text,
        "demo/eggcat.toml's [images] table changed: update this test"
    );
    std::fs::write(&config, offline).unwrap();
    let port = free_port();
    let server = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(["serve", "--config", "demo/eggcat.toml", "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let demo = Demo { dir, port, server };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if get(port, "/readyz").is_some_and(|a| a.starts_with("HTTP/1.1 200")) {
            return demo;
        }
        assert!(
            Instant::now() < deadline,
            "the demo was not ready within 120 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs each command; returns what went wrong, as `page: command: why`.
fn run_all(dir: &Path, port: u16, pages: &[(String, Vec<Shown>)]) -> Vec<String> {
    let eggcat = Path::new(env!("CARGO_BIN_EXE_eggcat"));
    let mut problems = Vec::new();
    for (page, shown) in pages {
        for command in shown {
            let line = as_run(&command.line, eggcat, port);
            let out = Command::new("timeout")
                .args(["120", "bash", "-o", "pipefail", "-c", &line])
                .current_dir(dir)
                .output()
                .unwrap();
            let status = out.status.code().unwrap_or(-1);
            if status != command.status {
                problems.push(format!(
                    "{page}: `{}`: exit status {status}, not {}: {}",
                    command.line,
                    command.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
    }
    problems
}

#[test]
fn the_readme_and_every_guide_run_against_the_demo() {
    let root = repo_root();
    let mut pages = Vec::new();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let try_it = commands(&readme, Some("Try it"));
    assert!(try_it.len() >= 10, "README.md's Try it: {try_it:?}");
    pages.push(("README.md".to_owned(), try_it));
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guides"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    assert!(guides.len() >= 5, "{guides:?}");
    for guide in guides {
        let shown = commands(&std::fs::read_to_string(&guide).unwrap(), None);
        let name = guide.strip_prefix(&root).unwrap().display().to_string();
        // A guide of things that cannot run offline still shows what it does on the demo.
        let ran = shown.len();
        pages.push((name.clone(), shown));
        assert!(
            ran > 0 || name.ends_with("container.md"),
            "{name} runs no command"
        );
    }
    let demo = serve_the_demo();
    let problems = run_all(demo.dir.path(), demo.port, &pages);
    assert!(
        problems.is_empty(),
        "commands that failed:\n{}",
        problems.join("\n")
    );
}

/// The extraction takes the right blocks and statuses, and a command that fails is reported.
#[test]
fn the_command_check_reports_a_failing_command() {
    let text = "## Try it\n\n```sh\ncurl -s localhost:8080/a \\\n  -H 'x: y'   # one\n# a comment\neggcat diff --breaking a b   # exits 1\n```\n\n\
                <!-- not run by the test: needs root -->\n```sh\nsystemctl start eggcat\n```\n\n```toml\nx = 1\n```\n\n## Other\n\n```sh\nls\n```\n";
    assert_eq!(
        commands(text, Some("Try it")),
        [
            Shown {
                line: "curl -s localhost:8080/a   -H 'x: y'   # one".into(),
                status: 0
            },
            Shown {
                line: "eggcat diff --breaking a b   # exits 1".into(),
                status: 1
            },
        ]
    );
    assert_eq!(commands(text, None).len(), 3);
    assert_eq!(
        as_run("eggcat validate x", Path::new("/bin/e"), 9),
        "'/bin/e' validate x"
    );
    assert_eq!(
        as_run("curl -s localhost:8080/a", Path::new("/bin/e"), 9),
        "curl --fail --show-error --max-time 30 -s 127.0.0.1:9/a"
    );
    // Run: a command that fails, one that exits 0 where 1 is said, a server that is not there.
    let tmp = tempfile::tempdir().unwrap();
    let failing = vec![
        Shown {
            line: "ls no-such-file".into(),
            status: 0,
        },
        Shown {
            line: "true   # exits 1".into(),
            status: 1,
        },
        Shown {
            line: "false   # exits 1".into(),
            status: 1,
        },
        Shown {
            line: "curl -s localhost:8080/readyz".into(),
            status: 0,
        },
    ];
    let problems = run_all(tmp.path(), free_port(), &[("page.md".into(), failing)]);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("page.md: `ls no-such-file`: exit status 2, not 0"));
    assert!(problems[1].starts_with("page.md: `true   # exits 1`: exit status 0, not 1"));
    assert!(
        problems[2].starts_with("page.md: `curl -s localhost:8080/readyz`: exit status 7, not 0")
    );
}
