//! Where each file of the published tree lives, and the media type each is served with.
//!
//! Every file eggcat serves is a file of the published snapshot; these names are shared by the
//! build that writes them, the server that answers for them, and the publishers that upload them,
//! so that `eggcat serve`, an `--out` tree on a static host and a bucket show the same thing.

/// The index: every egg's list item, sorted by slug.
pub const INDEX: &str = "api/v1/eggs/_index.json";
/// The de-duplicated, sorted display names.
pub const NAMES: &str = "api/v1/eggs/_names.json";
/// The slugs that were in an earlier catalog and are gone, with when and from where.
pub const REMOVED: &str = "api/v1/eggs/_removed.json";
/// What the web catalog shows and searches, per egg.
pub const SUMMARY: &str = "api/v1/eggs/_summary.json";
/// The build report.
pub const STATUS: &str = "api/v1/_status.json";
/// The folder of the per-egg documents.
pub const EGGS_DIR: &str = "api/v1/eggs";
/// The egg index in the pelican-eggs site's `pelican.json` shape, for `PANEL_EGG_INDEX_URL`: its
/// `download_url`s are the SQLite files (`pelican.json`). [`compat_pelican`] names the index of
/// each database.
pub const COMPAT_PELICAN: &str = "api/v1/compat/pelican.json";
/// The same index for a panel on MariaDB (or MySQL): `download_url`s are `pelican-mariadb.json`.
pub const COMPAT_PELICAN_MARIADB: &str = "api/v1/compat/pelican-mariadb.json";
/// The same index for a panel on PostgreSQL: `download_url`s are `pelican.json`, the file it
/// shares with SQLite ([`crate::Database::own_file`]), so it lists what [`COMPAT_PELICAN`] does.
pub const COMPAT_PELICAN_POSTGRESQL: &str = "api/v1/compat/pelican-postgresql.json";

/// The Pelican egg index for a panel on `db`.
pub fn compat_pelican(db: crate::Database) -> &'static str {
    match db {
        crate::Database::Sqlite => COMPAT_PELICAN,
        crate::Database::MariaDb => COMPAT_PELICAN_MARIADB,
        crate::Database::PostgreSql => COMPAT_PELICAN_POSTGRESQL,
    }
}
/// The same shape, listing the eggs Pterodactyl can import.
pub const COMPAT_PTERODACTYL: &str = "api/v1/compat/pterodactyl.json";

/// The web page of a missing path: every host answers a path that names nothing with this
/// file and status 404, unless the path is the API's ([`is_api_path`]).
pub const NOT_FOUND_PAGE: &str = "404.html";
/// Every egg as a plain list of links: the catalog page's "Show all" without JavaScript.
pub const ALL_EGGS_PAGE: &str = "eggs/index.html";
/// The catalog page: the site's front page.
pub const CATALOG_PAGE: &str = "index.html";
/// The build status page.
pub const STATUS_PAGE: &str = "status/index.html";
/// The Atom feed of new and changed eggs.
pub const FEED: &str = "feed.atom";
/// The folder of the site's stylesheet and script (named by their content's hash).
pub const ASSETS_DIR: &str = "assets";
/// The folder of the eggs' icons.
pub const ICONS_DIR: &str = "icons";

/// The address of a page relative to the site's root, as links write it: the page's folder
/// with its `/` (`eggs/x/` for `eggs/x/index.html`), as every host serves a folder's
/// `index.html`; `""` for the front page.
pub fn page_url(page: &str) -> &str {
    page.strip_suffix("index.html").unwrap_or(page)
}

/// The relative URL a link on the page published at `from` writes to reach `to`, both paths
/// from the tree's root. `from` is a page's file (`eggs/x/index.html`) or a folder ending in
/// `/`; `to` is a file, a page (its `index.html` is linked as its folder, [`page_url`]), or a
/// folder ending in `/` (`""` is the root). The URL climbs (`../`) only out of the folders the
/// two paths do not share, and is `./` for the folder the page is in. Every page links this way
/// (except `404.html`, answered at any depth), so the tree works under any base path.
pub fn href(from: &str, to: &str) -> String {
    let from_dirs: Vec<&str> = from.rsplit_once('/').map_or(Vec::new(), |(dir, _)| {
        dir.split('/').filter(|s| !s.is_empty()).collect()
    });
    let to = page_url(to);
    let (to_dir, file) = to.rsplit_once('/').unwrap_or(("", to));
    let to_dirs: Vec<&str> = to_dir.split('/').filter(|s| !s.is_empty()).collect();
    let shared = from_dirs
        .iter()
        .zip(&to_dirs)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = "../".repeat(from_dirs.len() - shared);
    for dir in &to_dirs[shared..] {
        out.push_str(dir);
        out.push('/');
    }
    out.push_str(file);
    if out.is_empty() {
        out.push_str("./");
    }
    out
}

