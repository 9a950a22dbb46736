//! The count phrases of every page, the Changes section's included, rendered with counts 0, 1
//! and 2: "1 egg", "2 eggs", "0 eggs", never "1 eggs" (issue 15). Also the status page's code
//! spans and the data each footer names.

mod support;

use std::collections::BTreeMap;

use eggcat_web::{Reuse, SiteOptions, render};
use serde_json::json;

/// A published tree with `n` eggs, each from a repository of its own, `n`
/// skipped files, `n` warnings and `n` diagnostics of each severity; each egg's install script
/// has `n` lines and three variables whose rules take the figure `n`: `string|max:n`,
/// `string|size:n` and `digits:n` (0 is in the rules module's own test: no egg has it here).
fn tree(n: usize) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut index = Vec::new();
    for i in 0..n {
        let slug = format!("egg-{i}");
        let script = vec!["echo"; n].join("\n");
        let var = |env: &str, rules: String| {
            json!({"name": env, "env_variable": env, "default_value": "", "rules": rules,
                   "user_viewable": true, "user_editable": true})
        };
        let variables = [
            var("MAX", format!("string|max:{n}")),
            var("SIZE", format!("string|size:{n}")),
            var("DIGITS", format!("digits:{n}")),
        ];
        let doc = json!({
            "egg": {"name": format!("Egg {i}"), "description": "d", "variables": variables,
                    "scripts": {"installation": {"container": "c", "entrypoint": "bash", "script": script}}},
            "meta": {"slug": slug, "name": format!("Egg {i}"), "category": "games", "source": "demo",
                     "owner": "o", "repo": format!("r{i}"), "branch": "main", "path": "egg-x.json",
                     "rawUrl": "https://raw.githubusercontent.com/o/r/main/egg-x.json",
                     "indexedAt": 1_763_000_000_000u64, "format": "PTDL_v2", "sha256": "00", "commit": "abc"},
            "readme": null
        });
        files.insert(
            format!("api/v1/eggs/{slug}.json"),
            serde_json::to_vec(&doc).unwrap(),
        );
        // `n` versions in git, each changing `n` lines of the install script.
        let change = json!({"kind": "install_script_changed", "path": ["scripts", "installation", "script"],
            "breaking": false, "text": "install script changed", "script": {"added": n, "removed": n, "unified": ""}});
        let versions: Vec<_> = (0..n)
            .map(|k| {
                json!({"commit": format!("c{k}"), "date": "2026-01-01T00:00:00Z", "subject": "s",
                "path": "egg-x.json", "event": "changed", "breaking": false, "changes": [change]})
            })
            .collect();
        let history = json!({"slug": slug, "source": "o/r", "branch": "main", "path": "egg-x.json",
            "complete": true, "versions": versions});
        files.insert(
            eggcat_wire::paths::history(&slug),
            serde_json::to_vec(&history).unwrap(),
        );
        index.push(json!({"slug": slug}));
    }
    let problem = |i: usize| json!({"source": "o/r", "path": format!("p{i}/egg-a.yml"), "message": "not an egg: `meta.version` is missing"});
    let status = json!({
        "buildId": "b1", "finishedAt": "2026-01-01T00:00:00.000Z", "eggs": n,
        "sources": (0..n).map(|i| json!({"label": "demo", "owner": "o", "repo": format!("r{i}"), "status": "ok", "eggs": 1})).collect::<Vec<_>>(),
        "skipped": (0..n).map(problem).collect::<Vec<_>>(),
        "warnings": (0..n).map(problem).collect::<Vec<_>>(),
        "diagnostics": {"errors": n, "warnings": n, "notes": n}
    });
    files.insert(
        "api/v1/eggs/_index.json".to_owned(),
        serde_json::to_vec(&index).unwrap(),
    );
    files.insert(
        "api/v1/_status.json".to_owned(),
        serde_json::to_vec(&status).unwrap(),
    );
    support::published(&mut files);
    files
}

fn pages(n: usize) -> BTreeMap<String, String> {
    render(
        &tree(n),
        &SiteOptions {
            base_url: "https://eggs.example/cat",
        },
        &Reuse::none(),
    )
    .into_iter()
    .filter(|(k, _)| k.ends_with(".html"))
    .map(|(k, v)| (k, String::from_utf8(v).unwrap()))
    .collect()
}

