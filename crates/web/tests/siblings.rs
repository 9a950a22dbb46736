//! Eggs for the same game through `render`: the egg page's "Other eggs for this game", the
//! comparison pages of every ordered pair, the summary's `game` fields and the catalog card's
//! count; and which pages a rebuild may take from the previous snapshot now that a page shows
//! its siblings.

mod support;

use std::collections::BTreeMap;

use eggcat_web::{SiteOptions, render};
use serde_json::{Value, json};

const BASE: &str = "https://eggs.example";

/// An egg document: `name` as upstream writes it, the display name as the catalog makes it.
fn doc(slug: &str, display: &str, egg: Value) -> Value {
    json!({
        "egg": egg,
        "meta": {
            "slug": slug, "name": display, "category": "games", "source": "pelican",
            "owner": "o", "repo": slug.split('-').next().unwrap(), "branch": "main",
            "path": format!("{slug}/egg-{slug}.json"), "rawUrl": "", "indexedAt": 1u64,
            "format": "PTDL_v2", "sha256": "00", "commit": "c0ffee", "uuid": "u",
            "import": {"pelican": {"json": "https://eggs.example/p.json", "importable": true},
                       "pterodactyl": {"json": "https://eggs.example/t.json", "importable": false,
                                       "problems": ["bad `thing`"]}}
        },
        "readme": null
    })
}

fn egg(name: &str, image: &str, vars: &[&str]) -> Value {
    json!({
        "meta": {"version": "PTDL_v2"}, "name": name, "description": "d",
        "docker_images": {"Debian": image}, "startup": "./run {{PORT}}",
        "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "stop": "stop"},
        "scripts": {"installation": {"container": "debian", "entrypoint": "bash", "script": "echo 1\n"}},
        "variables": vars.iter().map(|e| json!({
            "name": format!("The {e}"), "env_variable": e, "default_value": "<x>",
            "user_viewable": true, "user_editable": true, "rules": "required|string"
        })).collect::<Vec<_>>()
    })
}

/// A published tree of egg documents (slug -> document).
fn tree(docs: &[(&str, Value)]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let index: Vec<Value> = docs.iter().map(|(s, _)| json!({"slug": s})).collect();
    files.insert(
        "api/v1/eggs/_index.json".to_owned(),
        serde_json::to_vec(&index).unwrap(),
    );
    files.insert(
        "api/v1/_status.json".to_owned(),
        br#"{"buildId":"b","eggs":3,"sources":[],"skipped":[],"warnings":[]}"#.to_vec(),
    );
    for (slug, d) in docs {
        files.insert(
            format!("api/v1/eggs/{slug}.json"),
            serde_json::to_vec(d).unwrap(),
        );
    }
    support::published(&mut files);
    files
}

/// Three eggs for one game (two by name, one by the first one's upstream uuid) and one alone.
fn catalog() -> Vec<(&'static str, Value)> {
    let mut a = egg("7 Days To Die", "img:1", &["PORT"]);
    a["uuid"] = json!("shared-uuid");
    let b = egg("7 Days To Die", "img:1", &["PORT", "EXTRA"]);
    let mut c = egg("Seven Days <Server>", "img:2", &["PORT"]);
    c["uuid"] = json!("shared-uuid");
    vec![
        ("a-7dtd", doc("a-7dtd", "7 Days To Die", a)),
        (
            "a-pterodactyl-7dtd",
            doc("a-pterodactyl-7dtd", "7 Days To Die (Pterodactyl)", b),
        ),
        ("b-7dtd", doc("b-7dtd", "Seven Days <Server>", c)),
        (
            "b-minecraft",
            doc("b-minecraft", "Minecraft", egg("Minecraft", "java", &[])),
        ),
    ]
}

fn text(out: &BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(
        out.get(path)
            .unwrap_or_else(|| panic!("{path} missing"))
            .clone(),
    )
    .unwrap()
}

