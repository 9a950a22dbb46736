//! The egg page's "Changes" section and the Atom feed's entries per egg version, rendered from
//! hand-made history documents (`eggcat_wire::History`, the changes made by the real
//! `eggcat_diff::diff` or written by hand when the test needs hostile text): each event in
//! words, breaking changes marked, the script diff collapsed, hostile upstream text inert, a
//! missing or unreadable history, the page reused only when its history is unchanged, and the
//! feed's entry ids, dates and order.

mod support;

use std::collections::BTreeMap;

use eggcat_diff::{Change, Kind, ScriptDiff};
use eggcat_web::{Reuse, SiteOptions, render};
use eggcat_wire::{History, Version, VersionEvent};
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
        files.insert(eggcat_wire::paths::history(slug), bytes.clone());
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
        since: None,
        versions,
    };
    serde_json::to_vec(&h).unwrap()
}

/// The history of an egg whose file is older than the history read, which starts after a
/// commit of `date`; with the newer `versions` made in it.
fn older(slug: &str, date: &str, versions: Vec<Version>) -> Vec<u8> {
    let h = History {
        slug: slug.to_owned(),
        source: "o/games".to_owned(),
        branch: "main".to_owned(),
        path: format!("{slug}/egg.json"),
        complete: false,
        note: Some(
            "older than the history eggcat reads (the newest 100 commits of the branch, back to 2026-01-05): the file did not change there"
                .to_owned(),
        ),
        since: Some(eggcat_wire::Since {
            commit: "base".to_owned(),
            date: date.to_owned(),
        }),
        versions,
    };
    serde_json::to_vec(&h).unwrap()
}

