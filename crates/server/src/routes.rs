//! Routing: from a request path to what is asked for, or a precise 400/404; then, once the
//! method is known to be GET or HEAD, from `/api/v1/eggs` and its query to the index or the names.
//!
//! Besides the API's fixed routes, every file of the published snapshot is served at its own
//! path ([`Route::File`]): import files, compat indexes, web pages and their assets. A path
//! ending in `/` names that folder's `index.html`, as on every static host. A file path that
//! belongs to one egg (`/api/v1/eggs/{slug}/...`, `/eggs/{slug}/...`) carries the slug, so that
//! a removed egg answers `410 Gone` on every one of its paths.
//!
//! Paths are matched after percent-decoding (so `%61` is `a`, RFC 3986 section 6.2.2.2). A
//! decoded path holding `..` or `.` segments, `//`, a backslash or NUL, invalid UTF-8, or more than
//! [`MAX_PATH`] bytes is a 400: nothing is ever looked up on a file system, but a client sending
//! such a path has a bug worth telling it about.

use std::borrow::Cow;

use eggcat_wire::paths::is_slug;
use http::StatusCode;
use percent_encoding::percent_decode_str;

use crate::problem::Problem;

/// Longest path accepted.
pub(crate) const MAX_PATH: usize = 1024;

/// What a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route<'a> {
    /// `/api/v1/eggs` before its query is read ([`Route::with_query`]).
    Eggs,
    Index,
    Names,
    /// The slug, borrowed from the request path unless it had to be percent-decoded.
    Egg(Cow<'a, str>),
    Status,
    OpenApi,
    Healthz,
    Readyz,
    Metrics,
    /// Any other published file: its path under the output root, and the slug of the egg it
    /// belongs to, if any.
    File {
        path: String,
        slug: Option<String>,
    },
}

impl<'a> Route<'a> {
    /// The document path under the output root, for the catalog's lists and report.
    pub(crate) fn list(&self) -> Option<&'static str> {
        use eggcat_wire::paths;
        match self {
            Route::Index => Some(paths::INDEX),
            Route::Names => Some(paths::NAMES),
            Route::Status => Some(paths::STATUS),
            _ => None,
        }
    }

    /// `/api/v1/eggs` resolved by its `fields` query; every other route as it is.
    pub(crate) fn with_query(self, query: Option<&str>) -> Result<Route<'a>, Problem> {
        match self {
            Route::Eggs => fields(query),
            other => Ok(other),
        }
    }
}

/// Matches a path.
pub(crate) fn route(raw_path: &str) -> Result<Route<'_>, Problem> {
    let path = decode_path(raw_path)?;
    let route = match path.as_ref() {
        "/healthz" => Route::Healthz,
        "/readyz" => Route::Readyz,
        "/metrics" => Route::Metrics,
        "/api/v1/_status.json" => Route::Status,
        "/api/v1/openapi.json" => Route::OpenApi,
        "/api/v1/eggs" => Route::Eggs,
        "/api/v1/eggs/_index.json" => Route::Index,
        "/api/v1/eggs/_names.json" => Route::Names,
        other => match other.strip_prefix("/api/v1/eggs/") {
            // `_index.json`, `_removed.json`, ...: documents of the catalog, not eggs.
            Some(tail) if tail.starts_with('_') && !tail.contains('/') => file(other, None),
            Some(tail) if !tail.is_empty() && !tail.contains('/') => {
                let slug = tail.strip_suffix(".json").unwrap_or(tail);
                if !is_slug(slug) {
                    return Err(no_egg(slug));
                }
                // The slug is the end of the path, minus `.json`: borrow it when the path could be.
                let start = other.len() - tail.len();
                let end = start + slug.len();
                Route::Egg(match &path {
                    Cow::Borrowed(p) => Cow::Borrowed(&p[start..end]),
                    Cow::Owned(p) => Cow::Owned(p[start..end].to_owned()),
                })
            }
            Some(tail) => file(other, tail.split_once('/').map(|(slug, _)| slug)),
            None => {
                let slug = other
                    .strip_prefix("/eggs/")
                    .and_then(|t| t.split('/').next())
                    .filter(|s| !s.is_empty());
                file(other, slug)
            }
        },
    };
    Ok(route)
}

