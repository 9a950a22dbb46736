//! The egg page's "Changes" section and the Atom feed's entries per egg version, rendered from
//! hand-made history documents (`eggcat_catalog::wire::History`, the changes made by the real
//! `eggcat_diff::diff` or written by hand when the test needs hostile text): each event in
//! words, breaking changes marked, the script diff collapsed, hostile upstream text inert, a
//! missing or unreadable history, the page reused only when its history is unchanged, and the
//! feed's entry ids, dates and order.

mod support;

use std::collections::BTreeMap;

use eggcat_catalog::wire::{History, Version, VersionEvent};
use eggcat_diff::{Change, Kind, ScriptDiff};
use eggcat_web::{SiteOptions, render};
use serde_json::{Value, json};

const BASE: &str = "https://eggs.example";

/// An egg document's bytes for `slug`, indexed at `indexed_at` (Unix ms).
fn egg_doc(slug: &str, name: &str, indexed_at: u64) -> Vec<u8> {
    let doc = json!({
        "egg": {"name": name, "description": "d", "variables": []},
        "meta": {"slug": slug, "name": name, "category": "games", "source": "pelican",
                 "owner": "o", "repo": "games", "branch": "main", "path": format!("{slug}/egg.json"),
                 "rawUrl": format!("https://raw.githubusercontent.com/o/games/main/{slug}/egg.json"),
                 "indexedAt": indexed_at, "format": "PTDL_v2", "sha256": "00", "commit": "c0ffee"},
        "readme": null
    });
    serde_json::to_vec(&doc).unwrap()
}

/// A published tree with the eggs `(slug, name, indexedAt)` and the history documents given
/// as bytes by slug.
fn tree(eggs: &[(&str, &str, u64)], histories: &[(&str, Vec<u8>)]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for (slug, name, at) in eggs {
        files.insert(format!("api/v1/eggs/{slug}.json"), egg_doc(slug, name, *at));
    }
    let index: Vec<Value> = eggs.iter().map(|(s, ..)| json!({"slug": s})).collect();
    files.insert(
        "api/v1/eggs/_index.json".to_owned(),
        serde_json::to_vec(&index).unwrap(),
    );
    files.insert(
        "api/v1/_status.json".to_owned(),
        br#"{"buildId":"b1","finishedAt":"2026-01-01T00:00:00.000Z","eggs":1,"sources":[],"skipped":[],"warnings":[]}"#.to_vec(),
    );
    for (slug, bytes) in histories {
        files.insert(eggcat_catalog::paths::history(slug), bytes.clone());
    }
    support::published(&mut files);
    files
}

fn history(slug: &str, complete: bool, note: Option<&str>, versions: Vec<Version>) -> Vec<u8> {
    let h = History {
        slug: slug.to_owned(),
        source: "o/games".to_owned(),
        branch: "main".to_owned(),
        path: format!("{slug}/egg.json"),
        complete,
        note: note.map(str::to_owned),
        versions,
    };
    serde_json::to_vec(&h).unwrap()
}

/// A version of commit `commit` (also used as its subject's tail) at `date`.
fn version(commit: &str, date: &str, event: VersionEvent, changes: Vec<Change>) -> Version {
    Version {
        commit: commit.to_owned(),
        date: date.to_owned(),
        subject: format!("subject of {commit}"),
        url: Some(format!("https://github.com/o/games/commit/{commit}")),
        path: "x/egg.json".to_owned(),
        event,
        renamed_from: None,
        sha256: Some("00".to_owned()),
        error: None,
        compared_with: None,
        breaking: eggcat_diff::any_breaking(&changes),
        changes,
    }
}

/// An egg with the given image, startup command and install script.
fn egg(image: &str, startup: &str, script: &str) -> Value {
    json!({
        "meta": {"version": "PTDL_v2"}, "name": "Game", "author": "a@b.c", "description": "d",
        "docker_images": {"Java": image}, "startup": startup,
        "config": {"files": "{}", "startup": "{\"done\": \"Done\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"container": "debian", "entrypoint": "bash", "script": script}},
        "variables": []
    })
}

fn page(out: &BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(out[path].clone()).unwrap()
}

fn render_plain(files: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    render(files, &SiteOptions { base_url: BASE }, &|_| None)
}

/// The Changes section of an egg page.
fn changes(html: &str) -> &str {
    let start = html
        .find("<section id=\"changes\"")
        .expect("a Changes section");
    let end = start + html[start..].find("</section>").unwrap();
    &html[start..end]
}

/// Every tag of `html` with its quoted attribute values taken out (escaped, a value holds no
/// `"` or `<`, and whatever words it holds are inert): the tag names and attribute names.
fn tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(t, _)| t))
        .map(|t| t.split('"').step_by(2).collect())
        .collect()
}

