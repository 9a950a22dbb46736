//! The two keys a rebuild compares with the previous snapshot's: the derivation (what code and
//! options derive files from upstream files) and the inputs (the derivation plus every
//! configured source, in order).

use eggcat_catalog::SourceInfo;
use eggcat_upstream::HistoryDepth;

include!(concat!(env!("OUT_DIR"), "/derivation.rs"));

/// The fingerprint of the code that derives anything from an upstream file (`build.rs`: the
/// deriving crates and `Cargo.lock`) with the `base_url` the files carry. A snapshot made under
/// another derivation is never a source of reused parses, diagnostics or files, so an upgrade of
/// eggcat or a new `base_url` makes them all anew. The history depth is part of it too: the
/// eggs' histories are derived from as much history as it fetches, so a new depth fetches every
/// source again, even one whose tip did not move.
pub(crate) fn derivation(base_url: &str, history: HistoryDepth) -> String {
    format!("{DERIVATION_CODE} {base_url} history={history:?}")
}

/// The derivation, every configured source (its key, label, owner, repo, URL template, in
/// configuration order) and what the registries said of the catalog's images (`images`, their
/// findings as one text): a snapshot whose state holds the same inputs, and whose sources are
/// all unchanged upstream, is what this rebuild would save, but for its times.
pub(crate) fn inputs(derivation: &str, sources: &[SourceInfo], images: &str) -> String {
    // FNV-1a over the fields, each ended by a NUL: the same on every run and every machine.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let fields = sources.iter().flat_map(|s| {
        [&s.key, &s.url, &s.label, &s.owner, &s.repo, &s.raw_url].map(String::as_str)
    });
    let fields = fields.chain(std::iter::once(images));
    for field in std::iter::once(derivation).chain(fields) {
        for b in field.bytes().chain([0]) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(repo: &str) -> SourceInfo {
        SourceInfo {
            key: format!("https://git.example/o/{repo}#"),
            url: format!("https://git.example/o/{repo}"),
            label: "o".to_owned(),
            owner: "o".to_owned(),
            repo: repo.to_owned(),
            raw_url: "https://raw.example/{owner}/{repo}/{branch}/{path}".to_owned(),
        }
    }

    #[test]
    fn the_inputs_change_with_the_code_the_options_and_every_source_field() {
        let d = derivation("https://eggcat.example", HistoryDepth::default());
        assert!(d.starts_with(DERIVATION_CODE));
        let sources = vec![source("a"), source("b")];
        let key = inputs(&d, &sources, "");
        assert_eq!(
            key,
            inputs(&d, &sources.clone(), ""),
            "the same inputs, the same key"
        );
        assert_ne!(
            key,
            inputs(
                &derivation("https://other.example", HistoryDepth::default()),
                &sources,
                ""
            )
        );
        assert_ne!(
            key,
            inputs(
                &derivation("https://eggcat.example", HistoryDepth::Commits(5)),
                &sources,
                ""
            ),
            "a new history depth"
        );
        assert_ne!(
            key,
            inputs("0000000000000000 https://eggcat.example", &sources, "")
        );
        let reversed: Vec<SourceInfo> = sources.iter().rev().cloned().collect();
        assert_ne!(
            key,
            inputs(&d, &reversed, ""),
            "the report lists sources in this order"
        );
        let edits: [fn(&mut SourceInfo); 6] = [
            |s| s.key.push('x'),
            |s| s.url.push('x'),
            |s| s.label.push('x'),
            |s| s.owner.push('x'),
            |s| s.repo.push('x'),
            |s| s.raw_url.push('x'),
        ];
        for edit in edits {
            let mut edited = sources.clone();
            edit(&mut edited[1]);
            assert_ne!(key, inputs(&d, &edited, ""));
        }
        // Fields are kept apart: moving a character from one field to the next is another key.
        let mut moved = sources.clone();
        moved[0].label = "o/".to_owned();
        moved[0].owner = String::new();
        let mut other = sources.clone();
        other[0].label = "o".to_owned();
        other[0].owner = "/".to_owned();
        assert_ne!(inputs(&d, &moved, ""), inputs(&d, &other, ""));
        assert_ne!(
            key,
            inputs(&d, &sources, "{\"ghcr.io/x/y:1\":{\"status\":\"missing\"}}"),
            "what the registries said of the images"
        );
    }
}
