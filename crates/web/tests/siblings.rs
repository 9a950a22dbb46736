//! Eggs for the same game through `render`: the egg page's "Other eggs for this game" (the
//! other eggs of its version named, each other version compared with it), its bounds, the
//! summary's `game` fields and the catalog card's count; and which pages a rebuild may take
//! from the previous snapshot now that a page shows its siblings.

mod support;

use std::collections::BTreeMap;

use eggcat_web::{Reuse, SiteOptions, render};
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

/// The section of the page `eggs/{slug}/`, from its heading to its end.
fn others(out: &BTreeMap<String, Vec<u8>>, slug: &str) -> String {
    let page = text(out, &format!("eggs/{slug}/index.html"));
    let Some(start) = page.find("<section id=\"others\"") else {
        return String::new();
    };
    let end = start + page[start..].find("</section>").unwrap();
    page[start..end].to_owned()
}

#[test]
fn siblings_are_listed_compared_and_counted() {
    let out = render(
        &tree(&catalog()),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );

    let section = others(&out, "a-7dtd");
    assert!(section.contains("<h2 id=\"h-others\">Other eggs for this game</h2>"));
    assert!(section.contains(
        "3 eggs serve this game in the catalog. Each line says what would change from this egg to the other."
    ));
    for (other, name) in [
        ("a-pterodactyl-7dtd", "7 Days To Die (Pterodactyl)"),
        ("b-7dtd", "Seven Days &lt;Server&gt;"),
    ] {
        assert!(
            section.contains(&format!("<h3><a href=\"../{other}/\">{name}</a></h3>")),
            "{other}"
        );
    }
    assert!(section.contains("<p>2 changes: another uuid, 1 variable added.</p>"));
    assert!(
        section.contains(
            "<p>2 changes (1 can break servers): another name, another docker image.</p>"
        )
    );
    assert!(!text(&out, "eggs/b-minecraft/index.html").contains("h-others"));
    // No page of its own: the comparisons are the egg pages' (one file per egg in all).
    assert!(!out.keys().any(|k| k.contains("/compare/")));
    assert_eq!(
        out.keys()
            .filter(|k| k.starts_with("eggs/") && k.ends_with(".html"))
            .count(),
        5,
        "4 egg pages and the list of every egg"
    );

    // Each other egg, collapsed: side by side, then every change from this egg to it.
    assert_eq!(section.matches("<details><summary>Side by side, and every change<span class=\"vh\"> from this egg to ").count(), 2);
    assert!(section.contains("<h4>From this egg to Seven Days &lt;Server&gt;</h4>"));
    // The change list, the breaking change marked, with why.
    assert!(section.contains("<li class=\"breaking\"><span class=\"sev error\">can break servers</span> docker image <code>Debian</code> changed"));
    assert!(section.contains("name changed from"));
    // Side by side: each cell names its egg, the rows that differ say so; the defaults are
    // escaped; import per panel.
    assert!(section.contains("<span class=\"who\">Seven Days &lt;Server&gt;:</span>"));
    assert!(
        section
            .contains("<strong>Docker images <span class=\"sev warning\">differs</span></strong>")
    );
    assert!(section.contains("<strong>Stop command</strong>"));
    assert!(section.contains("<code><span class=\"nw\">&lt;x&gt;</span></code>"));
    assert!(section.contains("<span class=\"bad\">refused</span>: bad <code>thing</code>"));
    assert!(!section.contains("<x>") && !section.contains("<Server>"));
    // The other direction is the other egg's page.
    assert!(
        others(&out, "b-7dtd").contains(
            "<p>2 changes (1 can break servers): another name, another docker image.</p>"
        )
    );

    let summary: Vec<Value> = serde_json::from_slice(&out[eggcat_wire::paths::SUMMARY]).unwrap();
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

/// `n` copies of one egg (byte for byte, from repositories `c00`, `c01`, ...), one more with
/// its keys in another order (the same egg to a panel), and one egg that differs.
fn copies(n: usize) -> Vec<(String, Value)> {
    let mut docs: Vec<(String, Value)> = (0..n)
        .map(|i| {
            let slug = format!("c{i:02}-game");
            let d = doc(&slug, "Game", egg("Game", "img:1", &["PORT"]));
            (slug, d)
        })
        .collect();
    let mut reordered = serde_json::Map::new();
    let same = egg("Game", "img:1", &["PORT"]);
    for (k, v) in same.as_object().unwrap().iter().rev() {
        reordered.insert(k.clone(), v.clone());
    }
    docs.push((
        "r-game".to_owned(),
        doc("r-game", "Game", Value::Object(reordered)),
    ));
    docs.push((
        "z-game".to_owned(),
        doc("z-game", "Game", egg("Game", "img:2", &["PORT"])),
    ));
    docs
}

fn render_copies(n: usize) -> BTreeMap<String, Vec<u8>> {
    let docs = copies(n);
    let docs: Vec<(&str, Value)> = docs.iter().map(|(s, d)| (s.as_str(), d.clone())).collect();
    render(
        &tree(&docs),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    )
}

/// Eggs that run servers the same way are one version: an egg page lists the other eggs of its
/// version with their one-line difference and compares the egg in full with each other
/// version only, through that version's first egg.
#[test]
fn copies_of_an_egg_are_one_version_compared_once() {
    let mut docs = copies(3);
    // Another uuid and tags: the same version, and the line says what differs.
    docs[1].1["egg"]["uuid"] = json!("another");
    docs[1].1["egg"]["tags"] = json!(["tag"]);
    let docs: Vec<(&str, Value)> = docs.iter().map(|(s, d)| (s.as_str(), d.clone())).collect();
    let out = render(
        &tree(&docs),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let section = others(&out, "c00-game");
    assert!(
        section.contains("5 eggs serve this game in the catalog, in 2 versions (eggs that run servers the same way are one version: they differ at most in format, repository or identity, such as name, uuid or tags)."),
        "{section}"
    );
    let same = "<p>The same egg: they differ only in format or where they are published.</p>";
    for other in ["c02-game", "r-game"] {
        assert!(
            section.contains(&format!("<a href=\"../{other}/\">Game</a></h3><p class=\"muted\">pelican · <code>o/<wbr>{}</code> · PTDL_v2</p>{same}", &other[..other.find('-').unwrap()])),
            "{other}: {section}"
        );
    }
    assert!(section.contains("<p>2 changes: another uuid, other tags. It runs servers the same way as this egg.</p><details><summary>Every change<span class=\"vh\"> from this egg to Game (o/c01)</span></summary>"));
    assert_eq!(section.matches("<details><summary>Side by side").count(), 1);
    assert!(section.contains("<h3><a href=\"../z-game/\">Game</a></h3>"));
    assert!(section.contains("<p>1 change (1 can break servers): another docker image.</p>"));

    // From the other version: one comparison, with the first egg of the copies, which names the
    // others.
    let section = others(&out, "z-game");
    assert!(section.contains("<h3><a href=\"../c00-game/\">Game</a></h3>"));
    assert!(section.contains("<p class=\"muted\">The same version: <a href=\"../c01-game/\">Game</a> (<code>o/<wbr>c01</code>), <a href=\"../c02-game/\">Game</a>"));
    assert_eq!(section.matches("<h3>").count(), 1, "{section}");
    assert!(section.contains("<h4>From this egg to Game (o/c00)</h4>"));
    // From the copy with another uuid, the comparison with the other version says so too.
    assert!(others(&out, "c01-game").contains(
        "<p>3 changes (1 can break servers): another uuid, other tags, another docker image.</p>"
    ));

    // A game whose eggs are all one egg: no comparison at all.
    let docs = copies(2);
    let docs: Vec<(&str, Value)> = docs[..2]
        .iter()
        .map(|(s, d)| (s.as_str(), d.clone()))
        .collect();
    let out = render(
        &tree(&docs),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let section = others(&out, "c00-game");
    assert!(section.contains("2 eggs serve this game in the catalog, in 1 version"));
    assert!(!section.contains("<details>"));
}

/// The egg pages of a game weigh O(eggs): a page names at most 3 eggs of a version and counts
/// the others, so ten times the copies leave each page's size the same but for its numbers.
#[test]
fn an_egg_page_does_not_grow_with_the_copies_of_its_game() {
    let (small, large) = (render_copies(10), render_copies(100));
    for slug in ["c00-game", "z-game"] {
        let (a, b) = (others(&small, slug), others(&large, slug));
        assert!(
            b.len() <= a.len() + 2,
            "{slug}: {} then {} bytes",
            a.len(),
            b.len()
        );
        assert!(
            b.contains("And 97 other eggs") || b.contains(" and 97 more"),
            "{b}"
        );
        assert_eq!(b.matches("<a href=").count(), a.matches("<a href=").count());
    }
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
    let none = Reuse::none();
    let first = render(&first_files, &options, &none);
    let previous = previous_of(&first_files, &first);
    let reuse = Reuse::new(none.made(), move |p: &str| previous.get(p).cloned());
    render(&tree(after), &options, &reuse)
}

fn kept(out: &BTreeMap<String, Vec<u8>>, path: &str) -> bool {
    text(out, path).starts_with("kept ")
}

#[test]
fn an_unchanged_rebuild_reuses_every_egg_page() {
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
    assert!(others(&out, "a-7dtd").contains("img:3"));
    // The egg of another game is reused.
    assert!(kept(&out, "eggs/b-minecraft/index.html"));
}

/// A new upstream commit changes `meta.commit` in every egg document of its source: each egg
/// page (it links the file at that commit) is made anew.
#[test]
fn a_new_commit_alone_renders_egg_pages_again() {
    let before = catalog();
    let mut after = catalog();
    for (_, d) in &mut after {
        d["meta"]["commit"] = json!("beefcafe");
    }
    let out = rebuild(&before, &after);
    assert!(!kept(&out, "eggs/a-7dtd/index.html"));
    assert!(text(&out, "eggs/a-7dtd/index.html").contains("beefcafe"));
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
    assert!(others(&out, "b-minecraft").contains("<a href=\"../c-minecraft/\">MINECRAFT</a>"));
    assert!(kept(&out, "eggs/a-7dtd/index.html"), "another game: reused");

    // And back: the sibling gone, the page loses its section.
    let out = rebuild(&after, &before);
    let page = text(&out, "eggs/b-minecraft/index.html");
    assert!(!page.starts_with("kept ") && !page.contains("h-others"));
}

#[test]
fn a_game_with_too_many_versions_is_not_compared() {
    // Thirteen different eggs named alike (an upstream could name a thousand so): no
    // comparison, and each page says how many eggs the game has instead of listing them.
    let slugs: Vec<String> = (0..13).map(|i| format!("x-clone-{i:02}")).collect();
    let docs: Vec<(&str, Value)> = slugs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let egg = egg("Clone", &format!("img:{i}"), &[]);
            (s.as_str(), doc(s, "Clone", egg))
        })
        .collect();
    let out = render(
        &tree(&docs),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let section = others(&out, "x-clone-00");
    assert!(section.contains(
        "13 eggs serve this game in the catalog, in too many versions to compare each with every other."
    ));
    assert!(!section.contains("<a "));
    let summary: Vec<Value> = serde_json::from_slice(&out[eggcat_wire::paths::SUMMARY]).unwrap();
    assert!(
        summary
            .iter()
            .all(|i| i["gameEggs"] == 13 && i["game"] == "x-clone-00")
    );

    // Twelve are compared: each page with the eleven others.
    let out = render(
        &tree(&docs[..12]),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    for slug in &slugs[..12] {
        let section = others(&out, slug);
        assert_eq!(
            section.matches("<details><summary>Side by side").count(),
            11,
            "{slug}"
        );
    }

    // Thirteen copies of one egg are one version: compared with nothing, named.
    let same: Vec<(&str, Value)> = slugs
        .iter()
        .map(|s| (s.as_str(), doc(s, "Clone", egg("Clone", "img", &[]))))
        .collect();
    let out = render(
        &tree(&same),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
    let section = others(&out, "x-clone-00");
    assert!(section.contains("13 eggs serve this game in the catalog, in 1 version"));
    assert_eq!(section.matches("<h3>").count(), 3, "{section}");
    assert!(section.contains("And 9 other eggs of this egg&#39;s version"));
}

/// Two eggs of one game from two repositories, with the same name, description and facts: the
/// catalog cards name their repositories (in the HTML and in `lookalike` of the summary, for
/// the cards the script makes), and the egg page's comparison tells them apart by repository,
/// not "5e Tools" twice; each card of the game also dates its last upstream change. An egg
/// whose card is its own names no repository and no date.
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
    let out = render(
        &tree(&docs),
        &SiteOptions { base_url: BASE },
        &Reuse::none(),
    );
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
    // Every card of a game of several eggs dates its last upstream change too (issue 40).
    for slug in ["a-5e", "b-5e"] {
        assert!(
            card(slug).contains("<time class=\"updated\" datetime=\""),
            "{}",
            card(slug)
        );
    }
    assert!(!card("c-ark").contains("class=\"updated\""));
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
    let section = others(&out, "a-5e");
    assert!(
        section.contains("<span class=\"vh\"> from this egg to 5e Tools (o/b)</span>"),
        "{section}"
    );
    assert!(section.contains("<h4>From this egg to 5e Tools (o/b)</h4>"));
    assert!(section.contains("<span class=\"who\">5e Tools (o/a):</span>"));
}

/// The build report's warnings about an egg's file are an input of its page: a rebuild whose
/// only change is a new warning about one file makes that egg's page anew (it shows the
/// warning), and takes every other page from the previous snapshot.
#[test]
fn a_new_warning_about_a_file_renders_its_page_again() {
    let options = SiteOptions { base_url: BASE };
    let first_files = tree(&catalog());
    let none = Reuse::none();
    let first = render(&first_files, &options, &none);
    let previous = previous_of(&first_files, &first);
    let reuse = Reuse::new(none.made(), move |p: &str| previous.get(p).cloned());
    let mut after = tree(&catalog());
    // A report as the build writes it (the trees' own `_status.json` is not a whole report,
    // and reads as an empty one).
    let mut status = eggcat_wire::Report::default();
    status.warnings.push(eggcat_wire::SourceProblem {
        source: "o/b".to_owned(),
        path: "b-minecraft/egg-b-minecraft.json".to_owned(),
        message: "a warning <about> this file".to_owned(),
    });
    after.insert(
        "api/v1/_status.json".to_owned(),
        serde_json::to_vec(&status).unwrap(),
    );
    let out = render(&after, &options, &reuse);
    assert!(!kept(&out, "eggs/b-minecraft/index.html"));
    assert!(
        text(&out, "eggs/b-minecraft/index.html").contains("a warning &lt;about&gt; this file")
    );
    for slug in ["a-7dtd", "a-pterodactyl-7dtd", "b-7dtd"] {
        assert!(kept(&out, &format!("eggs/{slug}/index.html")), "{slug}");
    }
}
