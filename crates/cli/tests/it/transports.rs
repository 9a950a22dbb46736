//! Fetching over every transport: file://, git:// (git daemon) and smart HTTP (git
//! http-backend), all on this machine.

use crate::support::*;

fn upstream(root: &std::path::Path) -> Repo {
    let repo = Repo::init(root.join("eggs"), "main");
    repo.write("games/egg-alpha.json", egg_json("Alpha"))
        .write("games/README.md", "# Alpha\n")
        .write("voice/egg-beta.yaml", egg_yaml("Beta"));
    repo.commit("two eggs");
    repo
}

fn check(outcome: &crate::support::Outcome) {
    assert_eq!(outcome.report.eggs, 2, "{:#?}", outcome.report);
    assert_eq!(outcome.report.sources[0].error, None);
    let alpha = egg_doc(outcome, "eggs-alpha");
    assert_eq!(alpha["readme"], "# Alpha\n");
    assert_eq!(alpha["meta"]["branch"], "main");
    assert_eq!(alpha["meta"]["commit"].as_str().unwrap().len(), 40);
}

#[test]
fn file_url() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = upstream(tmp.path());
    let outcome = build(
        &tmp.path().join("data"),
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(0),
    );
    check(&outcome);
}

#[test]
fn local_repository_path() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = upstream(tmp.path());
    let outcome = build(
        &tmp.path().join("data"),
        vec![source(&repo.dir.display().to_string(), "o", "eggs")],
        &Clock::new(0),
    );
    check(&outcome);
}

#[test]
fn git_daemon() {
    let tmp = tempfile::tempdir().unwrap();
    upstream(tmp.path());
    let daemon = GitDaemon::start(tmp.path());
    let url = format!("git://127.0.0.1:{}/eggs", daemon.port);
    let outcome = build(
        &tmp.path().join("data"),
        vec![source(&url, "o", "eggs")],
        &Clock::new(0),
    );
    check(&outcome);
}

#[test]
fn smart_http() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = upstream(tmp.path());
    let http = GitHttp::start(tmp.path());
    let url = format!("http://127.0.0.1:{}/eggs", http.port);
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let outcome = build(&data, vec![source(&url, "o", "eggs")], &clock);
    check(&outcome);
    // An incremental fetch over the same transport.
    repo.write("games/egg-gamma.json", egg_json("Gamma"));
    repo.commit("third egg");
    let outcome = build(&data, vec![source(&url, "o", "eggs")], &clock);
    assert_eq!(outcome.report.eggs, 3, "{:#?}", outcome.report);
}
