//! `render` on small catalogs made here (a hostile egg, a README with relative links), on the
//! demo catalog of the CLI's golden test, and on the real shared corpus (`../shared/upstream`,
//! built here in memory through `eggcat_catalog`, no git): what reaches the pages, and that it is
//! stable. Without the corpus (a plain clone) its test skips with one line on stderr, or fails
//! under `EGGCAT_CORPUS=require` (CI).

mod support;

use std::collections::BTreeMap;

use eggcat_web::{Reuse, SiteOptions, render};
use serde_json::json;

const BASE: &str = "https://eggs.example";

/// A published tree with one egg.
fn tree(egg: serde_json::Value, readme: Option<&str>) -> BTreeMap<String, Vec<u8>> {
    let meta = json!({
        "slug": "games-evil", "name": egg["name"], "category": "games", "source": "pelican",
        "owner": "o", "repo": "games", "branch": "main", "path": "evil/sub/egg-evil.json",
        "rawUrl": "https://raw.githubusercontent.com/o/games/main/evil/sub/egg-evil.json",
        "indexedAt": 1_763_000_000_000u64, "format": "PTDL_v2", "sha256": "00", "commit": "abcdef0123456789",
        "diagnostics": [{"code": "E1", "severity": "error", "message": "<b>bad</b>", "pointer": "/name"}]
    });
    let doc = json!({"egg": egg, "meta": meta, "readme": readme});
    let mut files = BTreeMap::new();
    files.insert(
        "api/v1/eggs/games-evil.json".to_owned(),
        serde_json::to_vec(&doc).unwrap(),
    );
    files.insert(
        "api/v1/eggs/_index.json".to_owned(),
        br#"[{"slug":"games-evil","name":"x","category":"games","repo":"games","source":"pelican"}]"#.to_vec(),
    );
    files.insert(
        "api/v1/_status.json".to_owned(),
        br#"{"buildId":"b1","finishedAt":"2026-01-01T00:00:00.000Z","eggs":1,"sources":[],"skipped":[],"warnings":[{"source":"o/games","path":"evil/sub/egg-evil.json","message":"dup <key>"}]}"#.to_vec(),
    );
    support::published(&mut files);
    files
}

/// The inside of every tag of `html` (`a href="x"` for `<a href="x">`).
fn tags(html: &str) -> Vec<&str> {
    html.split('<')
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(t, _)| t))
        .collect()
}

fn page(out: &BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(out[path].clone()).unwrap()
}

#[test]
fn a_hostile_egg_renders_inert() {
    let svg = "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+PC9zdmc+";
    let egg = json!({
        "name": "<script>alert(1)</script>", "description": "x".repeat(2_000_000),
        "image": svg, "docker_images": {"a": "img\"><script>"},
        "startup": "run {{EVIL}} </code><script>", "variables": [
            {"name": "<i>", "env_variable": "EVIL", "default_value": "\"><img onerror=x>", "rules": "required|in:a,b",
             "user_viewable": true, "user_editable": false}]
    });
    let readme = "<script>alert(1)</script><img src=x onerror=alert(1)>[a](javascript:alert(1))\n\n<iframe src=//x></iframe><form><input></form><div style=\"color:red\" onclick=\"x\">t</div>";
    let out = render(
        &tree(egg, Some(readme)),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let html = page(&out, "eggs/games-evil/index.html");
    // Markup only: the same words as escaped text are inert and expected.
    let own_script = "script src=\"../../assets/eggcat-";
    for tag in tags(&html)
        .into_iter()
        .filter(|t| !t.starts_with(own_script) && *t != "/script")
    {
        // The description is data in a quoted attribute value: escaped, it is inert whatever
        // words it holds.
        if let Some(content) = tag.strip_prefix("meta name=\"description\" content=\"") {
            assert!(!content.trim_end_matches('"').contains(['<', '"']), "{tag}");
            continue;
        }
        for bad in [
            "script",
            "onerror",
            "onclick",
            "javascript:",
            "iframe",
            "form",
            "input",
            "style=",
        ] {
            assert!(
                !tag.to_ascii_lowercase().contains(bad),
                "{bad} in the tag <{tag}>"
            );
        }
    }
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the name is shown as text"
    );
    assert!(
        html.len() < 60_000,
        "the 2 MB description is clipped: {}",
        html.len()
    );
    assert!(
        !out.keys().any(|k| k.starts_with("icons/")),
        "the SVG icon is refused"
    );
    assert!(
        html.contains("href=\"#var-EVIL\""),
        "the startup variable links to its row"
    );
    assert!(html.contains("required, one of: a, b"));
    assert!(html.contains("can see"));
    assert!(
        html.contains("../../status/#w-0"),
        "the report's warning is linked"
    );
    assert!(
        page(&out, "status/index.html").contains("href=\"../eggs/games-evil/\""),
        "the warning links back to the egg's page"
    );
    for p in ["index.html", "status/index.html"] {
        assert!(!page(&out, p).contains("<script>alert"), "{p}");
    }
    assert!(!page(&out, "feed.atom").contains("<script>"));
}