/// The entries of a feed as (id, link, updated).
fn entries(feed: &str) -> Vec<(String, String, String)> {
    let between = |e: &str, a: &str, b: &str| {
        let start = e.find(a).unwrap() + a.len();
        e[start..start + e[start..].find(b).unwrap()].to_owned()
    };
    feed.split("<entry>\n")
        .skip(1)
        .map(|e| {
            (
                between(e, "<id>", "</id>"),
                between(e, "<link href=\"", "\"/>"),
                between(e, "<updated>", "</updated>"),
            )
        })
        .collect()
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
        pelican_update_check_md5: None,
        pelican_json: None,
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
    render(files, &SiteOptions { base_url: BASE }, &Reuse::none())
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
    renamed.compared_with = Some("c6".to_owned());
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
    let c7 = &s[s.find("id=\"v-c7\"").unwrap()..s.find("id=\"v-c6\"").unwrap()];
    assert!(c7.contains("No change a panel would see (format or layout only)."));
    assert_eq!(s.matches("format or layout only").count(), 1);
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

/// A version with no readable one before it (the window's base, or its predecessor, could not
/// be read) found no change: that is no proof nothing changed, and the page says so.
#[test]
fn a_version_with_nothing_readable_before_it_claims_no_format_only_change() {
    let mut unreadable = version("c1", "2026-01-01T00:00:00Z", VersionEvent::Changed, vec![]);
    unreadable.error = Some("not JSON or YAML: `{` expected".to_owned());
    let versions = vec![
        version("c2", "2026-01-02T00:00:00Z", VersionEvent::Changed, vec![]),
        unreadable,
    ];
    let files = tree(
        &[("g", "Game", 1)],
        &[("g", history("g", true, None, versions))],
    );
    let out = render_plain(&files);
    let s = changes(&page(&out, "eggs/g/index.html")).to_owned();
    let c2 = &s[s.find("id=\"v-c2\"").unwrap()..s.find("id=\"v-c1\"").unwrap()];
    assert!(
        c2.contains("What changed is not known: the version before it could not be read."),
        "{c2}"
    );
    assert!(!s.contains("format or layout only"), "{s}");
    let feed = page(&out, "feed.atom");
    assert!(feed.contains("What changed is not known"), "{feed}");
    assert!(!feed.contains("format or layout only"), "{feed}");
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
    // The same version at a readable date, and again at a date that is not one.
    let mut undated = v.clone();
    undated.commit = "undated".to_owned();
    undated.date = evil.to_owned();
    let files = tree(
        &[("g", "Game", 1)],
        &[("g", history("g", false, Some(evil), vec![v, undated]))],
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
    assert!(feed.contains("<link href=\"https://eggs.example/eggs/g/#v-&quot;&gt;&lt;script&gt;"));
    // An unreadable date: no entry (never one dated by the egg's indexedAt, a build's time).
    assert_eq!(entries(&feed).len(), 1, "{feed}");
    assert!(!feed.contains("1970-01-01"));
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
    // No upstream date is known for any of them: the feed would have to date them by when
    // eggcat read them (a build's time), so they have no entry; their pages say which date
    // "Updated" is.
    let feed = page(&out, "feed.atom");
    assert_eq!(entries(&feed), []);
    let facts = page(&out, "eggs/d/index.html");
    assert!(
        facts.contains("(first read by eggcat; no upstream history)"),
        "{facts}"
    );
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
    // date with a's newest (one commit changing both); egg `c`: no history; egg `d`: older than
    // the history read, which starts after a commit of January 5.
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
    let build_time = 1_800_000_000_000; // 2027: every egg's indexedAt
    let histories = [
        ("a", history("a", true, None, a)),
        ("b", history("b", true, None, b)),
        ("d", older("d", "2026-01-05T12:00:00Z", vec![])),
    ];
    let eggs = [
        ("a", "Egg A", build_time),
        ("b", "Egg B", build_time),
        ("c", "Egg C", build_time),
        ("d", "Egg D", build_time),
    ];
    let files = tree(&eggs, &histories);
    let out = render_plain(&files);
    let feed = page(&out, "feed.atom");
    let got = entries(&feed);
    let links: Vec<String> = got.iter().map(|(_, l, _)| l.clone()).collect();
    let want: Vec<String> = [
        "a/#v-a11", "b/#v-b1", "a/#v-a10", "a/#v-a09", "a/#v-a08", "a/#v-a07", "a/#v-a06",
        "a/#v-a05", "d/", "a/#v-a04", "a/#v-a03", "a/#v-a02", "b/#v-b0",
    ]
    .iter()
    .map(|t| format!("{BASE}/eggs/{t}"))
    .collect();
    // At most the ten versions each page shows: a01 and a00 are not in the feed; `c` (no date
    // known) neither; `d` once, at the start of the history read, below every later version.
    assert_eq!(links, want);
    assert_eq!(got[8].2, "2026-01-05T12:00:00.000Z");
    assert!(
        got.iter().all(|(_, _, at)| !at.starts_with("2027")),
        "never a build's time"
    );
    // Ids name the repository, the commit and the path, never the slug or the address.
    assert_eq!(
        got[1].0,
        eggcat_catalog::history::feed_id(&["o/games", "b1", "x/egg.json"])
    );
    assert!(got.iter().all(|(id, ..)| id.starts_with("urn:uuid:")));
    assert!(feed.contains("<updated>2026-01-12T00:00:00.000Z</updated>\n<author>"));
    assert!(feed.contains("<title>Egg B: subject of b1</title>"));
    assert!(
        feed.contains("Older than the history eggcat reads: last changed on 2026-01-05 or before.")
    );
    // Each version's link has its anchor on the page.
    let a_page = page(&out, "eggs/a/index.html");
    for link in links.iter().filter(|i| i.contains("/eggs/a/#")) {
        let anchor = link.rsplit('#').next().unwrap();
        assert!(a_page.contains(&format!("id=\"{anchor}\"")), "{anchor}");
    }
    // The same catalog gives the same feed, byte for byte.
    assert_eq!(feed, page(&render_plain(&files), "feed.atom"));
    // The same eggs under other slugs and another address: the same ids.
    let renamed: Vec<(&str, Vec<u8>)> = histories
        .iter()
        .map(|(slug, bytes)| {
            let new: &str = match *slug {
                "a" => "a-2",
                "b" => "b-2",
                _ => "d-2",
            };
            (new, bytes.clone())
        })
        .collect();
    let moved = tree(
        &[
            ("a-2", "Egg A", build_time),
            ("b-2", "Egg B", build_time),
            ("d-2", "Egg D", build_time),
        ],
        &renamed,
    );
    let moved_feed = page(
        &render(
            &moved,
            &SiteOptions {
                base_url: "https://other.example",
            },
            &Reuse::none(),
        ),
        "feed.atom",
    );
    // (This fixture derives an egg's path from its slug: egg `d`'s entry, which names the
    // file's path and content, is left out of the comparison; versions name their own path.)
    let ids = |f: &str| {
        entries(f)
            .into_iter()
            .filter(|(_, link, _)| link.contains('#'))
            .map(|(id, ..)| id)
            .collect::<Vec<_>>()
    };
    let mut before: Vec<String> = ids(&feed);
    let mut after: Vec<String> = ids(&moved_feed);
    before.sort();
    after.sort();
    assert_eq!(before, after);
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
    // The previous snapshot: the documents, what rendering them gave, and its keys.
    let mut snapshot = before.clone();
    let none = Reuse::none();
    snapshot.extend(render(&before, &SiteOptions { base_url: BASE }, &none));
    let reader = Reuse::new(none.made(), previous(snapshot));
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

/// The oldest version fetched (`earliest`, in a history document of an older eggcat, kept for
/// an egg whose source failed since) is where its history stopped, not a change made at that
/// commit: no entry of its own; an egg with nothing else has one entry at that date, as an egg
/// older than the history read.
#[test]
fn the_earliest_version_of_an_older_document_is_no_feed_entry() {
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
    let got = entries(&feed);
    assert_eq!(got.len(), 2, "{feed}");
    assert_eq!(got[0].1, format!("{BASE}/eggs/a/#v-c2"));
    assert_eq!(
        (got[1].1.as_str(), got[1].2.as_str()),
        ("https://eggs.example/eggs/b/", "2026-02-01T00:00:00.000Z")
    );
}

/// An egg older than the history read: its page says so in its Changes section and in
/// "Updated", with the date the history starts at, and lists no version.
#[test]
fn an_egg_older_than_the_history_read_says_so() {
    let files = tree(
        &[("d", "D", 1_800_000_000_000)],
        &[("d", older("d", "2026-01-05T12:00:00Z", vec![]))],
    );
    let html = page(&render_plain(&files), "eggs/d/index.html");
    let s = changes(&html);
    assert!(
        s.contains("<p>Older than the history eggcat reads (the newest 100 commits of the branch, back to 2026-01-05): the file did not change there. <a href=\"../../api/v1/eggs/d/history.json\">"),
        "{s}"
    );
    assert!(!s.contains("class=\"versions\""));
    assert!(
        html.contains("<dt>Updated</dt><dd><time datetime=\"2026-01-05T12:00:00.000Z\">2026-01-05</time> or before <span class=\"muted\">(older than the history eggcat reads)</span></dd>"),
        "{html}"
    );
}

/// Long values changed late (a startup command, a description of several lines, a default):
/// each change line shows where the two sides differ, and the page offers the full values,
/// collapsed: before and after whole, or a line diff for texts of several lines.
#[test]
fn long_changed_values_are_offered_whole() {
    let jvm = "java -Xms128M -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxGCPauseMillis=200";
    let mut old = egg("img:1", &format!("{jvm} -jar server.jar nogui"), "");
    let mut new = egg("img:1", &format!("{jvm} -jar server.jar --nogui"), "");
    old["description"] =
        json!("A server.\nIt runs the game with the flags it was given.\nIt stops.");
    new["description"] =
        json!("A server.\nIt runs the game with the flags it was given, tuned.\nIt stops.");
    let var = |default: &str| {
        json!([{"name": "Flags", "env_variable": "FLAGS", "default_value": default,
                "user_viewable": true, "user_editable": true, "rules": "required|string"}])
    };
    old["variables"] = var(&format!("{jvm} -Dlog4j2.formatMsgNoLookups=true"));
    new["variables"] = var(&format!("{jvm} -Dlog4j2.formatMsgNoLookups=false"));
    let list = eggcat_diff::diff(&old, &new);
    assert_eq!(list.len(), 3, "{list:#?}");
    let files = tree(
        &[("g", "Game", 1)],
        &[(
            "g",
            history(
                "g",
                true,
                None,
                vec![version(
                    "c1",
                    "2026-01-02T00:00:00Z",
                    VersionEvent::Changed,
                    list,
                )],
            ),
        )],
    );
    let html = page(&render_plain(&files), "eggs/g/index.html");
    let s = changes(&html);
    // The startup command: both sides cut around `--nogui`, with their lengths, then whole.
    // (The page keeps words unbroken in `nw` spans; the words are what matter here.)
    let words = s.replace("<span class=\"nw\">", "").replace("</span>", "");
    assert!(words.contains("<code>…200 -jar server.jar nogui</code> (101 characters) to <code>…200 -jar server.jar --nogui</code> (103 characters)"), "{words}");
    assert!(s.contains(&format!(
        "<details class=\"values\"><summary>The full values</summary><dl><dt>Before (101 characters)</dt><dd><pre tabindex=\"0\"><code>{jvm} -jar server.jar nogui</code></pre></dd><dt>After (103 characters)</dt><dd><pre tabindex=\"0\"><code>{jvm} -jar server.jar --nogui</code></pre></dd></dl></details>"
    )));
    // The description, several lines: a line diff.
    assert!(s.contains("<details class=\"diff\"><summary>The full values as a line diff (1 line added, 1 removed)</summary>"), "{s}");
    assert!(s.contains(
        "<span class=\"add\">+It runs the game with the flags it was given, tuned.</span>"
    ));
    // The default: cut around `true`/`false`.
    assert!(words.contains("<code>…-Dlog4j2.formatMsgNoLookups=true</code> (112 characters) to <code>…-Dlog4j2.formatMsgNoLookups=false</code> (113 characters)"), "{words}");
    assert_eq!(s.matches("<details class=\"values\">").count(), 2);
}
