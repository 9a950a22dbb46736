//! The two keys a rebuild compares with the previous snapshot's: the derivation (what code and
//! options derive files from upstream files) and the inputs (the derivation plus every
//! configured source, in order).

use eggcat_catalog::SourceInfo;

include!(concat!(env!("OUT_DIR"), "/derivation.rs"));

/// The fingerprint of the code that derives anything from an upstream file (`build.rs`: the
/// deriving crates and `Cargo.lock`) with the `base_url` the files carry. A snapshot made under
/// another derivation is never a source of reused parses, diagnostics or files, so an upgrade of
/// eggcat or a new `base_url` makes them all anew.
pub(crate) fn derivation(base_url: &str) -> String {
    format!("{DERIVATION_CODE} {base_url}")
}

/// The derivation and every configured source (its key, label, owner, repo, URL template, in
/// configuration order): a snapshot whose state holds the same inputs, and whose sources are all
/// unchanged upstream, is what this rebuild would publish, but for its times.
pub(crate) fn inputs(derivation: &str, sources: &[SourceInfo]) -> String {
    // FNV-1a over the fields, each ended by a NUL: the same on every run and every machine.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let fields = sources.iter().flat_map(|s| {
        [&s.key, &s.url, &s.label, &s.owner, &s.repo, &s.raw_url].map(String::as_str)
    });
    for field in std::iter::once(derivation).chain(fields) {
        for b in field.bytes().chain([0]) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}
