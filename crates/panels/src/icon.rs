//! The egg icon through Pelican's import and export: the importer keeps a `data:image/...;base64`
//! URI of a format the panel stores (`HasIcon::writeIcon`: png, jpg/jpeg, webp), decoded
//! leniently like PHP's `base64_decode`; the exporter writes it back as
//! `data:{mime};base64,{canonical base64}`. Any other icon is dropped on import.

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};

/// The icon as the exporter writes it after the importer stored `uri`, or `None` when the
/// importer stores nothing.
pub(crate) fn stored(uri: &str) -> Option<String> {
    // preg_match('/^data:image\/([\w+]+);base64,(.+)$/'): `.` stops at a line break, `$` allows
    // one final "\n".
    let uri = uri.strip_suffix('\n').unwrap_or(uri);
    let rest = uri.strip_prefix("data:image/")?;
    let (ext, data) = rest.split_once(";base64,")?;
    if ext.is_empty()
        || !ext
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '+')
        || data.is_empty()
        || data.contains('\n')
    {
        return None;
    }
    let mime = match ext.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        _ => return None,
    };
    let bytes = php_base64_decode(data)?;
    (!bytes.is_empty()).then(|| format!("data:{mime};base64,{}", STANDARD.encode(bytes)))
}

/// PHP's non-strict `base64_decode`: characters outside the alphabet are skipped, decoding
/// stops at the first `=`.
fn php_base64_decode(data: &str) -> Option<Vec<u8>> {
    let clean: String = data
        .chars()
        .take_while(|&c| c != '=')
        .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
        .collect();
    // A lone trailing character carries no whole byte: PHP drops it.
    let usable = clean.len() - usize::from(clean.len() % 4 == 1);
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireNone),
    );
    engine.decode(&clean[..usable]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_formats_round_trip_others_dropped() {
        assert_eq!(
            stored("data:image/jpg;base64,iVBO Rw0K").as_deref(),
            Some("data:image/jpeg;base64,iVBORw0K")
        );
        assert_eq!(stored("data:image/svg+xml;base64,PHN2Zz4="), None);
        assert_eq!(stored("data:image/gif;base64,R0lGOD=="), None);
        assert_eq!(stored("https://example.org/icon.png"), None);
    }
}