/// Where an egg's icon is published (`ext` without the dot).
pub fn icon(slug: &str, ext: &str) -> String {
    format!("{ICONS_DIR}/{slug}.{ext}")
}

/// Whether a request path (decoded, starting with `/`) is the API's, whose errors are
/// `application/problem+json`: everything under `/api/`, and the server's `/healthz`,
/// `/readyz` and `/metrics`. Every other path is a browser's, and a missing one gets the HTML
/// [`NOT_FOUND_PAGE`]. Decided by the path alone, not by `Accept`, so that a static host or a
/// CDN (which cannot negotiate) answers the same as `eggcat serve`.
pub fn is_api_path(path: &str) -> bool {
    path == "/api"
        || path.starts_with("/api/")
        || matches!(path, "/healthz" | "/readyz" | "/metrics")
}

/// The per-egg import files, by file name under `api/v1/eggs/{slug}/`.
pub mod import {
    /// The egg as Pelican's exporter writes it (PLCN_v3), YAML.
    pub const PELICAN_YAML: &str = "pelican.yaml";
    /// The egg as Pelican's exporter writes it (PLCN_v3), JSON, on SQLite (Pelican's default
    /// database); each database's name is [`crate::Database::pelican_json_name`].
    pub const PELICAN_JSON: &str = "pelican.json";
    /// The egg as Pterodactyl's exporter writes it (PTDL_v2), JSON.
    pub const PTERODACTYL_JSON: &str = "pterodactyl.json";
}

/// The files that name other files (indexes, listing pages, the report). Whoever copies a
/// snapshot somewhere a reader may look meanwhile (`--out`, a bucket) writes every other file
/// first and these last, so that a reader never finds a name whose file is not there yet.
pub const LISTS: &[&str] = &[
    INDEX,
    NAMES,
    REMOVED,
    SUMMARY,
    COMPAT_PELICAN,
    COMPAT_PELICAN_MARIADB,
    COMPAT_PELICAN_POSTGRESQL,
    COMPAT_PTERODACTYL,
    "index.html",
    ALL_EGGS_PAGE,
    "status/index.html",
    "feed.atom",
    STATUS,
];

/// Whether `path` is one of the [`LISTS`].
pub fn is_list(path: &str) -> bool {
    LISTS.contains(&path)
}

/// Whether `path` is named by its content (the web assets, `assets/eggcat-{hash}.css`): its
/// bytes never change, so every host may cache it for a year ([`IMMUTABLE_CACHE_CONTROL`]).
pub fn is_immutable(path: &str) -> bool {
    path.starts_with("assets/eggcat-")
}

/// The `Cache-Control` of [`is_immutable`] files, everywhere they are served.
pub const IMMUTABLE_CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// The path of one egg's document.
pub fn egg(slug: &str) -> String {
    format!("{EGGS_DIR}/{slug}.json")
}

/// The path of one egg's history ([`crate::History`]).
pub fn history(slug: &str) -> String {
    egg_file(slug, HISTORY)
}

/// The file name of an egg's history under `api/v1/eggs/{slug}/`.
pub const HISTORY: &str = "history.json";

/// The folder, under `api/v1/eggs/{slug}/`, of the import files of an egg's older versions.
pub const VERSIONS_DIR: &str = "versions";

/// Where the `pelican.json` (SQLite's order) of an older version of an egg is published, by the
/// hex SHA-256 of the upstream file at that version: versions of the same content share it.
pub fn version_pelican_json(slug: &str, sha256: &str) -> String {
    format!(
        "{EGGS_DIR}/{slug}/{VERSIONS_DIR}/{sha256}/{}",
        import::PELICAN_JSON
    )
}

/// The web page of one egg.
pub fn egg_page(slug: &str) -> String {
    format!("eggs/{slug}/index.html")
}

/// The id of an egg page's "Other eggs for this game" section, where the egg is set side by
/// side with each other version of its game and every change to it is listed.
pub const OTHERS_SECTION: &str = "others";

/// Where a path of an earlier eggcat's tree has moved, for a request path (decoded, starting
/// with `/`): a comparison page ([`moved_comparison`]) or an egg's `pelican-postgresql.json`
/// ([`moved_postgresql_file`]). `None` for every other path. Decided by the path alone, as a
/// static host's rules can (docs/deploy.md); `eggcat serve` and the rules then move it only for
/// a slug an egg of the catalog has (a slug no egg has is a 404, a removed egg's a 410).
pub fn moved(path: &str) -> Option<String> {
    moved_comparison(path).or_else(|| moved_postgresql_file(path))
}

