//! Every link of the project's Markdown resolves: README.md, CONTRIBUTING.md, ARCHITECTURE.md,
//! every page under docs/ and bench/README.md. A relative link must name a file or folder of the
//! checkout; a `#fragment` must be an anchor of the page it points into, made from its headings
//! by GitHub's rules (lowercase; every character but letters, digits, `-`, `_` and spaces
//! dropped; spaces to `-`; a repeated heading gets `-1`, `-2`, ...) or an `<a id>`/`<a name>` of
//! its HTML. Links to other sites are not fetched: tests never touch the internet.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// GitHub's Markdown: tables, strikethrough, task lists, footnotes.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The pages whose links are checked, relative to `root`.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "ARCHITECTURE.md",
        "bench/README.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    pages.sort();
    pages
}

/// The link targets of a Markdown text: links and images, and the `href`/`src` of its HTML
/// (`<img src=...>`, `<a href=...>`); code spans and blocks hold none.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => out.push(dest_url.to_string()),
            Event::Html(html) | Event::InlineHtml(html) => {
                out.extend(attributes(&html, &["href", "src"]))
            }
            _ => {}
        }
    }
    out
}

/// The values of the named attributes in a piece of HTML (double-quoted values only, as the
/// pages write them).
fn attributes(html: &str, names: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for name in names {
        let needle = format!(" {name}=\"");
        let mut rest = html;
        while let Some(at) = rest.find(&needle) {
            rest = &rest[at + needle.len()..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page: its headings' (repeats numbered) and its HTML's ids and names.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap());
                let n = seen.entry(base.clone()).or_insert(0);
                out.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                out.extend(attributes(&html, &["id", "name"]))
            }
            _ => {}
        }
    }
    out
}

/// `path` with `.` and `..` resolved, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every broken link of the pages under `root`, as `page: link: why`.
pub(crate) fn broken_links(root: &Path, pages: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(root.join(page))
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", page.display()));
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else if let Some(from_root) = file.strip_prefix('/') {
                normalize(Path::new(from_root))
            } else {
                normalize(&page.parent().unwrap().join(file))
            };
            let at = root.join(&target);
            if !at.exists() {
                problems.push(format!(
                    "{}: {link}: no file {}",
                    page.display(),
                    target.display()
                ));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            if at.extension().is_none_or(|e| e != "md") {
                problems.push(format!(
                    "{}: {link}: an anchor into a file that is not Markdown",
                    page.display()
                ));
                continue;
            }
            let targets = anchors(&std::fs::read_to_string(&at).unwrap());
            if !targets.contains(fragment) {
                problems.push(format!(
                    "{}: {link}: {} has no anchor `{fragment}`",
                    page.display(),
                    target.display()
                ));
            }
        }
    }
    problems
}

#[test]
fn every_link_of_the_docs_resolves_with_its_anchor() {
    let root = repo_root();
    let pages = pages(&root);
    assert!(
        pages.iter().any(|p| p.starts_with("docs/guides")),
        "{pages:?}"
    );
    let problems = broken_links(&root, &pages);
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

/// The check finds a missing file, a missing anchor, and a link from a code span never; it takes
/// GitHub's anchors, repeats and `<a id>` included.
#[test]
fn the_link_check_finds_missing_files_and_anchors() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("docs")).unwrap();
    std::fs::write(
        tmp.path().join("docs/a.md"),
        "# A page\n\n## `eggcat serve` with systemd, or a container!\n\n## Notes\n\n## Notes\n\n<a id=\"kept\"></a>\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("README.md"),
        "[ok](docs/a.md#eggcat-serve-with-systemd-or-a-container) [ok](docs/a.md#notes-1) \
         [ok](docs/a.md#kept) [ok](#top) [ok](/docs/a.md) [web](https://example.org/x#y) `[code](gone.md)`\n\n\
         # Top\n\n[gone](docs/b.md) [no anchor](docs/a.md#notes-2) <img src=\"img/x.png\" alt=\"\">\n",
    )
    .unwrap();
    let problems = broken_links(
        tmp.path(),
        &[PathBuf::from("README.md"), PathBuf::from("docs/a.md")],
    );
    assert_eq!(
        problems,
        [
            "README.md: docs/b.md: no file docs/b.md",
            "README.md: docs/a.md#notes-2: docs/a.md has no anchor `notes-2`",
            "README.md: img/x.png: no file img/x.png",
        ],
    );
}
