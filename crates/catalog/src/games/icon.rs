//! Egg icons: a `data:` URL in the egg (`image`, or `icon`), checked and written as a file.
//!
//! Only the raster types every browser renders as an inert image are accepted (PNG, JPEG, GIF,
//! WebP), and the type is taken from the bytes themselves, not from the URL's claim (upstream has
//! WebP files labelled `image/png`). SVG is refused: it can carry script, and an icon is not worth
//! a sanitizer. The icon becomes its own file (`icons/{slug}.{ext}`) so that the catalog page
//! stays small and a browser caches it.

use base64::Engine;
use serde_json::Value;

/// Icons larger than this (decoded) are not shown: a catalog thumbnail has no need for more.
pub const MAX_ICON_BYTES: usize = 512 * 1024;

/// A checked icon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    /// File extension for its type (`png`, `jpg`, `gif`, `webp`).
    pub ext: &'static str,
    /// The decoded image.
    pub bytes: Vec<u8>,
}

/// The egg's icon, when it has one that is an accepted image.
pub fn from_egg(egg: &Value) -> Option<Icon> {
    ["image", "icon"]
        .iter()
        .filter_map(|k| egg.get(*k).and_then(Value::as_str))
        .find_map(from_data_url)
}

/// Decodes `data:image/...;base64,...` and checks its bytes.
pub fn from_data_url(url: &str) -> Option<Icon> {
    let rest = url.trim().strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let mut parts = head.split(';');
    let declared = parts.next()?.trim().to_ascii_lowercase();
    if !declared.starts_with("image/") || declared.contains("svg") {
        return None;
    }
    if !parts.any(|p| p.trim().eq_ignore_ascii_case("base64")) {
        return None;
    }
    // Upstream files sometimes wrap the base64 text; whitespace is not part of it.
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if compact.len() > MAX_ICON_BYTES * 4 / 3 + 4 {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .ok()?;
    let ext = sniff(&bytes)?;
    Some(Icon { ext, bytes })
}

/// The raster type of `bytes` by its signature.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// Puts the icon of the egg `egg` of `slug`, when it has one ([`from_egg`]), into `sink` at its
/// published path, and returns that path.
pub fn put(slug: &str, egg: &Value, sink: crate::Sink<'_>) -> Option<String> {
    let icon = from_egg(egg)?;
    let path = crate::paths::icon(slug, icon.ext);
    sink(path.clone(), icon.bytes);
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(kind: &str, bytes: &[u8]) -> String {
        format!(
            "data:{kind};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    }

    #[test]
    fn raster_types_by_their_bytes() {
        let png = b"\x89PNG\r\n\x1a\n rest";
        assert_eq!(
            from_data_url(&url("image/png", png)).map(|i| i.ext),
            Some("png")
        );
        let webp = b"RIFF\0\0\0\0WEBPVP8 ";
        // Labelled png, is webp: the bytes decide.
        assert_eq!(
            from_data_url(&url("image/png", webp)).map(|i| i.ext),
            Some("webp")
        );
        assert_eq!(
            from_data_url(&url("image/jpeg", &[0xff, 0xd8, 0xff, 0])).map(|i| i.ext),
            Some("jpg")
        );
    }

    #[test]
    fn svg_script_and_junk_are_refused() {
        let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>";
        assert_eq!(from_data_url(&url("image/svg+xml", svg)), None);
        // SVG bytes under a raster label: still not an image we know.
        assert_eq!(from_data_url(&url("image/png", svg)), None);
        assert_eq!(from_data_url("javascript:alert(1)"), None);
        assert_eq!(from_data_url("https://example.com/a.png"), None);
        assert_eq!(from_data_url("data:image/png,not-base64"), None);
        assert_eq!(from_data_url("data:text/html;base64,PGI+"), None);
    }
}