/// Where a comparison page of an earlier eggcat has moved: `/eggs/{slug}/compare/{other}/`
/// (also without its last `/`, or with `index.html`), one page per ordered pair of eggs for the
/// same game, is now the section [`OTHERS_SECTION`] of the page of egg `slug`:
/// `/eggs/{slug}/#others`.
pub fn moved_comparison(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/eggs/")?;
    let (slug, rest) = rest.split_once("/compare/")?;
    let other = rest
        .strip_suffix("/index.html")
        .or_else(|| rest.strip_suffix('/'))
        .unwrap_or(rest);
    (is_slug(slug) && is_slug(other)).then(|| format!("/eggs/{slug}/#{OTHERS_SECTION}"))
}

/// The file name of an egg's import file for PostgreSQL in earlier eggcats. PostgreSQL's export
/// order is SQLite's, so a panel on it imports `pelican.json` ([`crate::Database::own_file`]).
pub const FORMER_PELICAN_POSTGRESQL: &str = "pelican-postgresql.json";

/// Where an egg's [`FORMER_PELICAN_POSTGRESQL`] has moved: `/api/v1/eggs/{slug}/pelican.json`.
pub fn moved_postgresql_file(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/api/v1/eggs/")?;
    let slug = rest
        .strip_suffix(FORMER_PELICAN_POSTGRESQL)?
        .strip_suffix('/')?;
    is_slug(slug).then(|| format!("/{}", egg_file(slug, import::PELICAN_JSON)))
}

/// Whether `s` is what the catalog ever gives as a slug: `a-z`, `0-9` and `-`, not starting
/// with `-` (the static hosts' rules match `[a-z0-9][a-z0-9-]*`).
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The path of one of an egg's import files (`name` from [`import`]).
pub fn egg_file(slug: &str, name: &str) -> String {
    format!("{EGGS_DIR}/{slug}/{name}")
}