#[test]
fn siblings_are_listed_compared_and_counted() {
    let out = render(&tree(&catalog()), &SiteOptions { base_url: BASE }, &|_| {
        None
    });

    let page = text(&out, "eggs/a-7dtd/index.html");
    assert!(page.contains("<h2 id=\"h-others\">Other eggs for this game</h2>"));
    assert!(page.contains("3 eggs serve this game"));
    for (other, name) in [
        ("a-pterodactyl-7dtd", "7 Days To Die (Pterodactyl)"),
        ("b-7dtd", "Seven Days &lt;Server&gt;"),
    ] {
        assert!(
            page.contains(&format!("<a href=\"../{other}/\">{name}</a>")),
            "{other}"
        );
        assert!(
            page.contains(&format!("<a href=\"compare/{other}/\">")),
            "{other}"
        );
    }
    assert!(page.contains("<p>2 changes: another uuid, 1 variable added.</p>"));
    assert!(
        page.contains(
            "<p>2 changes (1 can break servers): another name, another docker image.</p>"
        )
    );
    assert!(!text(&out, "eggs/b-minecraft/index.html").contains("h-others"));

    // One page per ordered pair, none for the egg alone.
    let compares: Vec<&String> = out.keys().filter(|k| k.contains("/compare/")).collect();
    assert_eq!(compares.len(), 6, "{compares:?}");
    let cmp = text(&out, "eggs/a-7dtd/compare/b-7dtd/index.html");
    assert!(
        cmp.contains(
            "<title>7 Days To Die compared with Seven Days &lt;Server&gt; – eggcat</title>"
        )
    );
    assert!(
        cmp.contains("href=\"../../../../assets/eggcat-"),
        "the shared assets"
    );
    assert!(
        cmp.contains("<a href=\"../../../b-7dtd/compare/a-7dtd/\">"),
        "the other direction"
    );
    // The change list, the breaking change marked, with why.
    assert!(cmp.contains("<li class=\"breaking\"><span class=\"sev error\">can break servers</span> docker image <code>Debian</code> changed"));
    assert!(cmp.contains("name changed from"));
    // Side by side: each cell names its egg; the defaults are escaped; import per panel.
    assert!(cmp.contains("<span class=\"who\">Seven Days &lt;Server&gt;:</span>"));
    assert!(cmp.contains("<code><span class=\"nw\">&lt;x&gt;</span></code>"));
    assert!(cmp.contains("<span class=\"bad\">refused</span>: bad <code>thing</code>"));
    assert!(!cmp.contains("<x>") && !cmp.contains("<Server>"));

    let summary: Vec<Value> = serde_json::from_slice(&out[eggcat_web::SUMMARY]).unwrap();
    let game = |slug: &str| {
        let i = summary.iter().find(|i| i["slug"] == slug).unwrap();
        (
            i["game"].as_str().unwrap().to_owned(),
            i["gameEggs"].as_u64().unwrap(),
        )
    };
    assert_eq!(game("b-7dtd"), ("a-7dtd".to_owned(), 3));
    assert_eq!(game("a-pterodactyl-7dtd"), ("a-7dtd".to_owned(), 3));
    assert_eq!(game("b-minecraft"), ("b-minecraft".to_owned(), 1));
    let catalog_page = text(&out, "index.html");
    assert_eq!(catalog_page.matches("3 eggs for this game").count(), 3);
    assert!(catalog_page.contains("id=\"per-game\""));
}

/// The previous snapshot as `render` reads it: its published files and pages, each page
/// replaced by a marker so that a reused page is told from a fresh one.
fn previous_of(
    files: &BTreeMap<String, Vec<u8>>,
    out: &BTreeMap<String, Vec<u8>>,
) -> BTreeMap<String, Vec<u8>> {
    let mut all = files.clone();
    for (path, bytes) in out {
        let marked = if path.starts_with("eggs/") && path.ends_with("/index.html") {
            format!("kept {path}").into_bytes()
        } else {
            bytes.clone()
        };
        all.insert(path.clone(), marked);
    }
    all
}

fn rebuild(before: &[(&str, Value)], after: &[(&str, Value)]) -> BTreeMap<String, Vec<u8>> {
    let options = SiteOptions { base_url: BASE };
    let first_files = tree(before);
    let first = render(&first_files, &options, &|_| None);
    let previous = previous_of(&first_files, &first);
    let read = move |p: &str| previous.get(p).cloned();
    render(&tree(after), &options, &read)
}

fn kept(out: &BTreeMap<String, Vec<u8>>, path: &str) -> bool {
    text(out, path).starts_with("kept ")
}

#[test]
fn an_unchanged_rebuild_reuses_every_egg_and_comparison_page() {
    let out = rebuild(&catalog(), &catalog());
    for path in out
        .keys()
        .filter(|k| k.starts_with("eggs/") && k.ends_with("/index.html"))
    {
        if path != "eggs/index.html" {
            assert!(kept(&out, path), "{path} rendered again");
        }
    }
}

#[test]
fn a_changed_sibling_renders_its_siblings_pages_again() {
    let before = catalog();
    let mut after = catalog();
    after[2].1["egg"]["docker_images"]["Debian"] = json!("img:3");
    let out = rebuild(&before, &after);
    // The page of the changed egg's siblings shows a new difference: made anew.
    assert!(!kept(&out, "eggs/a-7dtd/index.html"));
    assert!(!kept(&out, "eggs/a-pterodactyl-7dtd/index.html"));
    assert!(!kept(&out, "eggs/b-7dtd/index.html"));
    assert!(text(&out, "eggs/a-7dtd/compare/b-7dtd/index.html").contains("img:3"));
    // A comparison of two unchanged eggs, and the egg of another game, are reused.
    assert!(kept(
        &out,
        "eggs/a-7dtd/compare/a-pterodactyl-7dtd/index.html"
    ));
    assert!(kept(&out, "eggs/b-minecraft/index.html"));
}