/// Where a path that named a file or page of an earlier eggcat now lives: the `Location` of a
/// permanent redirect, or `None` for every other path. `path` is the request's path as received
/// (it is percent-decoded here, as [`route`] decodes it; a path [`route`] refuses moves nowhere).
///
/// Two kinds move ([`eggcat_wire::paths::moved`], the same rules as the static hosts'
/// generated rules): the comparison pages `/eggs/{slug}/compare/{other}/` (also without the
/// last `/`, or with `index.html`), which became the section "Other eggs for this game" of the
/// page of egg `slug` (`/eggs/{slug}/#others`), and an egg's `pelican-postgresql.json`, which
/// became its `pelican.json` (PostgreSQL's export order is SQLite's). Decided by the path alone;
/// the handler moves it only for an egg of the catalog (a slug no egg has is a 404), and a
/// removed egg's paths answer 410 before they move, as on the static hosts.
pub(crate) fn moved(path: &str) -> Option<String> {
    let path = decode_path(path).ok()?;
    eggcat_wire::paths::moved(&path)
}

/// A published file at `path` (decoded, starting with `/`); a folder's `index.html` for a path
/// ending in `/`.
fn file(path: &str, slug: Option<&str>) -> Route<'static> {
    let mut key = path.trim_start_matches('/').to_owned();
    if key.is_empty() || key.ends_with('/') {
        key.push_str("index.html");
    }
    Route::File {
        path: key,
        slug: slug.filter(|s| is_slug(s)).map(str::to_owned),
    }
}

/// The 404 for a path that names nothing published.
pub(crate) fn not_found(path: &str) -> Problem {
    Problem::new(StatusCode::NOT_FOUND, format!("no resource at `{path}`"))
}

/// The 404 for a slug no egg has.
pub(crate) fn no_egg(slug: &str) -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        format!("no egg has the slug `{slug}`"),
    )
}

fn decode_path(raw: &str) -> Result<Cow<'_, str>, Problem> {
    let bad = |why: &str| Problem::new(StatusCode::BAD_REQUEST, format!("malformed path: {why}"));
    if raw.len() > MAX_PATH {
        return Err(bad(&format!("longer than {MAX_PATH} bytes")));
    }
    // A GET's target is in origin form (RFC 9112, section 3.2.1): `example.com:80` or `healthz`
    // name no path (`OPTIONS *` is answered before routing).
    if !raw.starts_with('/') {
        return Err(bad("does not start with `/`"));
    }
    let path: Cow<'_, str> = if raw.contains('%') {
        percent_decode_str(raw)
            .decode_utf8()
            .map_err(|_| bad("percent-encoding does not decode to UTF-8"))?
    } else {
        Cow::Borrowed(raw)
    };
    if path.contains('\0') {
        return Err(bad("contains NUL"));
    }
    if path.contains('\\') {
        return Err(bad("contains a backslash"));
    }
    if path.contains("//") {
        return Err(bad("contains an empty segment (`//`)"));
    }
    if path.split('/').any(|s| s == "." || s == "..") {
        return Err(bad("contains a `.` or `..` segment"));
    }
    Ok(path)
}

/// `/api/v1/eggs`: the index, or with `fields=name` the names list.
fn fields(query: Option<&str>) -> Result<Route<'static>, Problem> {
    let values: Vec<Cow<'_, str>> = query
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_query(k) == "fields").then(|| decode_query(v))
        })
        .collect();
    match values.as_slice() {
        [] => Ok(Route::Index),
        [v] if v == "name" => Ok(Route::Names),
        [v] => Err(Problem::new(
            StatusCode::BAD_REQUEST,
            format!("unsupported value `{v}` for `fields`: the only value allowed is `name`"),
        )),
        _ => Err(Problem::new(
            StatusCode::BAD_REQUEST,
            "`fields` is given more than once: give it once, as `fields=name`",
        )),
    }
}

