//! `404.html`: what a browser gets for a path that names nothing (status 404, from `eggcat
//! serve`, the generated nginx and Caddy rules and the CloudFront function alike).
//!
//! It is answered at any depth (`/nope`, `/eggs/nope/`, `/a/b/c/`), so its URLs cannot be
//! relative like every other page's: they start from the absolute path of the tree's root,
//! taken from `base_url` (`/` when the catalog is at the root of its host).

use eggcat_wire::paths;

use crate::html::Html;
use crate::layout::{self, Assets, Here, Nav};

/// The page, for a tree whose root is at `base` (`base_url` without its trailing `/`).
pub(crate) fn render(base: &str, assets: &Assets) -> String {
    let root = root_path(base);
    let here = Here::Anywhere(&root);
    let mut h = Html::with_capacity(4096);
    layout::start(
        &mut h,
        "Page not found – eggcat",
        "There is no page at this address in the egg catalog: search the catalog instead.",
        here,
        assets,
        Nav::Egg,
    );
    let status = here.link(paths::STATUS_PAGE);
    let removed = here.link(paths::REMOVED);
    let catalog = here.link(paths::CATALOG_PAGE);
    // A removed (or renamed) egg's old address never lands here: it answers `410 Gone` with a
    // problem document. The sentence says so, and where those eggs are listed.
    h.lit("<h1>Page not found</h1><p class=\"lede\">There is no page at this address. ")
        .lit("The old address of an egg that was renamed or removed upstream answers ")
        .lit("“410 Gone” instead; those eggs are listed on the ")
        .el("a", &[("href", Some(&status))], "build status")
        .lit(" page and in ")
        .open("a", &[("href", Some(&removed))])
        .code("_removed.json")
        .close("a")
        .lit(".</p>")
        // A search here is a search of the catalog: the catalog page reads `?q=`.
        .open(
            "form",
            &[
                ("class", Some("search lost")),
                ("role", Some("search")),
                ("method", Some("get")),
                ("action", Some(&catalog)),
            ],
        )
        .lit("<div class=\"field q\"><label for=\"q\">Search the catalog</label>")
        .lit("<input id=\"q\" name=\"q\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" placeholder=\"name, tag, image…\"></div>")
        .lit("<button type=\"submit\">Search</button></form><p>")
        .el("a", &[("href", Some(&catalog))], "Go to the catalog of every egg")
        .lit("</p>");
    layout::end(&mut h, here, None, None);
    h.finish()
}

/// The absolute path of the tree's root, ending in `/`: `https://a.example/eggs` gives
/// `/eggs/`, `https://a.example` gives `/`.
pub(crate) fn root_path(base: &str) -> String {
    let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
    format!("{}/", path.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::root_path;

    #[test]
    fn the_root_is_the_path_of_the_base_url() {
        assert_eq!(root_path("https://a.example"), "/");
        assert_eq!(root_path("https://a.example/"), "/");
        assert_eq!(root_path("http://127.0.0.1:8080/eggs/cat"), "/eggs/cat/");
    }
}