/// A new upstream commit changes `meta.commit` in every egg document of its source: each egg
/// page (it links the file at that commit) is made anew, each comparison page (it does not
/// show the commit) is reused.
#[test]
fn a_new_commit_alone_renders_egg_pages_again_and_reuses_comparison_pages() {
    let before = catalog();
    let mut after = catalog();
    for (_, d) in &mut after {
        d["meta"]["commit"] = json!("beefcafe");
    }
    let out = rebuild(&before, &after);
    assert!(!kept(&out, "eggs/a-7dtd/index.html"));
    assert!(text(&out, "eggs/a-7dtd/index.html").contains("beefcafe"));
    for path in out.keys().filter(|k| k.contains("/compare/")) {
        assert!(kept(&out, path), "{path} rendered again");
    }
}

#[test]
fn a_sibling_added_or_removed_renders_the_group_again() {
    let before = catalog();
    let mut after = catalog();
    after.push((
        "c-minecraft",
        doc("c-minecraft", "MINECRAFT", egg("MINECRAFT", "java", &[])),
    ));
    let out = rebuild(&before, &after);
    let page = text(&out, "eggs/b-minecraft/index.html");
    assert!(
        !page.starts_with("kept "),
        "a new sibling: the page is made anew"
    );
    assert!(page.contains("compare/c-minecraft/"));
    assert!(kept(&out, "eggs/a-7dtd/index.html"), "another game: reused");

    // And back: the sibling gone, the page loses its section.
    let out = rebuild(&after, &before);
    let page = text(&out, "eggs/b-minecraft/index.html");
    assert!(!page.starts_with("kept ") && !page.contains("h-others"));
    assert!(!out.keys().any(|k| k.contains("compare/c-minecraft")));
}

#[test]
fn a_game_with_too_many_eggs_is_not_compared() {
    // Thirteen eggs named alike (an upstream could name a thousand so): no comparison pages,
    // and each page says how many eggs the game has instead of listing them.
    let slugs: Vec<String> = (0..13).map(|i| format!("x-clone-{i:02}")).collect();
    let docs: Vec<(&str, Value)> = slugs
        .iter()
        .map(|s| (s.as_str(), doc(s, "Clone", egg("Clone", "img", &[]))))
        .collect();
    let out = render(&tree(&docs), &SiteOptions { base_url: BASE }, &|_| None);
    assert!(!out.keys().any(|k| k.contains("/compare/")));
    let page = text(&out, "eggs/x-clone-00/index.html");
    assert!(page.contains("13 eggs serve this game in the catalog: too many to compare"));
    assert!(!page.contains("compare/"));
    let summary: Vec<Value> = serde_json::from_slice(&out[eggcat_web::SUMMARY]).unwrap();
    assert!(
        summary
            .iter()
            .all(|i| i["gameEggs"] == 13 && i["game"] == "x-clone-00")
    );

    // Twelve are compared: 132 pages.
    let out = render(&tree(&docs[..12]), &SiteOptions { base_url: BASE }, &|_| {
        None
    });
    assert_eq!(
        out.keys().filter(|k| k.contains("/compare/")).count(),
        12 * 11
    );
}

/// Two eggs of one game from two repositories, with the same name, description and facts: the
/// catalog cards name their repositories (in the HTML and in `lookalike` of the summary, for
/// the cards the script makes), and the comparison page tells them apart by repository, not
/// "5e Tools compared with 5e Tools". An egg whose card is its own names no repository.
#[test]
fn eggs_of_one_game_that_look_alike_are_told_apart_by_repository() {
    let docs = vec![
        (
            "a-5e",
            doc("a-5e", "5e Tools", egg("5e Tools", "img:1", &["PORT"])),
        ),
        (
            "b-5e",
            doc("b-5e", "5e Tools", egg("5e Tools", "img:2", &["PORT"])),
        ),
        ("c-ark", doc("c-ark", "Ark", egg("Ark", "img:3", &["PORT"]))),
    ];
    let out = render(&tree(&docs), &SiteOptions { base_url: BASE }, &|_| None);
    let catalog = text(&out, "index.html");
    let card = |slug: &str| {
        let start = catalog.find(&format!("<li id=\"e-{slug}\"")).unwrap();
        catalog[start..start + catalog[start..].find("</li>").unwrap()].to_owned()
    };
    assert!(
        card("a-5e").contains("<span class=\"repo\">o/a</span>"),
        "{}",
        card("a-5e")
    );
    assert!(card("b-5e").contains("<span class=\"repo\">o/b</span>"));
    assert!(!card("c-ark").contains("class=\"repo\""));
    let summary: Vec<Value> = serde_json::from_slice(&out["api/v1/eggs/_summary.json"]).unwrap();
    let lookalike: Vec<(&str, bool)> = summary
        .iter()
        .map(|i| {
            (
                i["slug"].as_str().unwrap(),
                i["lookalike"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lookalike,
        [("a-5e", true), ("b-5e", true), ("c-ark", false)]
    );
    let compare = text(&out, "eggs/a-5e/compare/b-5e/index.html");
    assert!(
        compare.contains("<title>5e Tools (o/a) compared with 5e Tools (o/b) – eggcat</title>"),
        "{compare}"
    );
    assert!(compare.contains("<h2 id=\"h-changes\">From 5e Tools (o/a) to 5e Tools (o/b)</h2>"));
}
