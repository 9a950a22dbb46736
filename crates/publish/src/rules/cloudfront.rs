//! The CloudFront Function (cloudfront-js-2.0, viewer request) for a bucket published with
//! `eggcat publish`: what a bucket cannot do itself. It answers the `?fields=` query of
//! `/api/v1/eggs` (S3 ignores query strings), `410 Gone` for the removed slugs (embedded:
//! CloudFront Functions cannot read anything at request time, so the function is redeployed
//! when `_removed.json` changes), 405 for writes, and maps `/` and `/x/` to `index.html`.
//! The headers of HTML pages and CORS come from a response headers policy, and the 404 of a
//! missing API key from a custom error response on the `_errors/404.json` object that `eggcat
//! publish` uploads (docs/deploy.md): a viewer-request function cannot ask the bucket whether a
//! key exists.
//!
//! A browser's path (not [`paths::is_api_path`]) that names nothing must get the site's HTML
//! 404 page instead, and a distribution has one custom error response per status for every
//! path. So the function decides those paths itself: it embeds the site's fixed pages, the
//! catalog's slugs as a set of 24-bit hashes (four characters each: CloudFront Functions hold
//! at most 10 KB of code, and the slugs themselves take 13 bytes each even front-coded) and the
//! 404 page, answers a browser path that is none of them with that page and status 404, and
//! passes the rest (the assets and icons, named by the pages) to the bucket. An unknown slug
//! whose hash is one of the catalog's (about 1 in 27,000 with 621 eggs) goes to the bucket,
//! whose miss gets the API's problem document, still a 404. It is redeployed when the slugs
//! change.
//!
//! When the slugs and the page would take the function past CloudFront's 10 KB (about 790 eggs),
//! it is written without them ([`MAX_FUNCTION_BYTES`]): every browser path goes to the bucket,
//! and one that names nothing gets the distribution's custom error response, the API's problem
//! document, as before the HTML 404 page existed. A function that does not fit could not be
//! deployed at all.

use std::collections::BTreeMap;

use eggcat_wire::paths;

use super::Tree;

/// Prefixes the function passes to the bucket without knowing the files: named by the pages.
const PASSED: &[&str] = &["api/", "assets/", "icons/"];

/// The site's own pages of `tree` as request paths (`/`, `/status/`, `/feed.atom`, ...):
/// every file outside the API, the assets, the icons and the egg pages.
fn fixed_pages(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for path in &tree.paths {
        let egg_page = path
            .strip_prefix("eggs/")
            .is_some_and(|rest| rest.contains('/'));
        if egg_page || PASSED.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        out.push(format!("/{path}"));
        if let Some(folder) = path.strip_suffix("index.html") {
            out.push(format!("/{folder}"));
        }
    }
    out
}

/// The 64 characters of the slug hashes' encoding (six bits each).
const DIGITS: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

/// The low 24 bits of a slug's FNV-1a (32 bits), as the function computes it.
fn slug_hash(slug: &str) -> u32 {
    let h = slug.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h & 0x00ff_ffff
}

/// The hashes of the catalog's egg pages' slugs (`eggs/{slug}/index.html`), sorted, four
/// characters each (six bits per character, most significant first), concatenated.
pub(crate) fn slug_hashes(tree: &Tree) -> String {
    let mut hashes: Vec<u32> = tree
        .paths
        .iter()
        .filter_map(|p| p.strip_prefix("eggs/")?.strip_suffix("/index.html"))
        .filter(|s| !s.contains('/'))
        .map(slug_hash)
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    let mut out = String::with_capacity(hashes.len() * 4);
    for h in hashes {
        for shift in [18, 12, 6, 0] {
            out.push(char::from(DIGITS[((h >> shift) & 63) as usize]));
        }
    }
    out
}

/// The most code a CloudFront Function may hold (AWS's quota: 10 KB).
pub(crate) const MAX_FUNCTION_BYTES: usize = 10 * 1024;

/// The function's source, for `tree` and its `gone` (slug to its 410 body, from
/// [`super::gone_problems`]): with the HTML 404 page and the slugs when they fit.
pub(crate) fn function(tree: &Tree, gone: &BTreeMap<String, Vec<u8>>) -> String {
    let full = render(tree, gone, Pages::Checked);
    if full.len() <= MAX_FUNCTION_BYTES {
        full
    } else {
        render(tree, gone, Pages::Unchecked)
    }
}

