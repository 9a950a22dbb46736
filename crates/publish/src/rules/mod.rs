//! The rules a static host or CDN needs to answer like `eggcat serve` from a plain copy of the
//! published tree: the aliases (`/api/v1/eggs`, `?fields=name`, `/api/v1/eggs/{slug}`), `410
//! Gone` for removed eggs, the 404/400/405 problem documents, Content-Types and the HTML headers.
//!
//! They are written beside the tree, in `DIR/.eggcat/` (see [`RULES_DIR`]): the nginx and Caddy
//! snippets are the same for every build (they read the per-build parts from files, so a new
//! build needs no reload), and `gone/{slug}.json` holds the 410 body of each removed egg. The
//! generated rules refuse requests under `/.eggcat/`, so nothing of it is served as catalog
//! content. The CloudFront function embeds the removed slugs (CloudFront Functions cannot read
//! files) and is redeployed when they change.

mod caddy;
mod cloudfront;
mod nginx;
mod problems;

use std::collections::BTreeMap;
use std::path::Path;

pub use problems::{gone_problems, not_found_problem};

/// The folder of the rules, under the `--out` folder.
pub const RULES_DIR: &str = ".eggcat";

/// What the rules need to know besides the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesOptions {
    /// The `Cache-Control` of the catalog's files (`cache_control` of the config).
    pub cache_control: String,
}

/// What the rules are made of, of a published tree: the paths of its files and two of its
/// documents. Not the files themselves: `eggcat build --out` writes the tree one file at a time
/// and keeps only this.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// Every published file's path under the tree's root (`api/v1/...`, `eggs/{slug}/index.html`),
    /// sorted, precompressed forms left out.
    pub paths: Vec<String>,
    /// The bytes of [`eggcat_wire::paths::REMOVED`] (the removed eggs, for their `410 Gone`), if the tree
    /// has it.
    pub removed: Option<Vec<u8>>,
    /// The bytes of [`eggcat_wire::paths::NOT_FOUND_PAGE`] (the HTML 404 page the CloudFront function
    /// embeds), if the tree has it.
    pub not_found_page: Option<Vec<u8>>,
}

impl Tree {
    /// The paths and documents the rules need of a tree held in memory, `files` by path.
    pub fn of(files: &BTreeMap<String, Vec<u8>>) -> Tree {
        let mut tree = Tree::default();
        for (path, bytes) in files {
            tree.see(path, bytes);
        }
        tree
    }

    /// Takes note of the published file at `path` (each once, in path order), keeping its bytes
    /// only when it is one of the documents the rules read.
    pub fn see(&mut self, path: &str, bytes: &[u8]) {
        self.paths.push(path.to_owned());
        if path == eggcat_wire::paths::REMOVED {
            self.removed = Some(bytes.to_vec());
        } else if path == eggcat_wire::paths::NOT_FOUND_PAGE {
            self.not_found_page = Some(bytes.to_vec());
        }
    }
}

/// Every rules file, by path under the `--out` folder, for a snapshot's `tree`.
pub fn files(tree: &Tree, options: &RulesOptions) -> BTreeMap<String, Vec<u8>> {
    let gone = gone_problems(tree.removed.as_deref());
    let mut out = BTreeMap::new();
    let mut add = |name: &str, bytes: Vec<u8>| {
        out.insert(format!("{RULES_DIR}/{name}"), bytes);
    };
    add("nginx.conf", nginx::config(options).into_bytes());
    add("Caddyfile", caddy::config(options).into_bytes());
    add(
        "cloudfront-function.js",
        cloudfront::function(tree, &gone).into_bytes(),
    );
    add("404.json", not_found_problem());
    add("400.json", problems::bad_fields_problem());
    add("405.json", problems::method_problem());
    for (slug, body) in &gone {
        add(&format!("gone/{slug}.json"), body.clone());
    }
    add("README.txt", README.as_bytes().to_vec());
    out
}

