//! `render` on small catalogs made here (a hostile egg, a README with relative links) and on
//! the real shared corpus when it is present: what reaches the pages, and that it is stable.

use std::collections::BTreeMap;

use eggcat_web::{SiteOptions, render};
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
        &|_| None,
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
        &|_| None,
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

#[test]
fn rendering_is_deterministic_and_the_summary_keeps_document_order() {
    let egg = json!({"name": "Same", "description": "d", "tags": ["b", "a"], "docker_images": ["i"], "variables": []});
    let files = tree(egg, Some("# r"));
    let a = render(&files, &SiteOptions { base_url: BASE }, &|_| None);
    let b = render(&files, &SiteOptions { base_url: BASE }, &|_| None);
    assert_eq!(a, b);
    let summary: serde_json::Value = serde_json::from_slice(&a[eggcat_web::SUMMARY]).unwrap();
    assert_eq!(summary[0]["slug"], "games-evil");
    assert_eq!(summary[0]["tags"], json!(["b", "a"]));
    assert!(
        a.keys()
            .any(|k| k.starts_with("assets/eggcat-") && k.ends_with(".js"))
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
    let out = render(&demo, &SiteOptions { base_url: BASE }, &|_| None);
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
    let luanti = page(&out, "eggs/demo-eggs-luanti/index.html");
    assert!(
        luanti.contains(
            "<td><code>port</code>, <code>server_name</code>, <code>max_users</code></td>"
        )
    );
}