/// The media type a published file is served with, by its extension. Text types carry
/// `charset=utf-8`; JSON and YAML are UTF-8 by definition (RFC 8259, RFC 9512) and carry none.
pub fn media_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match ext {
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "atom" => "application/atom+xml",
        "xml" => "application/xml",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

/// Whether files of a media type (from [`media_type`]) are worth compressing: text, JSON, YAML,
/// XML and SVG are; PNG, JPEG, GIF and WebP are compressed already (a second compression saves
/// nothing, and brotli needs tens of MiB of working memory for such input), and unknown bytes
/// are left as they are.
pub fn is_compressible(media_type: &str) -> bool {
    media_type.starts_with("text/")
        || media_type.starts_with("application/json")
        || media_type.starts_with("application/yaml")
        || media_type.ends_with("+json")
        || media_type.ends_with("+xml")
        || media_type.starts_with("application/xml")
        || media_type == "image/x-icon"
}

/// The `Content-Security-Policy` of every HTML page, wherever it is served (eggcat serve, the
/// generated static-host rules): the pages run only their own scripts and styles, from their own
/// origin, and show icons as `data:` images; no plugins, no framing, no `<base>` rewriting.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

#[cfg(test)]
mod tests {

    #[test]
    fn text_is_compressed_and_images_are_not() {
        for path in [
            "a.json", "a.yaml", "a.html", "a.css", "a.js", "a.atom", "a.svg", "a.ico",
        ] {
            assert!(is_compressible(media_type(path)), "{path}");
        }
        for path in ["a.png", "a.jpg", "a.gif", "a.webp", "a.bin"] {
            assert!(!is_compressible(media_type(path)), "{path}");
        }
    }

    use super::*;

    #[test]
    fn paths_and_types() {
        assert_eq!(egg("a-b"), "api/v1/eggs/a-b.json");
        assert_eq!(
            egg_file("a-b", import::PELICAN_YAML),
            "api/v1/eggs/a-b/pelican.yaml"
        );
        assert_eq!(
            version_pelican_json("a-b", "0f"),
            "api/v1/eggs/a-b/versions/0f/pelican.json"
        );
        assert_eq!(media_type(INDEX), "application/json");
        assert_eq!(media_type("api/v1/eggs/x/pelican.yaml"), "application/yaml");
        assert_eq!(media_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(media_type("no-extension"), "application/octet-stream");
    }

    #[test]
    fn hrefs_climb_only_out_of_the_folders_two_paths_do_not_share() {
        let egg = egg_page("a");
        // Same folder: the page itself, a file beside it.
        assert_eq!(href(&egg, &egg), "./");
        assert_eq!(href(CATALOG_PAGE, CATALOG_PAGE), "./");
        assert_eq!(href(CATALOG_PAGE, FEED), "feed.atom");
        // Child.
        assert_eq!(href(&egg, "eggs/a/x/y/index.html"), "x/y/");
        assert_eq!(href(ALL_EGGS_PAGE, &egg), "a/");
        assert_eq!(href(CATALOG_PAGE, ALL_EGGS_PAGE), "eggs/");
        assert_eq!(href(CATALOG_PAGE, &egg), "eggs/a/");
        // Sibling, and across the tree.
        assert_eq!(href(&egg, &egg_page("b")), "../b/");
        let deep = "eggs/a/x/y/index.html";
        assert_eq!(href(deep, &egg_page("b")), "../../../b/");
        assert_eq!(href(deep, "eggs/b/x/a/index.html"), "../../../b/x/a/");
        assert_eq!(href(deep, &egg), "../../");
        assert_eq!(href(STATUS_PAGE, &egg), "../eggs/a/");
        assert_eq!(
            href(&egg, &history("a")),
            "../../api/v1/eggs/a/history.json"
        );
        assert_eq!(href(&egg, "icons/a.png"), "../../icons/a.png");
        // Root.
        assert_eq!(href(&egg, CATALOG_PAGE), "../../");
        assert_eq!(href(&egg, ""), "../../");
        assert_eq!(href(ALL_EGGS_PAGE, CATALOG_PAGE), "../");
        assert_eq!(href(deep, ""), "../../../../");
        assert_eq!(href(CATALOG_PAGE, STATUS), "api/v1/_status.json");
        // Trailing slashes: a folder on either side is the folder itself.
        assert_eq!(href("eggs/a/", "eggs/b/"), "../b/");
        assert_eq!(href("eggs/a/", "eggs/a/"), "./");
        assert_eq!(href("status/", "eggs/a/"), "../eggs/a/");
        assert_eq!(href("", "eggs/a/"), "eggs/a/");
        assert_eq!(href(&egg, "eggs/"), "../");
        // A shared name is a shared folder only as a whole segment.
        assert_eq!(href("eggs/ab/index.html", "eggs/a/index.html"), "../a/");
        assert_eq!(
            href("eggs/a/index.html", "eggsx/a/index.html"),
            "../../eggsx/a/"
        );
    }

    /// The three spellings of a former comparison page go to the first egg's section; a path
    /// that only looks like one does not move.
    #[test]
    fn former_comparison_pages_moved_to_the_egg_page() {
        for p in [
            "/eggs/a-7dtd/compare/b-7dtd/",
            "/eggs/a-7dtd/compare/b-7dtd",
            "/eggs/a-7dtd/compare/b-7dtd/index.html",
        ] {
            assert_eq!(
                moved_comparison(p).as_deref(),
                Some("/eggs/a-7dtd/#others"),
                "{p}"
            );
        }
        for p in [
            "/eggs/a/",
            "/eggs/a/compare/",
            "/eggs/a/compare",
            "/eggs//compare/b/",
            "/eggs/a/compare/b/c/",
            "/eggs/a/compare/b/index.htm",
            "/eggs/A/compare/b/",
            "/eggs/-a/compare/b/",
            "/eggs/a/compare/-b/",
            "/api/v1/eggs/a/compare/b/",
            "/x/eggs/a/compare/b/",
            "eggs/a/compare/b/",
        ] {
            assert_eq!(moved_comparison(p), None, "{p}");
        }
    }

    /// An egg's former PostgreSQL file goes to its `pelican.json`; a path that only looks like
    /// one does not move, and a comparison page still moves to its section.
    #[test]
    fn former_postgresql_files_moved_to_pelican_json() {
        assert_eq!(
            moved("/api/v1/eggs/a-7dtd/pelican-postgresql.json").as_deref(),
            Some("/api/v1/eggs/a-7dtd/pelican.json")
        );
        assert_eq!(
            moved("/eggs/a-7dtd/compare/b/").as_deref(),
            Some("/eggs/a-7dtd/#others")
        );
        for p in [
            "/api/v1/eggs/pelican-postgresql.json",
            "/api/v1/eggs//pelican-postgresql.json",
            "/api/v1/eggs/A/pelican-postgresql.json",
            "/api/v1/eggs/-a/pelican-postgresql.json",
            "/api/v1/eggs/a/b/pelican-postgresql.json",
            "/api/v1/eggs/a/pelican-postgresql.json/",
            "/api/v1/eggs/a/xpelican-postgresql.json",
            "/api/v1/compat/pelican-postgresql.json",
            "/eggs/a/pelican-postgresql.json",
            "api/v1/eggs/a/pelican-postgresql.json",
        ] {
            assert_eq!(moved(p), None, "{p}");
        }
    }

    #[test]
    fn api_paths_are_told_from_browser_paths_by_their_prefix() {
        for p in [
            "/api",
            "/api/",
            "/api/v1/eggs/nope.json",
            "/api/v2/x",
            "/healthz",
            "/metrics",
        ] {
            assert!(is_api_path(p), "{p}");
        }
        for p in [
            "/",
            "/eggs/nope/",
            "/apiary",
            "/status/x",
            "/.eggcat/nginx.conf",
        ] {
            assert!(!is_api_path(p), "{p}");
        }
    }
}