/// Writes the rules for `tree` into `out/.eggcat/`, each file replaced whole (written aside
/// and renamed), and removes the 410 documents of eggs no longer removed.
pub fn write(out: &Path, tree: &Tree, options: &RulesOptions) -> std::io::Result<()> {
    let rules = self::files(tree, options);
    let gone_dir = out.join(RULES_DIR).join("gone");
    std::fs::create_dir_all(&gone_dir)?;
    for (path, bytes) in &rules {
        let path = out.join(path);
        if std::fs::read(&path).is_ok_and(|old| old == *bytes) {
            continue;
        }
        let tmp = path.with_extension("tmp-eggcat");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)?;
    }
    for entry in std::fs::read_dir(&gone_dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{RULES_DIR}/gone/{name}");
        if !rules.contains_key(&rel) {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// The extensions the rules give a Content-Type, each with [`eggcat_wire::paths::media_type`]'s
/// answer, so that every host sends what `eggcat serve` sends whatever its own type table says.
pub(crate) const EXTENSIONS: &[&str] = &[
    "atom",
    "css",
    "html",
    "ico",
    "js",
    "json",
    "png",
    "svg",
    "txt",
    "webmanifest",
    "xml",
    "yaml",
    "yml",
];

/// Headers every answer of `eggcat serve` carries, as (name, value).
pub(crate) const COMMON_HEADERS: &[(&str, &str)] = &[
    ("Vary", "Accept-Encoding"),
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Expose-Headers",
        "ETag, Content-Length, Content-Encoding",
    ),
    ("X-Content-Type-Options", "nosniff"),
];

/// A comparison page of an earlier eggcat (`/eggs/{slug}/compare/{other}/`, without its last
/// `/` or with `index.html`), as the rules match it: a regex in the syntax nginx, Caddy and
/// JavaScript share, capturing `slug`. Each host redirects it to `/eggs/{slug}/#others`, as
/// [`eggcat_wire::paths::moved_comparison`] decides for `eggcat serve`.
pub(crate) const MOVED_COMPARISON: &str =
    r"^/eggs/([a-z0-9][a-z0-9-]*)/compare/[a-z0-9][a-z0-9-]*(/|/index\.html)?$";

/// An egg's `pelican-postgresql.json` of an earlier eggcat, as the rules match it, capturing
/// `slug`. Each host redirects it to `/api/v1/eggs/{slug}/pelican.json`, the file a panel on
/// PostgreSQL imports now, as [`eggcat_wire::paths::moved_postgresql_file`] decides for
/// `eggcat serve`.
pub(crate) const MOVED_POSTGRESQL_FILE: &str =
    r"^/api/v1/eggs/([a-z0-9][a-z0-9-]*)/pelican-postgresql\.json$";

/// Where the hosts send [`MOVED_POSTGRESQL_FILE`], `$1` standing for the captured slug.
pub(crate) fn moved_postgresql_target(slug: &str) -> String {
    use eggcat_wire::paths;
    format!("/{}", paths::egg_file(slug, paths::import::PELICAN_JSON))
}

/// The Referrer-Policy of HTML pages, as `eggcat serve` sends it.
pub(crate) const REFERRER_POLICY: &str = "strict-origin-when-cross-origin";

const README: &str = "\
Generated by `eggcat build --out`: the rules that make a static host answer like `eggcat serve`.
Not catalog content: the rules themselves refuse requests under /.eggcat/.

nginx.conf              include inside a server block whose root is this tree's folder
Caddyfile               import inside a site block whose root is this tree's folder
cloudfront-function.js  a CloudFront Function (viewer request) for a bucket published with
                        `eggcat publish`; it embeds the removed slugs: redeploy when they change
404.json, 400.json, 405.json, gone/{slug}.json
                        the problem documents (RFC 9457) the rules answer with

See docs/deploy.md.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree {
        let removed = br#"[{"slug":"old-egg","removedAt":"2026-01-02T03:04:05Z","source":"o/r","path":"x/egg-old.json"}]"#;
        let files: [(String, Vec<u8>); 2] = [
            ("api/v1/eggs/_removed.json".to_owned(), removed.to_vec()),
            ("api/v1/eggs/a.json".to_owned(), b"{}".to_vec()),
        ];
        Tree::of(&BTreeMap::from(files))
    }

    #[test]
    fn rules_files_are_complete_and_deterministic() {
        let options = RulesOptions {
            cache_control: "public, max-age=1".into(),
        };
        let a = files(&tree(), &options);
        assert_eq!(a, files(&tree(), &options));
        for name in [
            "nginx.conf",
            "Caddyfile",
            "cloudfront-function.js",
            "404.json",
            "gone/old-egg.json",
        ] {
            assert!(a.contains_key(&format!(".eggcat/{name}")), "{name}");
        }
        let nginx = String::from_utf8(a[".eggcat/nginx.conf"].clone()).unwrap();
        assert!(nginx.contains("public, max-age=1"), "{nginx}");
    }

    /// The rules' pattern moves exactly the paths `eggcat serve` moves, to the same place
    /// (the regex is run here by hand: the hosts run it in the tests of crates/cli).
    #[test]
    fn the_rules_move_what_serve_moves() {
        let rx = MOVED_COMPARISON;
        assert!(rx.starts_with("^/eggs/([a-z0-9][a-z0-9-]*)/compare/[a-z0-9][a-z0-9-]*"));
        assert!(rx.ends_with(r"(/|/index\.html)?$"));
        for (path, moved) in [
            ("/eggs/a-1/compare/b-2/", true),
            ("/eggs/a-1/compare/b-2", true),
            ("/eggs/a-1/compare/b-2/index.html", true),
            ("/eggs/a-1/compare/", false),
            ("/eggs/a-1/compare/b-2/x", false),
            ("/eggs/-a/compare/b/", false),
        ] {
            let to = eggcat_wire::paths::moved_comparison(path);
            assert_eq!(to.is_some(), moved, "{path}");
            if let Some(to) = to {
                let slug = &path["/eggs/".len()..path.find("/compare/").unwrap()];
                assert_eq!(to, format!("/eggs/{slug}/#others"));
            }
        }
    }

    /// The same for an egg's former PostgreSQL file: the hosts' target for the slug the
    /// pattern captures is where `eggcat serve` sends the path (the hosts run the pattern in
    /// crates/cli's `static_hosts` tests).
    #[test]
    fn the_rules_move_the_former_postgresql_files_as_serve_does() {
        assert!(MOVED_POSTGRESQL_FILE.starts_with("^/api/v1/eggs/([a-z0-9][a-z0-9-]*)/"));
        for (path, moved) in [
            ("/api/v1/eggs/a-1/pelican-postgresql.json", true),
            ("/api/v1/eggs/a-1/pelican-postgresql.jsonx", false),
            ("/api/v1/eggs/-a/pelican-postgresql.json", false),
            ("/api/v1/eggs/a/b/pelican-postgresql.json", false),
        ] {
            let to = eggcat_wire::paths::moved_postgresql_file(path);
            assert_eq!(to.is_some(), moved, "{path}");
            if let Some(to) = to {
                let slug = path.split('/').nth(4).unwrap();
                assert_eq!(to, moved_postgresql_target(slug));
            }
        }
    }

    #[test]
    fn write_replaces_and_prunes_gone_documents() {
        let dir = std::env::temp_dir().join(format!("eggcat-rules-{}", std::process::id()));
        let options = RulesOptions {
            cache_control: "x".into(),
        };
        write(&dir, &tree(), &options).unwrap();
        let gone = dir.join(".eggcat/gone/old-egg.json");
        assert!(gone.is_file());
        let mut t = tree();
        t.removed = Some(b"[]".to_vec());
        write(&dir, &t, &options).unwrap();
        assert!(!gone.exists(), "a slug no longer removed loses its 410");
        assert!(dir.join(".eggcat/nginx.conf").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