#[test]
fn readme_links_point_upstream_and_images_become_links() {
    let egg = json!({"name": "Fine", "description": "d", "variables": []});
    let readme = "# Title\n\n[doc](docs/a.md) [up](../b.md) [root](/c.md) [anchor](#x) ![shot](img/s.png)\n\n<a href=\"raw.md\">raw</a> <img src=\"p.png\" alt=\"pic\">\n";
    let out = render(
        &tree(egg, Some(readme)),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let html = page(&out, "eggs/games-evil/index.html");
    let blob = "https://github.com/o/games/blob/main/";
    let raw = "https://raw.githubusercontent.com/o/games/main/";
    for want in [
        format!("href=\"{blob}evil/sub/docs/a.md\""),
        format!("href=\"{blob}evil/b.md\""),
        format!("href=\"{blob}c.md\""),
        "href=\"#x\"".to_owned(),
        format!("href=\"{raw}evil/sub/img/s.png\""),
        format!("href=\"{blob}evil/sub/raw.md\""),
        format!("href=\"{raw}evil/sub/p.png\""),
        "<h2>Title</h2>".to_owned(),
    ] {
        assert!(html.contains(&want), "{want} missing from the README");
    }
    assert!(
        !html.contains("<img src=\"http"),
        "no image from another host"
    );
}

/// The sanitizer's time grows with the square of the nesting: a README past the bound on tags is
/// shown as its escaped Markdown text (100,000 `>` took 30 s to sanitize, 100,000 `<div>` 17.5 s).
#[test]
fn a_readme_with_more_tags_than_the_bound_is_shown_as_its_escaped_text() {
    let hostile = format!("<script>alert(1)</script>{}", "<div>".repeat(6_000));
    for markdown in [">".repeat(100_000), "<div>".repeat(100_000), hostile] {
        let html = eggcat_web::render_readme(&markdown, "", "", "");
        assert!(
            html.starts_with("<p>This README is shown as its Markdown text: it has "),
            "{}",
            &html[..80]
        );
        assert!(
            html.contains("tags, more than the 5000 the catalog renders.</p><pre>"),
            "{}",
            &html[..120]
        );
        let text = html.split_once("<pre>").unwrap().1;
        assert!(
            !text[..text.len() - "</pre>".len()].contains('<'),
            "escaped"
        );
        assert!(
            text.starts_with("&gt;") || text.starts_with("&lt;"),
            "{}",
            &text[..20]
        );
    }
    // At the bound and below, the README is HTML as always.
    let html = eggcat_web::render_readme(&"<div>x".repeat(4_999), "", "", "");
    assert!(html.starts_with("<div>x<div>x"), "{}", &html[..40]);
    assert!(!html.contains("shown as its Markdown text"));
}

#[test]
fn rendering_is_deterministic_and_the_summary_keeps_document_order() {
    let egg = json!({"name": "Same", "description": "d", "tags": ["b", "a"], "docker_images": ["i"], "variables": []});
    let files = tree(egg, Some("# r"));
    let a = render(&files, &SiteOptions { base_url: BASE }, &Reuse::none());
    let b = render(&files, &SiteOptions { base_url: BASE }, &Reuse::none());
    assert_eq!(a, b);
    let summary: serde_json::Value =
        serde_json::from_slice(&a[eggcat_wire::paths::SUMMARY]).unwrap();
    assert_eq!(summary[0]["slug"], "games-evil");
    assert_eq!(summary[0]["tags"], json!(["b", "a"]));
    assert!(
        a.keys()
            .any(|k| k.starts_with("assets/eggcat-") && k.ends_with(".js"))
    );
}

#[test]
fn a_checks_help_shows_its_backticks_as_code() {
    let egg = json!({"name": "Fine", "description": "d", "variables": []});
    let mut files = tree(egg, None);
    let path = "api/v1/eggs/games-evil.json";
    let mut doc: serde_json::Value = serde_json::from_slice(&files[path]).unwrap();
    doc["meta"]["diagnostics"][0]["help"] = json!("remove `sort` from every variable");
    files.insert(path.to_owned(), serde_json::to_vec(&doc).unwrap());
    let out = render(&files, &SiteOptions { base_url: BASE }, &Reuse::none());
    let html = page(&out, "eggs/games-evil/index.html");
    assert!(
        html.contains("remove <code>sort</code> from every variable"),
        "{}",
        section_of(&html, "problems")
    );
}

/// The text a reader sees on `html`: tags dropped, and the inside of `<code>`, `<pre>` and
/// `<script>` dropped too, since a shell script or a README's code may hold backticks of its own.
fn prose(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let tag = &rest[start + 1..start + end];
        rest = &rest[start + end + 1..];
        let name = tag.split([' ', '/']).next().unwrap_or("");
        if ["code", "pre", "script"].contains(&name) {
            let close = format!("</{name}>");
            rest = rest.find(&close).map_or("", |i| &rest[i + close.len()..]);
        }
    }
    out.push_str(rest);
    out
}