#[test]
fn every_event_is_in_words_and_breaking_changes_are_marked() {
    let v1 = egg(
        "ghcr.io/a/java:17",
        "java -jar server.jar",
        "echo one\necho two\n",
    );
    let v2 = egg(
        "ghcr.io/a/java:21",
        "java -Xmx1G -jar server.jar",
        "echo one\necho two\n",
    );
    let v3 = egg(
        "ghcr.io/a/java:21",
        "java -Xmx1G -jar server.jar",
        "echo one\necho 2\necho three\n",
    );
    let image_startup = eggcat_diff::diff(&v1, &v2);
    let script = eggcat_diff::diff(&v2, &v3);
    assert!(
        image_startup.iter().all(|c| c.breaking),
        "{image_startup:?}"
    );
    assert!(script.iter().all(|c| !c.breaking && c.script.is_some()));

    let mut renamed = version("c7", "2026-01-07T00:00:00Z", VersionEvent::Renamed, vec![]);
    renamed.renamed_from = Some("old/egg.json".to_owned());
    let mut unreadable = version("c3", "2026-01-03T00:00:00Z", VersionEvent::Changed, vec![]);
    unreadable.error = Some("not JSON or YAML: `{` expected".to_owned());
    let mut after_unreadable = version(
        "c4",
        "2026-01-04T00:00:00Z",
        VersionEvent::Changed,
        image_startup.clone(),
    );
    after_unreadable.compared_with = Some("c2".to_owned());
    let versions = vec![
        renamed,
        version("c6", "2026-01-06T00:00:00Z", VersionEvent::Restored, vec![]),
        version("c5", "2026-01-05T00:00:00Z", VersionEvent::Removed, vec![]),
        after_unreadable,
        unreadable,
        version("c2", "2026-01-02T00:00:00Z", VersionEvent::Changed, script),
        version("c1", "2026-01-01T00:00:00Z", VersionEvent::Earliest, vec![]),
    ];
    let files = tree(
        &[("g", "Game", 1)],
        &[(
            "g",
            history(
                "g",
                false,
                Some("the history is fetched 7 commits deep"),
                versions,
            ),
        )],
    );
    let html = page(&render_plain(&files), "eggs/g/index.html");
    let s = changes(&html);
    assert_eq!(s.matches("<li class=\"version\"").count(), 7);
    assert!(s.contains("7 versions in upstream git, newest first."));
    assert!(s.contains("href=\"../../api/v1/eggs/g/history.json\""));
    assert!(
        s.contains("<p class=\"note\">The history is fetched 7 commits deep.</p>"),
        "{s}"
    );
    for (id, words) in [
        (
            "c7",
            "renamed from <code>old/<wbr><span class=\"nw\">egg.json</span></code>",
        ),
        ("c6", "file added back"),
        ("c5", "file removed (a later commit added it back)"),
        ("c4", "changed · compared with <code>c2</code>"),
        (
            "c3",
            "This version could not be read: not JSON or YAML: <code><span class=\"nw\">{</span></code> expected.",
        ),
        (
            "c1",
            "earliest version fetched (older history was not fetched)",
        ),
    ] {
        let at = s
            .find(&format!("id=\"v-{id}\""))
            .unwrap_or_else(|| panic!("v-{id}"));
        let item = &s[at..at + s[at..].find("</li>").unwrap()];
        assert!(item.contains(words), "{id}: {words} in {item}");
        assert!(item.contains(&format!("<h3>subject of {id}</h3>")));
        assert!(item.contains(&format!("href=\"https://github.com/o/games/commit/{id}\"")));
    }
    // The renamed version changed nothing a panel sees; the breaking one says so, and why.
    assert!(s.contains("No change a panel would see (format or layout only)."));
    let c4 = &s[s.find("id=\"v-c4\"").unwrap()..s.find("id=\"v-c3\"").unwrap()];
    assert!(c4.contains("· <strong class=\"brk\">can break servers</strong>"));
    assert_eq!(
        c4.matches("<strong class=\"brk\">Can break servers:</strong>")
            .count(),
        image_startup.len()
    );
    for c in &image_startup {
        let why = c.why.as_deref().unwrap();
        assert!(c4.contains(why), "{why}");
    }
    assert!(c4.contains("docker image <code>Java</code> changed from"));
    // The script diff: collapsed, its lines marked, not breaking.
    let c2 = &s[s.find("id=\"v-c2\"").unwrap()..];
    assert!(!c2[..c2.find("</p>").unwrap()].contains("can break"));
    assert!(c2.contains(
        "<details class=\"diff\"><summary>The script diff (2 lines added, 1 removed)</summary>"
    ));
    assert!(c2.contains("<span class=\"del\">-echo two</span>\n"));
    assert!(c2.contains("<span class=\"add\">+echo 2</span>\n"));
    assert!(c2.contains("<span class=\"hunk\">@@ "));
    assert!(!c2.contains("<details class=\"diff\" open"));
}