/// Whether the function decides which browser paths name a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pages {
    Checked,
    Unchecked,
}

/// The function's source: its data, the page check, then the handler.
fn render(tree: &Tree, gone: &BTreeMap<String, Vec<u8>>, pages: Pages) -> String {
    let mut out = data(tree, gone, pages);
    out.push_str(PAGE_CHECK);
    out.push_str(&handler());
    out
}

/// A JS string literal.
fn js(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// The function's head comment and the data it embeds: the removed eggs' 410 bodies and, when
/// `pages` is checked, the site's fixed pages, the slugs' hashes and the 404 page.
fn data(tree: &Tree, gone: &BTreeMap<String, Vec<u8>>, pages: Pages) -> String {
    let gone_js = gone_object(gone);
    let checked = pages == Pages::Checked;
    let (fixed, slugs, page) = if checked {
        let page =
            (tree.not_found_page.as_deref()).map(|b| String::from_utf8_lossy(b).into_owned());
        (
            serde_json::to_string(&fixed_pages(tree)).expect("strings serialize"),
            js(&slug_hashes(tree)),
            js(page.as_deref().unwrap_or("Not Found")),
        )
    } else {
        ("[]".to_owned(), js(""), js(""))
    };
    format!(
        r#"// Generated by `eggcat build --out`: a CloudFront Function (runtime cloudfront-js-2.0),
// associated with the viewer-request event of the distribution in front of the bucket.
// Redeploy it after a build that adds or removes eggs (it embeds the slugs, the removed ones
// and the 404 page).

var GONE = {{
{gone_js}}};
// The site's pages besides the eggs', and the eggs' slugs as 24-bit hashes (the low bits of
// FNV-1a), four characters each. Without them (CHECK_PAGES false: they did not fit in 10 KB)
// every browser path goes to the bucket.
var CHECK_PAGES = {checked};
var FIXED = {fixed};
var SLUGS = {slugs};
var DIGITS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';
var NOT_FOUND_PAGE = {page};

"#
    )
}

/// The members of the `GONE` object: each removed slug with its 410 body as a JS string.
fn gone_object(gone: &BTreeMap<String, Vec<u8>>) -> String {
    gone.iter()
        .map(|(slug, body)| {
            // The body is JSON, itself a valid JS expression once parsed as a string.
            let body = String::from_utf8_lossy(body);
            let as_string = serde_json::to_string(&body).expect("a string always serializes");
            format!(
                "  {}: {as_string},\n",
                serde_json::Value::from(slug.as_str())
            )
        })
        .collect()
}

/// The JS that decides whether a browser's path names a page of the site, from the data above.
const PAGE_CHECK: &str = r#"function hasSlug(slug) {
  var h = 0x811c9dc5;
  for (var i = 0; i < slug.length; i++) {
    h = (h ^ slug.charCodeAt(i)) >>> 0;
    // h * 16777619 (2^24 + 2^8 + 2^7 + 2^4 + 2^1 + 1), modulo 2^32, exactly.
    h = (h + (h << 1) + (h << 4) + (h << 7) + (h << 8) + (h << 24)) >>> 0;
  }
  h = h & 0xffffff;
  var code = DIGITS[(h >> 18) & 63] + DIGITS[(h >> 12) & 63] + DIGITS[(h >> 6) & 63] + DIGITS[h & 63];
  for (var at = SLUGS.indexOf(code); at >= 0; at = SLUGS.indexOf(code, at + 1)) {
    if (at % 4 === 0) return true;
  }
  return false;
}