#[test]
fn every_count_phrase_agrees_with_its_number() {
    for (n, want) in [
        (
            0,
            &[
                "0 game-server eggs for Pelican and Pterodactyl from 0 repositories.",
                "<p id=\"count\" class=\"count\" role=\"status\">0 eggs</p>",
                ": 0 eggs, 0 files skipped, 0 warnings.</p>",
                "0 errors, 0 warnings, 0 notes found",
            ][..],
        ),
        (
            1,
            &[
                "1 game-server egg for Pelican and Pterodactyl from 1 repository.",
                "<p id=\"count\" class=\"count\" role=\"status\">1 egg</p>",
                ": 1 egg, 1 file skipped, 1 warning.</p>",
                "1 error, 1 warning, 1 note found",
                "The script (1 line)",
                "1 version in upstream git",
                "The script diff (1 line added, 1 removed)",
                "optional, text, at most 1 character<",
                "optional, text, exactly 1 character<",
                "optional, exactly 1 digit<",
            ][..],
        ),
        (
            2,
            &[
                "2 game-server eggs for Pelican and Pterodactyl from 2 repositories.",
                "<p id=\"count\" class=\"count\" role=\"status\">2 eggs</p>",
                ": 2 eggs, 2 files skipped, 2 warnings.</p>",
                "2 errors, 2 warnings, 2 notes found",
                "The script (2 lines)",
                "2 versions in upstream git",
                "The script diff (2 lines added, 2 removed)",
                "optional, text, at most 2 characters",
                "optional, text, exactly 2 characters",
                "optional, exactly 2 digits",
            ][..],
        ),
    ] {
        let pages = pages(n);
        let all: String = pages.values().cloned().collect();
        for phrase in want {
            assert!(all.contains(phrase), "n = {n}: {phrase:?} missing");
        }
        for wrong in [
            "1 eggs",
            "1 game-server eggs",
            "1 repositories",
            "1 files",
            "1 warnings",
            "1 errors",
            "1 notes",
            "1 lines",
            "1 versions",
            "1 characters",
            "1 digits",
            "1 items",
            "2 egg ",
            "2 repository",
            "2 file skipped",
            "2 character<",
            "2 digit<",
            "2 version ",
            "2 line added",
        ] {
            for (path, html) in &pages {
                assert!(!html.contains(wrong), "n = {n}: {wrong:?} in {path}");
            }
        }
    }
}

#[test]
fn the_status_page_shows_code_spans_and_names_its_own_data() {
    let pages = pages(1);
    let status = &pages["status/index.html"];
    assert!(
        status
            .contains("not an egg: <code><span class=\"nw\">meta.version</span></code> is missing"),
        "backticks become code"
    );
    assert!(!status.contains('`'), "no literal backtick left");
    assert!(status.contains("<a href=\"../api/v1/_status.json\">_status.json</a>"));
    assert!(
        pages["index.html"].contains("<a href=\"api/v1/eggs/_summary.json\">_summary.json</a>")
    );
    assert!(
        pages["eggs/egg-0/index.html"]
            .contains("<a href=\"../../api/v1/eggs/egg-0.json\">egg-0.json</a>")
    );
}

#[test]
fn the_404_page_links_from_the_root_of_the_base_url() {
    let pages = pages(1);
    let page = &pages["404.html"];
    assert!(
        page.contains(
            "<form class=\"search lost\" role=\"search\" method=\"get\" action=\"/cat/\">"
        )
    );
    assert!(page.contains("<input id=\"q\" name=\"q\""));
    assert!(page.contains("<a href=\"/cat/\">Go to the catalog of every egg</a>"));
    // A removed egg's address answers 410, not this page: the page says so and where they are.
    assert!(page.contains("answers “410 Gone” instead"));
    assert!(page.contains("<a href=\"/cat/api/v1/eggs/_removed.json\"><code>"));
    assert!(!page.contains("removed upstream is listed"));
    assert!(page.contains("href=\"/cat/assets/eggcat-"));
    // Every page has a description for search engines.
    for (path, html) in &pages {
        assert!(
            html.contains("<meta name=\"description\" content=\""),
            "{path}"
        );
    }
}