/// The demo catalog the CLI's golden test publishes (crates/cli/tests/data/demo), its API
/// documents only, as `render` gets them.
fn demo_api() -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let key = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data/demo");
    let mut out = BTreeMap::new();
    walk(&root.join("api"), &root, &mut out);
    out
}

#[test]
fn no_egg_page_shows_a_literal_backtick() {
    let demo = demo_api();
    assert!(
        demo.contains_key("api/v1/eggs/_index.json"),
        "the demo catalog is there"
    );
    let out = render(&demo, &SiteOptions { base_url: BASE }, &Reuse::none());
    let eggs: Vec<&String> = out
        .keys()
        .filter(|k| k.starts_with("eggs/") && k.ends_with("/index.html"))
        .collect();
    assert!(eggs.len() >= 5, "the demo has its egg pages: {eggs:?}");
    for path in eggs {
        let text = prose(&page(&out, path));
        assert!(
            !text.contains('`'),
            "a literal backtick on {path}: {}",
            text.split('`').next().unwrap_or("")
        );
    }
    // The import notes that hold the backticks are there, as code.
    let ddnet = page(&out, "eggs/demo-eggs-ddnet/index.html");
    assert!(ddnet.contains("the variables&#39; <code>sort</code> numbers"));
    // Identifiers are code, which wraps only after a `/`: the install container and
    // entrypoint, and the settings the panel writes into a config file.
    assert!(ddnet.contains("<dt>Container</dt><dd><code>"));
    assert!(ddnet.contains("<dt>Entrypoint</dt><dd><code>"));
    // How to check a panel against the egg and update it (issue 37), the catalog's own address
    // in both commands.
    // The page's text, every tag out (code included).
    let mut words = String::new();
    let mut in_tag = false;
    for c in ddnet.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => words.push(c),
            _ => {}
        }
    }
    assert!(
        words.contains(&format!(
            "run eggcat panel status --panel https://your-panel --catalog {BASE}; eggcat panel update --panel https://your-panel --catalog {BASE} --dry-run shows how it would update"
        )),
        "{words}"
    );
    assert!(ddnet.contains("run <code>eggcat panel status "));
    let luanti = page(&out, "eggs/demo-eggs-luanti/index.html");
    assert!(
        luanti.contains(
            "<td><code>port</code>, <code>server_name</code>, <code>max_users</code></td>"
        )
    );
}