#[test]
fn hostile_upstream_text_renders_inert() {
    let evil = "<script>alert(1)</script><img src=x onerror=alert(1)>";
    let change = Change {
        kind: Kind::InstallScriptChanged,
        path: vec!["scripts".into(), "installation".into(), "script".into()],
        old: None,
        new: None,
        breaking: true,
        why: Some(format!("because `{evil}`")),
        text: format!("install script changed `{evil}` {evil}"),
        script: Some(ScriptDiff {
            added: 1,
            removed: 0,
            unified: format!("@@ -0,0 +1 @@\n+{evil}"),
            note: Some(evil.to_owned()),
        }),
    };
    let mut v = version(
        "\"><script>alert(1)</script>",
        "2026-01-02T00:00:00Z",
        VersionEvent::Renamed,
        vec![change],
    );
    v.subject = format!("{evil}\u{0}\u{1b}");
    v.url = Some("javascript:alert(1)".to_owned());
    v.renamed_from = Some(evil.to_owned());
    v.date = evil.to_owned();
    let files = tree(
        &[("g", "Game", 1)],
        &[("g", history("g", false, Some(evil), vec![v]))],
    );
    let out = render_plain(&files);
    let html = page(&out, "eggs/g/index.html");
    let s = changes(&html);
    assert!(!s.contains("<script") && !s.contains("<img"));
    for tag in tags(s) {
        for bad in ["script", "onerror", "javascript:", "img"] {
            assert!(!tag.to_ascii_lowercase().contains(bad), "{bad} in <{tag}>");
        }
    }
    assert!(s.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        !s.contains("href=\"javascript"),
        "a non-web URL is not linked"
    );
    // The feed: the hostile subject and texts are escaped twice (HTML inside XML), the control
    // characters XML forbids are dropped, and the id stays one attribute.
    let feed = page(&out, "feed.atom");
    assert!(
        !feed.contains("<script") && !feed.contains("<img"),
        "{feed}"
    );
    assert!(!feed.contains('\u{0}') && !feed.contains('\u{1b}'));
    assert!(feed.contains("<title>Game: &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(feed.contains("&amp;lt;script&amp;gt;"));
    assert!(feed.contains("<id>https://eggs.example/eggs/g/#v-&quot;&gt;&lt;script&gt;"));
    // An unreadable date: the entry falls back to the egg's indexedAt.
    assert!(feed.contains("<updated>1970-01-01T00:00:00.001Z</updated>"));
}

#[test]
fn a_missing_or_unreadable_history_says_so() {
    let no_versions = history(
        "d",
        false,
        Some("the source is a plain folder: it has no history"),
        vec![],
    );
    let files = tree(
        &[("a", "A", 1), ("b", "B", 1), ("c", "C", 1), ("d", "D", 1)],
        &[
            ("b", b"\x00\xffnot json".to_vec()),
            (
                "c",
                br#"{"note": "history failed: `git log` timed out", "versions": 3}"#.to_vec(),
            ),
            ("d", no_versions),
        ],
    );
    let out = render_plain(&files);
    let s = |slug: &str| changes(&page(&out, &format!("eggs/{slug}/index.html"))).to_owned();
    assert!(s("a").contains("<p>No history available.</p>"));
    assert!(s("b").contains("<p>No history available.</p>"));
    assert!(
        s("c").contains(
            "<p>No history available (history failed: <code>git log</code> timed out).</p>"
        )
    );
    assert!(s("d").contains(
        "<p>No history available (the source is a plain folder: it has no history).</p>"
    ));
    assert!(s("d").contains("href=\"../../api/v1/eggs/d/history.json\""));
    for slug in ["a", "b", "c", "d"] {
        assert!(!s(slug).contains("class=\"versions\""), "{slug}");
    }
    // In the feed each of them is one entry as before history: the page's URL at indexedAt.
    let feed = page(&out, "feed.atom");
    for slug in ["a", "b", "c", "d"] {
        assert!(
            feed.contains(&format!("<id>{BASE}/eggs/{slug}/</id>")),
            "{slug}"
        );
    }
}

#[test]
fn the_page_shows_the_newest_ten_and_a_complete_history_has_no_note() {
    let versions: Vec<Version> = (0..12)
        .rev()
        .map(|i| {
            version(
                &format!("c{i:02}"),
                &format!("2026-01-{:02}T00:00:00Z", i + 1),
                VersionEvent::Changed,
                vec![],
            )
        })
        .collect();
    let files = tree(
        &[("g", "Game", 1)],
        &[("g", history("g", true, None, versions))],
    );
    let html = page(&render_plain(&files), "eggs/g/index.html");
    let s = changes(&html);
    assert_eq!(s.matches("<li class=\"version\"").count(), 10);
    assert!(s.contains("12 versions in upstream git; the newest 10 here, newest first."));
    assert!(
        s.contains("id=\"v-c11\"") && s.contains("id=\"v-c02\"") && !s.contains("id=\"v-c01\"")
    );
    assert!(!s.contains("class=\"note\""));
}

#[test]
fn feed_entries_are_egg_versions_newest_first_with_stable_ids() {
    // Egg `a`: 12 versions, one a day in January; egg `b`: two versions, the newer sharing its
    // date with a's newest (one commit changing both); egg `c`: no history (indexedAt).
    let a: Vec<Version> = (0..12)
        .rev()
        .map(|i| {
            version(
                &format!("a{i:02}"),
                &format!("2026-01-{:02}T00:00:00Z", i + 1),
                VersionEvent::Changed,
                vec![],
            )
        })
        .collect();
    let b = vec![
        version("b1", "2026-01-12T00:00:00Z", VersionEvent::Changed, vec![]),
        version("b0", "2025-12-01T00:00:00Z", VersionEvent::Added, vec![]),
    ];
    let jan_5 = 1_767_571_200_000; // 2026-01-05T00:00:00Z
    let files = tree(
        &[
            ("a", "Egg A", 1),
            ("b", "Egg B", 1),
            ("c", "Egg C", jan_5 + 1),
        ],
        &[
            ("a", history("a", true, None, a)),
            ("b", history("b", true, None, b)),
        ],
    );
    let out = render_plain(&files);
    let feed = page(&out, "feed.atom");
    let ids: Vec<&str> = feed
        .split("<entry>\n<title>")
        .skip(1)
        .map(|e| &e[e.find("<id>").unwrap() + 4..e.find("</id>").unwrap()])
        .collect();
    let want: Vec<String> = [
        "a/#v-a11", "b/#v-b1", "a/#v-a10", "a/#v-a09", "a/#v-a08", "a/#v-a07", "a/#v-a06",
        "a/#v-a05", "c/", "a/#v-a04", "a/#v-a03", "a/#v-a02", "b/#v-b0",
    ]
    .iter()
    .map(|t| format!("{BASE}/eggs/{t}"))
    .collect();
    // At most the ten versions each page shows: a01 and a00 are not in the feed.
    assert_eq!(ids, want);
    assert!(feed.contains("<updated>2026-01-12T00:00:00.000Z</updated>\n<author>"));
    assert!(feed.contains(&format!(
        "<title>Egg B: subject of b1</title>\n<id>{BASE}/eggs/b/#v-b1</id>\n<link href=\"{BASE}/eggs/b/#v-b1\"/>\n<updated>2026-01-12T00:00:00.000Z</updated>"
    )));
    // Each version's link has its anchor on the page.
    let a_page = page(&out, "eggs/a/index.html");
    for id in ids.iter().filter(|i| i.contains("/eggs/a/#")) {
        let anchor = id.rsplit('#').next().unwrap();
        assert!(a_page.contains(&format!("id=\"{anchor}\"")), "{anchor}");
    }
    // The same catalog gives the same feed, byte for byte.
    assert_eq!(feed, page(&render_plain(&files), "feed.atom"));
}

#[test]
fn the_feed_keeps_fifty_entries_and_their_content_is_the_change_list() {
    let old = egg("img:1", "run", "");
    let new = egg("img:2", "run", "");
    let changes = eggcat_diff::diff(&old, &new);
    let mut eggs = Vec::new();
    let mut histories = Vec::new();
    let slugs: Vec<String> = (0..6).map(|i| format!("e{i}")).collect();
    for slug in &slugs {
        eggs.push((slug.as_str(), "E", 1));
        let versions = (0..10)
            .map(|d| {
                version(
                    &format!("{slug}-{d}"),
                    &format!("2026-02-{:02}T00:00:00Z", 10 - d),
                    VersionEvent::Changed,
                    changes.clone(),
                )
            })
            .collect();
        histories.push((slug.as_str(), history(slug, true, None, versions)));
    }
    let feed = page(&render_plain(&tree(&eggs, &histories)), "feed.atom");
    assert_eq!(feed.matches("<entry>").count(), 50);
    let content = "<content type=\"html\">&lt;p&gt;changed, commit &lt;a href=&quot;https://github.com/o/games/commit/e0-0&quot;&gt;e0-0&lt;/a&gt;.&lt;/p&gt;&lt;ul&gt;&lt;li&gt;&lt;strong&gt;Can break servers:&lt;/strong&gt; docker image &lt;code&gt;Java&lt;/code&gt; changed from";
    assert!(feed.contains(content), "{feed}");
}

#[test]
fn an_egg_page_is_reused_only_while_its_history_is_unchanged() {
    let v = |subject: &str| {
        let mut v = version("c1", "2026-01-01T00:00:00Z", VersionEvent::Added, vec![]);
        v.subject = subject.to_owned();
        history("g", true, None, vec![v])
    };
    let before = tree(&[("g", "Game", 1)], &[("g", v("first"))]);
    let sentinel = b"the previous snapshot's page".to_vec();
    let previous = |files: BTreeMap<String, Vec<u8>>| {
        let sentinel = sentinel.clone();
        move |path: &str| {
            if path == "eggs/g/index.html" {
                Some(sentinel.clone())
            } else {
                files.get(path).cloned()
            }
        }
    };
    // The previous snapshot: the documents and what rendering them gave (its summary included,
    // which the sibling check reads).
    let mut snapshot = before.clone();
    snapshot.extend(render(&before, &SiteOptions { base_url: BASE }, &|_| None));
    let reader = previous(snapshot);
    let same = render(&before, &SiteOptions { base_url: BASE }, &reader);
    assert_eq!(
        same["eggs/g/index.html"], sentinel,
        "unchanged inputs: reused"
    );

    let after = tree(&[("g", "Game", 1)], &[("g", v("second"))]);
    let out = render(&after, &SiteOptions { base_url: BASE }, &reader);
    assert!(
        page(&out, "eggs/g/index.html").contains("<h3>second</h3>"),
        "a new history: rendered again"
    );

    let gone = tree(&[("g", "Game", 1)], &[]);
    let out = render(&gone, &SiteOptions { base_url: BASE }, &reader);
    assert!(
        page(&out, "eggs/g/index.html").contains("No history available."),
        "a history gone: rendered again"
    );
}

/// The oldest version fetched (`earliest`) is where a shallow history stops, not a change made
/// at that commit: it gets no feed entry, and an egg with nothing else keeps its page's entry.
#[test]
fn the_earliest_version_fetched_is_no_feed_entry() {
    let shallow = |slug: &str, versions| history(slug, false, Some("fetched to a depth"), versions);
    let changed = version("c2", "2026-02-02T00:00:00Z", VersionEvent::Changed, vec![]);
    let earliest = version("c1", "2026-02-01T00:00:00Z", VersionEvent::Earliest, vec![]);
    let files = tree(
        &[("a", "A", 1), ("b", "B", 1)],
        &[
            ("a", shallow("a", vec![changed, earliest.clone()])),
            ("b", shallow("b", vec![earliest])),
        ],
    );
    let feed = page(&render_plain(&files), "feed.atom");
    assert!(feed.contains("/eggs/a/#v-c2</id>"), "{feed}");
    assert!(!feed.contains("#v-c1"), "{feed}");
    assert!(
        feed.contains("<id>https://eggs.example/eggs/b/</id>"),
        "{feed}"
    );
}