// Whether a browser's path names a page of the site (or a file the pages name, which the
// bucket answers).
function isPage(uri) {
  if (!CHECK_PAGES) return true;
  if (FIXED.indexOf(uri) >= 0 || /^\/(assets|icons)\//.test(uri)) return true;
  // An egg's page: its slug must be the catalog's.
  var m = uri.match(/^\/eggs\/([a-z0-9][a-z0-9-]*)(\/|\/index\.html)?$/);
  return m !== null && hasSlug(m[1]);
}
"#;

/// The viewer-request handler: CORS preflight, 405, 410, the redirects of an earlier eggcat's
/// comparison pages and PostgreSQL files to what replaced them ([`paths::moved`]), the HTML 404
/// page, folder redirects and the API's rewrites, with the problem documents it answers
/// embedded.
fn handler() -> String {
    let bad_fields = String::from_utf8_lossy(&super::problems::bad_fields_problem()).into_owned();
    let method = String::from_utf8_lossy(&super::problems::method_problem()).into_owned();
    format!(
        r#"var BAD_FIELDS = {bad_fields};
var METHOD = {method};
var MOVED = new RegExp({moved});
var MOVED_PG = new RegExp({moved_pg});

function problem(status, description, body, extra) {{
  var headers = {{
    'content-type': {{ value: 'application/problem+json' }},
    'cache-control': {{ value: 'no-store' }},
    'access-control-allow-origin': {{ value: '*' }},
    'x-content-type-options': {{ value: 'nosniff' }}
  }};
  for (var k in extra || {{}}) {{ headers[k] = {{ value: extra[k] }}; }}
  return {{ statusCode: status, statusDescription: description, headers: headers,
           body: {{ encoding: 'text', data: body }} }};
}}

function redirect(location) {{
  return {{ statusCode: 308, statusDescription: 'Permanent Redirect', headers: {{
    'location': {{ value: location }}, 'cache-control': {{ value: 'no-store' }} }} }};
}}

function handler(event) {{
  var request = event.request;
  var uri = request.uri;
  var method = request.method;
  if (method === 'OPTIONS') {{
    return {{ statusCode: 204, statusDescription: 'No Content', headers: {{
      'allow': {{ value: 'GET, HEAD, OPTIONS' }},
      'access-control-allow-origin': {{ value: '*' }},
      'access-control-allow-methods': {{ value: 'GET, HEAD, OPTIONS' }},
      'access-control-allow-headers': {{ value: '*' }},
      'access-control-max-age': {{ value: '86400' }}
    }} }};
  }}
  if (method !== 'GET' && method !== 'HEAD') {{
    return problem(405, 'Method Not Allowed', JSON.stringify(METHOD), {{ allow: 'GET, HEAD, OPTIONS' }});
  }}
  var m = uri.match(/^\/api\/v1\/eggs\/([a-z0-9][a-z0-9-]*)(\.json|\/.*)?$/) ||
          uri.match(/^\/eggs\/([a-z0-9][a-z0-9-]*)(\/.*)?$/);
  if (m && Object.prototype.hasOwnProperty.call(GONE, m[1])) {{
    return problem(410, 'Gone', GONE[m[1]]);
  }}
  // A comparison page of an earlier eggcat: now the egg page's section; a former PostgreSQL
  // file: now pelican.json. For a slug no egg has (when the function knows the slugs), the
  // path goes on to its 404.
  var moved = uri.match(MOVED);
  if (moved && (!CHECK_PAGES || hasSlug(moved[1]))) return redirect('/eggs/' + moved[1] + {others});
  moved = uri.match(MOVED_PG);
  if (moved && (!CHECK_PAGES || hasSlug(moved[1]))) return redirect({moved_pg_to});
  var api = uri === '/api' || uri.indexOf('/api/') === 0;
  if (!api && !isPage(uri)) {{
    return {{ statusCode: 404, statusDescription: 'Not Found', headers: {{
      'content-type': {{ value: 'text/html; charset=utf-8' }},
      'cache-control': {{ value: 'no-store' }},
      'content-security-policy': {{ value: {csp} }},
      'referrer-policy': {{ value: {referrer} }},
      'access-control-allow-origin': {{ value: '*' }},
      'x-content-type-options': {{ value: 'nosniff' }}
    }}, body: {{ encoding: 'text', data: NOT_FOUND_PAGE }} }};
  }}
  if (/^\/eggs\/[a-z0-9][a-z0-9-]*$/.test(uri)) return redirect(uri + '/');
  if (uri === '/api/v1/eggs') {{
    var fields = request.querystring.fields;
    if (fields === undefined) {{
      request.uri = {index};
    }} else if (fields.value === 'name' && !fields.multiValue) {{
      request.uri = {names};
    }} else {{
      return problem(400, 'Bad Request', JSON.stringify(BAD_FIELDS));
    }}
    return request;
  }}
  var egg = uri.match(/^\/api\/v1\/eggs\/([a-z0-9][a-z0-9-]*)$/);
  if (egg) {{
    request.uri = uri + '.json';
  }} else if (uri.endsWith('/')) {{
    request.uri = uri + 'index.html';
  }}
  return request;
}}
"#,
        csp = js(paths::CONTENT_SECURITY_POLICY),
        referrer = js(super::REFERRER_POLICY),
        index = js(&format!("/{}", paths::INDEX)),
        names = js(&format!("/{}", paths::NAMES)),
        moved = js(super::MOVED_COMPARISON),
        moved_pg = js(super::MOVED_POSTGRESQL_FILE),
        moved_pg_to = moved_pg_js(),
        others = js(&format!("/#{}", paths::OTHERS_SECTION)),
    )
}

/// The JavaScript expression of [`super::moved_postgresql_target`] for the slug `moved[1]`.
fn moved_pg_js() -> String {
    // No slug has capitals, so the marker cannot be part of the path around it.
    const SLUG: &str = "SLUG";
    let to = super::moved_postgresql_target(SLUG);
    let (head, tail) = to.split_once(SLUG).expect("the target names the slug");
    format!("{} + moved[1] + {}", js(head), js(tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_embeds_gone_slugs_as_strings() {
        let gone: BTreeMap<String, Vec<u8>> = [(
            "old".to_owned(),
            br#"{"status":410,"detail":"a \"q\""}"#.to_vec(),
        )]
        .into();
        let f = function(&Tree::default(), &gone);
        assert!(
            f.contains(r#"  "old": "{\"status\":410,\"detail\":\"a \\\"q\\\"\"}","#),
            "{f}"
        );
        assert!(
            f.contains(r#"request.uri = "/api/v1/eggs/_names.json";"#),
            "{f}"
        );
    }

    /// A catalog too large for the page check gets a function that still fits and sends every
    /// browser path to the bucket; a small one gets the check.
    #[test]
    fn the_function_always_fits_in_cloudfront() {
        let catalog = |eggs: usize| -> Tree {
            let mut files: BTreeMap<String, Vec<u8>> = (0..eggs)
                .map(|i| (format!("eggs/games-egg-{i}/index.html"), Vec::new()))
                .collect();
            files.insert(paths::NOT_FOUND_PAGE.to_owned(), vec![b'x'; 2000]);
            Tree::of(&files)
        };
        let small = function(&catalog(50), &BTreeMap::new());
        assert!(small.contains("var CHECK_PAGES = true;"));
        assert!(small.len() <= MAX_FUNCTION_BYTES);
        let large = function(&catalog(3000), &BTreeMap::new());
        assert!(
            large.contains("var CHECK_PAGES = false;"),
            "{}",
            large.len()
        );
        assert!(large.len() <= MAX_FUNCTION_BYTES, "{} bytes", large.len());
        assert!(
            render(&catalog(3000), &BTreeMap::new(), Pages::Checked).len() > MAX_FUNCTION_BYTES
        );
    }

    #[test]
    fn slugs_are_hashed_in_order() {
        let files: BTreeMap<String, Vec<u8>> = [
            "eggs/games-ark/index.html",
            "eggs/games-arma3/index.html",
            "eggs/index.html",
            "eggs/voice/index.html",
            "eggs/voice/x/index.html",
        ]
        .into_iter()
        .map(|p| (p.to_owned(), Vec::new()))
        .collect();
        // FNV-1a (32 bits) of "voice" is 0x7f9bc9f9, computed apart: low 24 bits 0x9bc9f9.
        assert_eq!(slug_hash("voice"), 0x009b_c9f9);
        let hashes = slug_hashes(&Tree::of(&files));
        assert_eq!(
            hashes.len(),
            12,
            "three slugs, four characters each: {hashes}"
        );
        let mut sorted = [
            slug_hash("games-ark"),
            slug_hash("games-arma3"),
            slug_hash("voice"),
        ];
        sorted.sort_unstable();
        let first = sorted[0];
        let code: String = [18, 12, 6, 0]
            .iter()
            .map(|s| char::from(DIGITS[((first >> s) & 63) as usize]))
            .collect();
        assert_eq!(&hashes[..4], code);
        assert_eq!(
            fixed_pages(&Tree::of(&files)),
            ["/eggs/index.html", "/eggs/"]
        );
    }
}