/// Every file under `root` as a tree entry, read the way eggcat reads a plain folder: `.git`
/// folders skipped, symbolic links listed but never followed, contents read where
/// `needs_content` asks for them.
fn folder_entries(root: &std::path::Path) -> Vec<eggcat_catalog::TreeEntry> {
    use eggcat_wire::{EntryKind, TreeEntry};
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<TreeEntry>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                if name != ".git" {
                    walk(&entry.path(), &path, out);
                }
                continue;
            }
            let kind = if meta.file_type().is_symlink() {
                EntryKind::Symlink
            } else {
                EntryKind::File
            };
            out.push(TreeEntry {
                path,
                kind,
                size: meta.len(),
                content: None,
            });
        }
    }
    let mut entries = Vec::new();
    walk(root, "", &mut entries);
    for i in eggcat_catalog::needs_content(&entries) {
        entries[i].content = Some(std::fs::read(root.join(&entries[i].path)).unwrap());
    }
    entries
}

/// The published API documents of the real corpus, built in memory as a first build would.
fn corpus_api(corpus: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    use eggcat_catalog::{BuildContext, Fetched, Previous, SourceInfo, SourceInput};
    let mut repos: Vec<String> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    repos.sort();
    let inputs = repos
        .iter()
        .map(|repo| SourceInput {
            info: SourceInfo {
                key: format!("https://github.com/pelican-eggs/{repo} main"),
                url: format!("https://github.com/pelican-eggs/{repo}"),
                label: "pelican".into(),
                owner: "pelican-eggs".into(),
                repo: repo.clone(),
                raw_url: "https://raw.githubusercontent.com/{owner}/{repo}/{branch}/{path}".into(),
            },
            fetched: Fetched::Scanned {
                branch: "main".into(),
                commit: "0123456789abcdef0123456789abcdef01234567".into(),
                scan: eggcat_catalog::scan(&folder_entries(&corpus.join(repo))),
                history: Box::default(),
            },
        })
        .collect();
    let ctx = BuildContext {
        base_url: BASE.into(),
        build_id: "20260101T000000.000Z".into(),
        started_at_ms: 1_767_225_600_000,
        now_ms: 1_767_225_601_000,
        derivation: "render-test".into(),
        images: Default::default(),
        downloads: Default::default(),
    };
    eggcat_catalog::build(inputs, Previous::default(), &ctx, &Reuse::none()).files
}

/// Where a tag of `html` could run code or reach out: a tag named script (other than the
/// site's own script, `<script src="…assets/eggcat-….js" defer>`), iframe, object, embed, form,
/// input or style, an attribute named `on…` or `style`, or a link or source whose value is a
/// `javascript:`, `vbscript:` or `data:` URL (but `data:,`, the empty icon every page names so
/// that the browser asks for no `/favicon.ico`).
fn active_markup(html: &str) -> Vec<String> {
    let own_script = |tag: &str| {
        tag.strip_prefix("script src=\"")
            .and_then(|t| t.split_once('"'))
            .is_some_and(|(src, rest)| {
                let file = src.trim_start_matches("../").trim_start_matches("./");
                file.starts_with("assets/eggcat-")
                    && file.ends_with(".js")
                    && matches!(rest.trim(), "" | "defer")
            })
    };
    // The egg page's own choice of the panel's database (egg_page_parts.rs): radio buttons
    // that name nothing but a database.
    let own_input = |tag: &str| {
        ["sqlite", "mariadb", "postgresql"].iter().any(|db| {
            let start = format!("input type=\"radio\" name=\"db\" id=\"db-{db}\" value=\"{db}\"");
            tag.strip_prefix(&start)
                .is_some_and(|rest| matches!(rest.trim(), "" | "checked"))
        })
    };
    let mut found = Vec::new();
    for tag in tags(html) {
        let name = tag.split([' ', '/', '\n']).next().unwrap_or("");
        let name = name.to_ascii_lowercase();
        if [
            "script", "iframe", "object", "embed", "form", "input", "style",
        ]
        .contains(&name.as_str())
            && !own_script(tag)
            && !own_input(tag)
        {
            found.push(format!("<{tag}>"));
            continue;
        }
        // Attribute names are the words before a `=` outside quoted values.
        let mut rest = &tag[name.len()..];
        while let Some(eq) = rest.find('=') {
            let attr = rest[..eq].rsplit([' ', '\n']).next().unwrap_or("");
            let attr = attr.to_ascii_lowercase();
            let value_start = &rest[eq + 1..];
            let (value, after) = match value_start.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let inner = &value_start[1..];
                    let end = inner.find(q).unwrap_or(inner.len());
                    (&inner[..end], &inner[(end + 1).min(inner.len())..])
                }
                _ => {
                    let end = value_start.find(' ').unwrap_or(value_start.len());
                    (&value_start[..end], &value_start[end..])
                }
            };
            let url = value.trim().to_ascii_lowercase();
            if url == "data:," {
                rest = after;
                continue;
            }
            if attr.starts_with("on")
                || attr == "style"
                || (["href", "src", "action", "formaction"].contains(&attr.as_str())
                    && ["javascript:", "vbscript:", "data:"]
                        .iter()
                        .any(|s| url.starts_with(s)))
            {
                found.push(format!("<{tag}>"));
                break;
            }
            rest = after;
        }
    }
    found
}

