//! The import file of each older version (issue 37), end to end: a real repository whose egg
//! changed upstream, the `eggcat serve` binary building and serving it, every `pelicanJson` of
//! the egg's `history.json` answered at its URL with the file whose hash the version gives, and,
//! once the egg is removed upstream, its older version's file answered `410` like the egg's
//! other paths.

use eggcat_catalog::wire::History;

use crate::hosts::get;
use crate::support::*;

/// The diff crate's fixture egg (Paper, PTDL_v2 JSON), with its startup command given.
fn paper(startup: &str) -> String {
    let path = format!(
        "{}/../diff/tests/data/paper.ptdl.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut egg: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    egg["startup"] = startup.into();
    serde_json::to_string_pretty(&egg).unwrap()
}

#[test]
fn serve_answers_each_versions_pelican_json_at_the_url_history_json_names() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/egg-paper.json", paper("java -jar server.jar"))
        .write("other/egg-other.json", egg_json("Other"));
    repo.commit("Add Paper");
    repo.write("games/egg-paper.json", paper("java -jar server.jar nogui"));
    repo.commit("Paper without its GUI");
    let config = tmp.path().join("eggcat.toml");
    let text = format!(
        "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nowner = \"o\"\n",
        repo.url()
    );
    std::fs::write(&config, text).unwrap();
    let port = free_port();
    let _serve = Serve::start(&config, port, "1s");
    let history_path = "/api/v1/eggs/eggs-paper/history.json";
    let served = |path: &str| {
        crate::hosts::request(port, "GET", path, &[], b"").is_ok_and(|a| a.status == 200)
    };
    wait_until("the catalog is served", WAIT, || served(history_path));
    let history: History = serde_json::from_slice(&get(port, history_path).body).unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let urls: Vec<&str> = history
        .versions
        .iter()
        .map(|v| v.pelican_json.as_deref().expect("a file per version"))
        .collect();
    let older = format!(
        "{base}/api/v1/eggs/eggs-paper/versions/{}/pelican.json",
        history.versions[1].sha256.as_deref().unwrap()
    );
    let current = format!("{base}/api/v1/eggs/eggs-paper/pelican.json");
    assert_eq!(urls, [current.as_str(), older.as_str()]);
    for (v, url) in history.versions.iter().zip(&urls) {
        let answer = get(port, url.strip_prefix(&base).unwrap());
        assert_eq!(answer.status, 200, "{url}");
        assert_eq!(answer.header("content-type"), "application/json", "{url}");
        let md5 = v.pelican_update_check_md5.as_ref().unwrap();
        assert_eq!(
            eggcat_panels::update_check_md5(&answer.body).as_ref(),
            Some(&md5.sqlite),
            "{url}"
        );
    }
    // The egg leaves upstream: its older version's file goes with it (410, as its other paths).
    repo.remove("games/egg-paper.json");
    repo.commit("Remove Paper");
    let older_path = older.strip_prefix(&base).unwrap().to_owned();
    wait_until("the removed egg's version file is gone", WAIT, || {
        crate::hosts::request(port, "GET", &older_path, &[], b"").is_ok_and(|a| a.status == 410)
    });
}