fn decode_query(s: &str) -> Cow<'_, str> {
    if s.contains(['%', '+']) {
        let spaced = s.replace('+', " ");
        Cow::Owned(percent_decode_str(&spaced).decode_utf8_lossy().into_owned())
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok<'a>(path: &'a str, query: Option<&str>) -> Route<'a> {
        route(path).and_then(|r| r.with_query(query)).unwrap()
    }

    fn err(path: &str, query: Option<&str>) -> (u16, String) {
        let p = route(path).and_then(|r| r.with_query(query)).unwrap_err();
        (p.status.as_u16(), p.detail)
    }

    #[test]
    fn every_endpoint_and_alias() {
        assert_eq!(ok("/api/v1/eggs/_index.json", None), Route::Index);
        assert_eq!(ok("/api/v1/eggs", None), Route::Index);
        assert_eq!(ok("/api/v1/eggs/_names.json", None), Route::Names);
        assert_eq!(ok("/api/v1/eggs", Some("fields=name")), Route::Names);
        assert_eq!(
            ok("/api/v1/eggs/minecraft-paper.json", None),
            Route::Egg("minecraft-paper".into())
        );
        assert_eq!(
            ok("/api/v1/eggs/minecraft-paper", None),
            Route::Egg("minecraft-paper".into())
        );
        assert_eq!(ok("/api/v1/_status.json", None), Route::Status);
        assert_eq!(ok("/api/v1/openapi.json", None), Route::OpenApi);
        assert_eq!(ok("/healthz", None), Route::Healthz);
        assert_eq!(ok("/readyz", None), Route::Readyz);
        assert_eq!(ok("/metrics", None), Route::Metrics);
    }

    #[test]
    fn unknown_query_parameters_are_ignored() {
        assert_eq!(
            ok("/api/v1/eggs", Some("page=2&fields=name&x")),
            Route::Names
        );
        assert_eq!(
            ok("/api/v1/eggs/_index.json", Some("fields=bogus")),
            Route::Index
        );
        assert_eq!(ok("/api/v1/eggs", Some("field=name")), Route::Index);
        assert_eq!(ok("/api/v1/eggs", Some("fields=%6eame")), Route::Names);
    }

    #[test]
    fn bad_fields_are_a_400_that_says_what_is_allowed() {
        assert_eq!(
            err("/api/v1/eggs", Some("fields=slug")),
            (
                400,
                "unsupported value `slug` for `fields`: the only value allowed is `name`".into()
            )
        );
        assert_eq!(err("/api/v1/eggs", Some("fields=")).0, 400);
        assert_eq!(err("/api/v1/eggs", Some("fields=name&fields=name")).0, 400);
    }

    fn file_route(path: &str, slug: Option<&str>) -> Route<'static> {
        Route::File {
            path: path.into(),
            slug: slug.map(str::to_owned),
        }
    }

    #[test]
    fn every_published_file_has_a_route() {
        assert_eq!(ok("/", None), file_route("index.html", None));
        assert_eq!(ok("/status/", None), file_route("status/index.html", None));
        assert_eq!(ok("/feed.atom", None), file_route("feed.atom", None));
        assert_eq!(
            ok("/eggs/minecraft-paper/", None),
            file_route("eggs/minecraft-paper/index.html", Some("minecraft-paper"))
        );
        assert_eq!(
            ok("/api/v1/eggs/minecraft-paper/pelican.yaml", None),
            file_route(
                "api/v1/eggs/minecraft-paper/pelican.yaml",
                Some("minecraft-paper")
            )
        );
        assert_eq!(
            ok("/api/v1/eggs/_removed.json", None),
            file_route("api/v1/eggs/_removed.json", None)
        );
        assert_eq!(
            ok("/api/v1/compat/pelican.json", None),
            file_route("api/v1/compat/pelican.json", None)
        );
        // Not a slug: no egg to answer 410 for.
        assert_eq!(
            ok("/eggs/Not_A_Slug/", None),
            file_route("eggs/Not_A_Slug/index.html", None)
        );
    }

    /// A comparison page of an earlier eggcat, in each of its spellings and percent-encoded,
    /// moves to its first egg's section; nothing else moves, a refused path included.
    #[test]
    fn former_comparison_pages_move_to_the_egg_page() {
        for p in [
            "/eggs/a-7dtd/compare/b-7dtd/",
            "/eggs/a-7dtd/compare/b-7dtd",
            "/eggs/a-7dtd/compare/b-7dtd/index.html",
            "/eggs/a-7dtd/compare/b-7d%74d/",
        ] {
            assert_eq!(moved(p).as_deref(), Some("/eggs/a-7dtd/#others"), "{p}");
        }
        for p in [
            "/eggs/a-7dtd/",
            "/eggs/a-7dtd/compare/",
            "/eggs/a-7dtd/compare/b/c/",
            "/eggs/a-7dtd/compare/../b/",
            "/eggs/a-7dtd//compare/b/",
            "/api/v1/eggs/a-7dtd/compare/b/",
            "/eggs/A/compare/b/",
            "/",
        ] {
            assert_eq!(moved(p), None, "{p}");
        }
        // The page it moved to is a route like any page.
        assert_eq!(
            ok("/eggs/a-7dtd/", None),
            file_route("eggs/a-7dtd/index.html", Some("a-7dtd"))
        );
    }

    /// An egg's `pelican-postgresql.json` of an earlier eggcat, also percent-encoded, moves to
    /// its `pelican.json`; its route names the egg, so a removed egg answers 410 first.
    #[test]
    fn former_postgresql_files_move_to_pelican_json() {
        for p in [
            "/api/v1/eggs/a-7dtd/pelican-postgresql.json",
            "/api/v1/eggs/a-7dtd/pelican-postgres%71l.json",
        ] {
            assert_eq!(
                moved(p).as_deref(),
                Some("/api/v1/eggs/a-7dtd/pelican.json"),
                "{p}"
            );
        }
        for p in [
            "/api/v1/compat/pelican-postgresql.json",
            "/api/v1/eggs/a-7dtd/pelican-mariadb.json",
            "/api/v1/eggs/a-7dtd/../b/pelican-postgresql.json",
        ] {
            assert_eq!(moved(p), None, "{p}");
        }
        assert_eq!(
            ok("/api/v1/eggs/a-7dtd/pelican-postgresql.json", None),
            file_route("api/v1/eggs/a-7dtd/pelican-postgresql.json", Some("a-7dtd"))
        );
    }

    #[test]
    fn unknown_slugs_are_404() {
        assert_eq!(
            err("/api/v1/eggs/Paper.json", None),
            (404, "no egg has the slug `Paper`".into())
        );
    }

    #[test]
    fn hostile_paths_are_refused() {
        for p in [
            "/api/v1/eggs/%2e%2e/%2e%2e/etc/passwd",
            "/api/v1/eggs/../_status.json",
            "/api/v1//eggs",
            "/api/v1/eggs/a%5cb",
            "/api/v1/eggs/a%00.json",
            "/api/v1/eggs/%ff",
            "/api/v1/eggs/./x",
        ] {
            assert_eq!(err(p, None).0, 400, "{p}");
        }
        let long = format!("/api/v1/eggs/{}", "a".repeat(MAX_PATH));
        assert_eq!(
            err(&long, None),
            (400, "malformed path: longer than 1024 bytes".into())
        );
        // An encoded unreserved character is the character.
        assert_eq!(ok("/api/v1/eggs/%61bc", None), Route::Egg("abc".into()));
    }
}
