//! `eggcat validate --images`: what the image registries said of the images a file names, as
//! diagnostics on each image (`E062` missing, `E063` not known). Asking the registries is the
//! caller's IO (the `eggcat-images` crate, on request only); this is a pure function of the
//! file and the answers, placed in the source like every other finding.

use eggcat_egg::{ImageRole, SyntaxKind, downloads, images, parse_with_spans};

use crate::file::place_all;
use crate::vocab::{Code, Diagnostic, Finding};
use eggcat_wire::ImageReference;

/// What a registry said of one image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryAnswer {
    /// The registry has the manifest.
    Present,
    /// The registry says the name or the tag does not exist; why, in its words.
    Missing(String),
    /// No answer that tells: a timeout, a server error, a refusal; why.
    Unknown(String),
}

/// The diagnostics of what `answer` says of each image of the file at `path` (its name picks
/// JSON or YAML, as [`crate::check_file`]): `E062` for a missing image, `E063` for one that
/// could not be checked, nothing for a present one. `answer` gets each image as the file
/// writes it; an image it has no answer for, and a file that does not parse or a reference
/// that is not valid (the other checks report those), give nothing.
pub fn check_registry_answers(
    path: &str,
    bytes: &[u8],
    answer: &dyn Fn(&str) -> Option<RegistryAnswer>,
) -> Vec<Diagnostic> {
    let syntax = SyntaxKind::from_file_name(path).unwrap_or_else(|| {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => SyntaxKind::Json,
            _ => SyntaxKind::Yaml,
        }
    });
    let Ok((parsed, spans)) = parse_with_spans(bytes, syntax) else {
        return Vec::new();
    };
    let text = std::str::from_utf8(bytes).expect("the parser accepted it as UTF-8");
    let mut findings = Vec::new();
    for used in images(&parsed.value) {
        if ImageReference::parse(&used.image).is_err() {
            continue;
        }
        let what = match &used.role {
            ImageRole::Runtime(label) if *label != used.image => {
                format!("the image `{}` (`{label}`)", used.image)
            }
            ImageRole::Runtime(_) => format!("the image `{}`", used.image),
            ImageRole::Install => format!("the install container `{}`", used.image),
        };
        match answer(&used.image) {
            Some(RegistryAnswer::Missing(why)) => findings.push(
                Finding::new(
                    Code::ImageMissing,
                    used.pointer,
                    format!("{what} does not exist in its registry: {why}"),
                )
                .help("push the image, or point the egg at a tag that exists; a server installed from this egg fails with `manifest unknown`"),
            ),
            Some(RegistryAnswer::Unknown(why)) => findings.push(Finding::new(
                Code::ImageUnchecked,
                used.pointer,
                format!("{what} could not be checked: {why}"),
            )),
            Some(RegistryAnswer::Present) | None => {}
        }
    }
    place_all(text, &spans, findings)
}

/// `eggcat validate --downloads`: the diagnostics of what `answer` (given each URL asked)
/// says of each download of the file's install script that can be asked: `E064` for a
/// missing one, `E065` for one that could not be checked, placed on the script.
pub fn check_download_answers(
    path: &str,
    bytes: &[u8],
    answer: &dyn Fn(&str) -> Option<RegistryAnswer>,
) -> Vec<Diagnostic> {
    let syntax = SyntaxKind::from_file_name(path).unwrap_or_else(|| {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => SyntaxKind::Json,
            _ => SyntaxKind::Yaml,
        }
    });
    let Ok((parsed, spans)) = parse_with_spans(bytes, syntax) else {
        return Vec::new();
    };
    let text = std::str::from_utf8(bytes).expect("the parser accepted it as UTF-8");
    let mut findings = Vec::new();
    let pointer = "/scripts/installation/script";
    for d in downloads(&parsed.value) {
        let Some(url) = d.checkable() else { continue };
        let what = if url == d.url {
            format!(
                "the download `{url}` (line {} of the install script)",
                d.line
            )
        } else {
            format!(
                "the download `{}` (line {} of the install script), asked as `{url}` with the defaults,",
                d.url, d.line
            )
        };
        match answer(url) {
            Some(RegistryAnswer::Missing(why)) => findings.push(
                Finding::new(
                    Code::DownloadMissing,
                    pointer.to_owned(),
                    format!("{what} does not exist: {why}"),
                )
                .help("point the script at a URL that exists; a server installed from this egg fails there"),
            ),
            Some(RegistryAnswer::Unknown(why)) => findings.push(Finding::new(
                Code::DownloadUnchecked,
                pointer.to_owned(),
                format!("{what} could not be checked: {why}"),
            )),
            Some(RegistryAnswer::Present) | None => {}
        }
    }
    place_all(text, &spans, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_unknown_downloads_are_placed_on_the_script() {
        let egg = br#"{
  "meta": {"version": "PTDL_v2"},
  "variables": [{"env_variable": "V", "default_value": "1.0"}],
  "scripts": {"installation": {"script": "curl -o a https://h.example/gone.zip\ncurl -o b https://h.example/v${V}.zip\ncurl -o c https://h.example/ok.zip", "container": "alpine", "entrypoint": "ash"}}
}"#;
        let answer = |url: &str| match url {
            "https://h.example/gone.zip" => {
                Some(RegistryAnswer::Missing("the host answered 404".into()))
            }
            "https://h.example/v1.0.zip" => {
                Some(RegistryAnswer::Unknown("no answer within 10 s".into()))
            }
            _ => Some(RegistryAnswer::Present),
        };
        let diags = check_download_answers("egg-x.json", egg, &answer);
        let got: Vec<(&str, &str, Option<u32>)> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.pointer.as_str(), d.line))
            .collect();
        assert_eq!(
            got,
            [
                ("E064", "/scripts/installation/script", Some(4)),
                ("E065", "/scripts/installation/script", Some(4)),
            ]
        );
        assert_eq!(
            diags[0].message,
            "the download `https://h.example/gone.zip` (line 1 of the install script) does not exist: the host answered 404"
        );
        assert!(
            diags[1]
                .message
                .contains("asked as `https://h.example/v1.0.zip` with the defaults")
        );
    }

    #[test]
    fn missing_and_unknown_images_are_placed_on_their_values() {
        let egg = br#"{
  "meta": {"version": "PTDL_v2"},
  "docker_images": {"Java 21": "ghcr.io/x/gone:21", "ok": "alpine"},
  "scripts": {"installation": {"container": "quay.io/x/slow:1"}}
}"#;
        let answer = |image: &str| match image {
            "ghcr.io/x/gone:21" => Some(RegistryAnswer::Missing("manifest unknown".into())),
            "quay.io/x/slow:1" => Some(RegistryAnswer::Unknown("timed out".into())),
            _ => Some(RegistryAnswer::Present),
        };
        let diags = check_registry_answers("egg-x.json", egg, &answer);
        let got: Vec<(&str, &str, Option<u32>)> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.pointer.as_str(), d.line))
            .collect();
        assert_eq!(
            got,
            [
                ("E062", "/docker_images/Java 21", Some(3)),
                ("E063", "/scripts/installation/container", Some(4)),
            ]
        );
        assert_eq!(
            diags[0].message,
            "the image `ghcr.io/x/gone:21` (`Java 21`) does not exist in its registry: manifest unknown"
        );
    }
}
