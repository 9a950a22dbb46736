//! The problem documents (RFC 9457) a static host answers with, rendered once per build: the
//! 410 of each removed egg, with the same `detail` and members as `eggcat serve`, and the fixed
//! 404, 400 and 405. A static host cannot put the request path in `instance`: the 410 names the
//! egg's path (`/api/v1/eggs/{slug}`), and the others leave `instance` out (it is optional).

use std::collections::BTreeMap;

use eggcat_wire::paths;
use eggcat_wire::{ProblemDocument, Removed};
use serde_json::Value;

/// The 410 body of every removed egg, by slug, from the bytes of the tree's [`paths::REMOVED`]
/// (`None` when it has none). Entries that are not objects with a slug-like `slug` are skipped:
/// a slug becomes a file name.
pub fn gone_problems(removed: Option<&[u8]>) -> BTreeMap<String, Vec<u8>> {
    let removed: Vec<Value> = removed
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or_default();
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut out = BTreeMap::new();
    for entry in &removed {
        let slug = text(entry, "slug");
        if !paths::is_slug(&slug) {
            continue;
        }
        let (at, source, path) = (
            text(entry, "removedAt"),
            text(entry, "source"),
            text(entry, "path"),
        );
        let body = problem(
            410,
            "Gone",
            Removed::detail(&slug, &at, &path, &source),
            Some(format!("/{}/{slug}", paths::EGGS_DIR)),
            Some(Removed {
                slug: slug.clone(),
                removed_at: at,
                source,
                path,
            }),
        );
        out.insert(slug, body);
    }
    out
}

/// The 404 body.
pub fn not_found_problem() -> Vec<u8> {
    problem(
        404,
        "Not Found",
        "no resource at this path".to_owned(),
        None,
        None,
    )
}

/// The 400 body for a `fields` value other than `name`.
pub(crate) fn bad_fields_problem() -> Vec<u8> {
    problem(
        400,
        "Bad Request",
        "unsupported value for `fields`: the only value allowed is `name`".to_owned(),
        None,
        None,
    )
}

/// The 405 body.
pub(crate) fn method_problem() -> Vec<u8> {
    problem(
        405,
        "Method Not Allowed",
        "this API is read-only (GET, HEAD, OPTIONS)".to_owned(),
        None,
        None,
    )
}

/// A problem document's bytes ([`ProblemDocument`], as `eggcat serve` renders them).
fn problem(
    status: u16,
    title: &str,
    detail: String,
    instance: Option<String>,
    gone: Option<Removed>,
) -> Vec<u8> {
    let doc = ProblemDocument {
        kind: "about:blank".to_owned(),
        title: title.to_owned(),
        status,
        detail,
        instance,
        gone,
    };
    serde_json::to_vec(&doc).expect("a problem document serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gone_bodies_follow_removed_and_skip_unsafe_slugs() {
        let removed =
            br#"[{"slug":"b","removedAt":"T","source":"o/r","path":"p.json"},{"slug":"../x"},3]"#;
        let gone = gone_problems(Some(removed));
        assert_eq!(gone.keys().collect::<Vec<_>>(), ["b"]);
        let v: Value = serde_json::from_slice(&gone["b"]).unwrap();
        assert_eq!(v["status"], 410);
        assert_eq!(v["instance"], "/api/v1/eggs/b");
        assert_eq!(
            v["detail"],
            "the egg `b` is no longer in the catalog (since T); it came from `p.json` of o/r"
        );
        assert!(gone_problems(None).is_empty());
    }
}