#[test]
fn active_markup_finds_what_it_looks_for() {
    let page = r#"<a href="https://x/platform">form</a><p title="a=b">x</p><script src="../../assets/eggcat-1.js"></script>"#;
    assert_eq!(active_markup(page), Vec::<String>::new());
    for bad in [
        "<script>x</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\" JavaScript:alert(1)\">",
        "<div style=\"color:red\">",
        "<IFRAME src=//x>",
        "<img title=\"x\" src='data:image/svg+xml,x'>",
        "<input type=\"radio\" name=\"db\" id=\"db-sqlite\" value=\"sqlite\" onclick=\"x\">",
        "<input type=\"text\">",
    ] {
        assert_eq!(active_markup(bad).len(), 1, "{bad}");
    }
}

/// The `<section id="{id}">` of an egg page, or "" when the page has none.
fn section_of<'a>(html: &'a str, id: &str) -> &'a str {
    let open = format!("<section id=\"{id}\"");
    let Some(start) = html.find(&open) else {
        return "";
    };
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

/// The real corpus rendered whole: every indexed egg has its page, no page holds markup that
/// could run code (the READMEs are upstream's HTML and Markdown), no page shows a literal
/// backtick in eggcat's own words, and rendering twice gives the same bytes.
#[test]
fn the_real_corpus_renders_every_egg_inert_and_stable() {
    let Some(corpus) = eggcat_testkit::pelican_eggs() else {
        return;
    };
    let api = corpus_api(&corpus);
    let index: Vec<serde_json::Value> =
        serde_json::from_slice(&api[eggcat_wire::paths::INDEX]).unwrap();
    assert!(
        index.len() > 500,
        "the ten repositories give their eggs: {}",
        index.len()
    );
    let options = SiteOptions { base_url: BASE };
    let out = render(&api, &options, &Reuse::none());
    let (mut readmes, mut problems) = (0, 0);
    for item in &index {
        let slug = item["slug"].as_str().unwrap();
        let path = format!("eggs/{slug}/index.html");
        assert!(out.contains_key(&path), "no page for the egg {slug}");
        let html = page(&out, &path);
        readmes += usize::from(html.contains("id=\"readme\""));
        let active = active_markup(&html);
        assert!(active.is_empty(), "{path}: {active:?}");
        // eggcat's own words (the import notes, the checks' messages and help) mark code with
        // backticks, which must become code; upstream's texts (a variable's description) keep
        // theirs as written.
        assert!(
            !section_of(&html, "import").is_empty(),
            "{path} has no #import"
        );
        problems += usize::from(!section_of(&html, "problems").is_empty());
        for id in ["import", "problems"] {
            let text = prose(section_of(&html, id));
            if let Some(at) = text.find('`') {
                let before = text[..at].chars().rev().take(60).collect::<Vec<_>>();
                let before: String = before.into_iter().rev().collect();
                let after: String = text[at..].chars().take(60).collect();
                panic!("a literal backtick in #{id} of {path}: …{before}{after}…");
            }
        }
    }
    assert!(readmes > 100, "the READMEs reach the pages: {readmes}");
    assert!(
        problems > 100,
        "the checks' findings reach the pages: {problems}"
    );
    // The pages that list every egg, and the report with upstream's warnings.
    for p in ["eggs/index.html", "status/index.html"] {
        let active = active_markup(&page(&out, p));
        assert!(active.is_empty(), "{p}: {active:?}");
    }
    assert_eq!(
        out,
        render(&api, &options, &Reuse::none()),
        "rendering is stable"
    );
}
