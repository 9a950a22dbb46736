//! One egg's import files (`pelican.yaml`, `pelican.json`, `pterodactyl.json` under
//! `api/v1/eggs/{slug}/`) and what `meta.import` says of them. The conversions and the panels'
//! import rules live in `eggcat_panels`; this module places the files and names their URLs.

use serde_json::Value;

use crate::paths::{self, import};
use crate::wire::{Imports, PanelImport};

/// The import files of one egg, by published path, and its `meta.import`.
#[derive(Debug)]
pub(crate) struct EggImports {
    pub(crate) meta: Imports,
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

/// Converts `egg` (the upstream egg, parsed) for both panels. `base_url` has no trailing slash;
/// `exported_at` is the `exported_at` the files carry (the panels' update check ignores it).
pub(crate) fn import_files(
    egg: &Value,
    slug: &str,
    uuid: &str,
    base_url: &str,
    exported_at: &str,
) -> EggImports {
    let url = |name: &str| format!("{base_url}/{}", paths::egg_file(slug, name));
    let (yaml_url, json_url, ptdl_url) = (
        url(import::PELICAN_YAML),
        url(import::PELICAN_JSON),
        url(import::PTERODACTYL_JSON),
    );
    let target = eggcat_panels::Target {
        uuid,
        pelican_yaml_url: &yaml_url,
        pelican_json_url: &json_url,
        pterodactyl_url: &ptdl_url,
        exported_at,
    };
    let v = eggcat_panels::variants(egg, &target);
    let mut files = Vec::with_capacity(3);
    let mut place = |name: &str, bytes: Option<Vec<u8>>, url: String| {
        bytes.map(|b| {
            files.push((paths::egg_file(slug, name), b));
            url
        })
    };
    let pelican = PanelImport {
        yaml: place(import::PELICAN_YAML, v.pelican_yaml, yaml_url),
        json: place(import::PELICAN_JSON, v.pelican_json, json_url),
        importable: v.pelican.importable,
        problems: v.pelican.problems,
        losses: v.pelican.losses,
    };
    let pterodactyl = PanelImport {
        yaml: None,
        json: place(import::PTERODACTYL_JSON, v.pterodactyl_json, ptdl_url),
        importable: v.pterodactyl.importable,
        problems: v.pterodactyl.problems,
        losses: v.pterodactyl.losses,
    };
    EggImports {
        meta: Imports {
            pelican,
            pterodactyl,
        },
        files,
    }
}
