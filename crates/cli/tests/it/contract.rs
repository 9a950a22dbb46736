//! The wire contract: every JSON document of a built snapshot, and every JSON answer of
//! `eggcat serve` (problems, `/healthz`, `/readyz`, the status with `lastRebuild`), validated
//! against the OpenAPI document the server itself serves at `/api/v1/openapi.json`, with a JSON
//! Schema 2020-12 validator (`boon`).
//!
//! The schema of a document is found the way a client would find it: the path template of
//! `paths` that matches the URL (a literal path before a templated one), the response for the
//! method and status, the schema for the media type. `$ref`s resolve against the whole OpenAPI
//! document. A JSON file of the snapshot that no path maps to a schema is a failure, so a new
//! document cannot be published without its contract.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use boon::{Compiler, Draft, SchemaIndex, Schemas};
use eggcat_server::{App, AppOptions};
use http_body_util::BodyExt;
use serde_json::Value;

use crate::support::*;

/// Where the OpenAPI document is registered for the validator: any absolute URL will do, it is
/// never fetched (boon loads only what is added, or `file:` URLs).
const OPENAPI_URL: &str = "https://eggcat.invalid/api/v1/openapi.json";

/// The served OpenAPI document, compiled on demand: one compiled schema per response schema.
struct Contract {
    openapi: Value,
    compiler: Compiler,
    schemas: Schemas,
    compiled: HashMap<String, SchemaIndex>,
}

/// One answer of the server: status, media type (without parameters), body.
struct Answer {
    status: u16,
    media: String,
    body: Vec<u8>,
}

fn request(app: &App, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut req = http::Request::builder().method(method).uri(path);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let response = app.handle(&req.body(()).unwrap());
    let status = response.status().as_u16();
    let media = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|v| {
            v.to_str()
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim()
                .to_owned()
        })
        .unwrap_or_default();
    let body = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(response.into_body().collect())
        .unwrap()
        .to_bytes()
        .to_vec();
    Answer {
        status,
        media,
        body,
    }
}

/// `s` as a JSON pointer token inside a URI fragment.
fn pointer_token(s: &str) -> String {
    s.replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

impl Contract {
    /// The OpenAPI document as `app` serves it.
    fn served_by(app: &App) -> Contract {
        let answer = request(app, "GET", "/api/v1/openapi.json", &[]);
        assert_eq!(answer.status, 200);
        Contract::of(serde_json::from_slice(&answer.body).unwrap())
    }

    /// The contract of an OpenAPI document.
    fn of(openapi: Value) -> Contract {
        assert!(
            openapi["openapi"].as_str().unwrap().starts_with("3.1"),
            "OpenAPI 3.1: its schemas are JSON Schema 2020-12"
        );
        let mut compiler = Compiler::new();
        compiler.set_default_draft(Draft::V2020_12);
        compiler.add_resource(OPENAPI_URL, openapi.clone()).unwrap();
        Contract {
            openapi,
            compiler,
            schemas: Schemas::new(),
            compiled: HashMap::new(),
        }
    }

    /// The key of `paths` that `url_path` matches: the literal one, else the one whose
    /// `{param}` segments each match one non-empty segment (with the rest of the segment
    /// literal, as `{slug}.json`).
    fn template(&self, url_path: &str) -> Option<String> {
        let paths = self.openapi["paths"].as_object().unwrap();
        if paths.contains_key(url_path) {
            return Some(url_path.to_owned());
        }
        let segments: Vec<&str> = url_path.split('/').collect();
        let matches = |template: &str| {
            let parts: Vec<&str> = template.split('/').collect();
            parts.len() == segments.len()
                && parts.iter().zip(&segments).all(|(t, s)| match t.find('{') {
                    None => t == s,
                    Some(open) => {
                        let close = t.find('}').unwrap();
                        let (prefix, suffix) = (&t[..open], &t[close + 1..]);
                        s.len() > prefix.len() + suffix.len()
                            && s.starts_with(prefix)
                            && s.ends_with(suffix)
                    }
                })
        };
        // The most specific template wins: `/api/v1/eggs/{slug}.json` over `/api/v1/eggs/{slug}`
        // for `x.json` (a slug holds no dot), as a router would pick it.
        let literal = |t: &str| t.len() - t.find('{').map_or(0, |o| t.find('}').unwrap() + 1 - o);
        let mut found: Vec<&String> = paths.keys().filter(|t| matches(t)).collect();
        found.sort_by_key(|t| std::cmp::Reverse(literal(t)));
        if let [first, second, ..] = found[..] {
            assert!(
                literal(first) > literal(second),
                "{url_path} matches several paths alike: {found:?}"
            );
        }
        found.first().map(|t| (*t).clone())
    }

    /// Where the schema of the answer lives, as a URL with a JSON pointer fragment.
    fn schema_location(
        &self,
        url_path: &str,
        method: &str,
        status: u16,
        media: &str,
    ) -> Result<String, String> {
        let template = self
            .template(url_path)
            .ok_or_else(|| format!("{url_path}: no path of the OpenAPI matches"))?;
        let responses = &self.openapi["paths"][&template][method]["responses"];
        let mut pointer = format!(
            "/paths/{}/{method}/responses/{status}",
            pointer_token(&template)
        );
        let mut response = responses
            .get(status.to_string())
            .ok_or_else(|| format!("{url_path}: {template} has no {method} response {status}"))?;
        if let Some(target) = response.get("$ref").and_then(Value::as_str) {
            pointer = target.trim_start_matches('#').to_owned();
            response = self.openapi.pointer(&pointer).ok_or_else(|| {
                format!("{url_path}: the response {target} is not in the document")
            })?;
        }
        if response["content"]
            .get(media)
            .and_then(|c| c.get("schema"))
            .is_none()
        {
            return Err(format!(
                "{url_path}: the {status} response of {template} has no schema for {media}"
            ));
        }
        Ok(format!(
            "{OPENAPI_URL}#{pointer}/content/{}/schema",
            pointer_token(media)
        ))
    }

    /// Validates a JSON body answered for `method url_path` with `status` and `media`.
    fn check(
        &mut self,
        url_path: &str,
        method: &str,
        status: u16,
        media: &str,
        body: &[u8],
    ) -> Result<(), String> {
        let location = self.schema_location(url_path, method, status, media)?;
        let value: Value =
            serde_json::from_slice(body).map_err(|e| format!("{url_path}: not JSON: {e}"))?;
        self.check_value(url_path, &location, &value)
    }

    /// The schema at `location`, compiled once: an error when it, or a schema it refers to,
    /// does not compile (a `$ref` to a schema the document lacks, ...).
    fn compile(&mut self, location: &str) -> Result<SchemaIndex, String> {
        if let Some(index) = self.compiled.get(location) {
            return Ok(*index);
        }
        let index = self
            .compiler
            .compile(location, &mut self.schemas)
            .map_err(|e| format!("{location} does not compile: {e:#}"))?;
        self.compiled.insert(location.to_owned(), index);
        Ok(index)
    }

    /// Every schema of the document: those of `components.schemas`, and those written in the
    /// responses of `paths` and `components.responses`; compiled, with the failures.
    fn compile_all(&mut self) -> (Vec<String>, usize) {
        let mut locations = Vec::new();
        for name in self.openapi["components"]["schemas"]
            .as_object()
            .unwrap()
            .keys()
        {
            locations.push(format!("/components/schemas/{}", pointer_token(name)));
        }
        let mut responses: Vec<(String, &Value)> = Vec::new();
        for (path, item) in self.openapi["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for (status, response) in operation["responses"].as_object().into_iter().flatten() {
                    let at = format!("/paths/{}/{method}/responses/{status}", pointer_token(path));
                    responses.push((at, response));
                }
            }
        }
        for (name, response) in self.openapi["components"]["responses"].as_object().unwrap() {
            responses.push((
                format!("/components/responses/{}", pointer_token(name)),
                response,
            ));
        }
        for (at, response) in responses {
            for (media, content) in response["content"].as_object().into_iter().flatten() {
                if content.get("schema").is_some() {
                    locations.push(format!("{at}/content/{}/schema", pointer_token(media)));
                }
            }
        }
        let mut failures = Vec::new();
        for location in &locations {
            failures.extend(self.compile(&format!("{OPENAPI_URL}#{location}")).err());
        }
        (failures, locations.len())
    }

    fn check_value(&mut self, what: &str, location: &str, value: &Value) -> Result<(), String> {
        let index = self.compile(location).unwrap_or_else(|e| panic!("{e}"));
        self.schemas
            .validate(value, index)
            .map_err(|e| format!("{what} breaks {location}:\n{e:#}"))
    }

    /// Validates a served answer as the OpenAPI describes `method url_path`.
    fn check_answer(
        &mut self,
        method: &str,
        url_path: &str,
        answer: &Answer,
    ) -> Result<(), String> {
        let path_only = url_path.split('?').next().unwrap();
        self.check(
            path_only,
            &method.to_ascii_lowercase(),
            answer.status,
            &answer.media,
            &answer.body,
        )
    }

    /// Validates every JSON file of a snapshot as the answer to its `GET`; returns the failures
    /// and how many files were checked. A JSON file no path covers is a failure.
    fn check_snapshot(&mut self, files: &BTreeMap<String, Vec<u8>>) -> (Vec<String>, usize) {
        let mut failures = Vec::new();
        let mut checked = 0;
        for (path, bytes) in files {
            if !path.ends_with(".json") {
                continue;
            }
            checked += 1;
            if let Err(e) = self.check(&format!("/{path}"), "get", 200, "application/json", bytes) {
                failures.push(e);
            }
        }
        (failures, checked)
    }
}

fn assert_none(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} documents break the OpenAPI, the first ones:\n\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

fn app() -> Arc<App> {
    App::new(&AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap()
}

fn install(app: &std::sync::Arc<App>, data: &Path) {
    crate::support::install_current(app, data);
}

/// The served JSON answers that do not depend on the catalog's content: a server with no
/// catalog yet (`503`), then with one (`/healthz`, `/readyz`, `405`, `412`, `400`, `404`), then
/// after a failed rebuild (`_status.json` with `lastRebuild`). Returns the failures.
fn check_served(contract: &mut Contract, data: &Path, slug: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let mut check = |contract: &mut Contract,
                     app: &App,
                     method: &str,
                     path: &str,
                     headers: &[(&str, &str)],
                     status: u16| {
        let answer = request(app, method, path, headers);
        if answer.status != status {
            failures.push(format!(
                "{method} {path}: status {} where the test expects {status}",
                answer.status
            ));
        } else if let Err(e) = contract.check_answer(method, path, &answer) {
            failures.push(e);
        }
    };
    let empty = app();
    check(contract, &empty, "GET", "/readyz", &[], 503);
    check(
        contract,
        &empty,
        "GET",
        "/api/v1/eggs/_index.json",
        &[],
        503,
    );
    check(contract, &empty, "GET", "/healthz", &[], 200);

    let app = app();
    install(&app, data);
    check(contract, &app, "GET", "/healthz", &[], 200);
    check(contract, &app, "GET", "/readyz", &[], 200);
    check(contract, &app, "GET", "/api/v1/eggs", &[], 200);
    check(contract, &app, "GET", "/api/v1/eggs?fields=name", &[], 200);
    check(contract, &app, "GET", "/api/v1/eggs?fields=nope", &[], 400);
    check(
        contract,
        &app,
        "GET",
        &format!("/api/v1/eggs/{slug}"),
        &[],
        200,
    );
    check(
        contract,
        &app,
        "GET",
        "/api/v1/eggs/no-such-egg.json",
        &[],
        404,
    );
    check(contract, &app, "GET", "/api/v1/eggs/no-such-egg", &[], 404);
    check(
        contract,
        &app,
        "GET",
        "/api/v1/eggs/no-such-egg/pelican.json",
        &[],
        404,
    );
    check(contract, &app, "GET", "/api/v1/eggs/a%00b.json", &[], 400);
    check(
        contract,
        &app,
        "GET",
        "/api/v1/eggs/_index.json",
        &[("if-match", "\"nope\"")],
        412,
    );
    // 405 is described once, for every path (the document's description says so).
    let answer = request(&app, "POST", "/api/v1/eggs/_index.json", &[]);
    if answer.status != 405 {
        failures.push(format!("POST: status {}", answer.status));
    } else {
        let location = format!(
            "{OPENAPI_URL}#/components/responses/MethodNotAllowed/content/{}/schema",
            pointer_token(&answer.media)
        );
        let value: Value = serde_json::from_slice(&answer.body).unwrap();
        if let Err(e) = contract.check_value("POST 405", &location, &value) {
            failures.push(e);
        }
    }
    app.rebuild_failed("fetch of every source failed", 1_900_000_000_000);
    let answer = request(&app, "GET", "/api/v1/_status.json", &[]);
    let status: Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(status["lastRebuild"]["outcome"], "failed", "{status}");
    let answer_ok = contract.check_answer("GET", "/api/v1/_status.json", &answer);
    failures.extend(answer_ok.err());
    failures
}

/// A PTDL_v2 egg whose `file_denylist` is one string, as upstream's pelican-eggs/eggs `krypton`.
fn egg_with_string_denylist() -> String {
    egg_json("Krypton").replace(
        "\"variables\": []",
        "\"file_denylist\": \"config.json\", \"variables\": []",
    )
}

#[test]
fn every_document_and_answer_of_a_test_catalog_keeps_the_served_openapi() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("krypton/egg-krypton.json", egg_with_string_denylist())
        .write("gone/egg-gone.json", egg_json("Gone"))
        .write("yolk/egg-yolk.yaml", egg_yaml("Yolk"));
    repo.commit("three eggs");
    let data = tmp.path().join("data");
    let clock = Clock::new(1_763_000_000_000);
    let sources = vec![source(&repo.url(), "o", "eggs")];
    build(&data, sources.clone(), &clock);
    repo.remove("gone/egg-gone.json");
    repo.commit("one gone");
    let out = build(&data, sources, &clock);
    let removed: Value =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_removed.json"]).unwrap();
    assert_eq!(removed[0]["slug"], "eggs-gone", "{removed}");
    let krypton = egg_doc(&out, "eggs-krypton");
    assert!(krypton["egg"]["file_denylist"].is_string(), "{krypton}");

    let app = app();
    install(&app, &data);
    let mut contract = Contract::served_by(&app);
    let (mut failures, checked) = contract.check_snapshot(&out.snapshot.files);
    assert!(checked > 10, "{checked} JSON files");
    failures.extend(check_served(&mut contract, &data, "eggs-krypton"));
    for path in [
        "/api/v1/eggs/eggs-gone.json",
        "/api/v1/eggs/eggs-gone",
        "/api/v1/eggs/eggs-gone/history.json",
        "/eggs/eggs-gone/",
    ] {
        let answer = request(&app, "GET", path, &[]);
        assert_eq!(answer.status, 410, "{path}");
        failures.extend(contract.check_answer("GET", path, &answer).err());
    }
    assert_none(&failures);
}

#[test]
fn every_document_of_the_demo_keeps_the_served_openapi() {
    let source = demo_source();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // As `demo/eggcat.toml` builds it: some of its eggs are older than the history read.
    let out = try_build_with(
        &data,
        vec![source],
        &Clock::new(1_767_225_600_000),
        demo_limits(),
    )
    .unwrap();
    let app = app();
    install(&app, &data);
    let mut contract = Contract::served_by(&app);
    let (mut failures, checked) = contract.check_snapshot(&out.snapshot.files);
    let eggs = out.report.eggs;
    // Per egg: its document, two import files and its history; plus the catalog-wide ones.
    assert!(
        checked >= 4 * eggs + 7,
        "{checked} JSON files for {eggs} eggs"
    );
    failures.extend(check_served(&mut contract, &data, "demo-eggs-python"));
    assert_none(&failures);
}

#[test]
fn every_document_of_the_shared_corpus_keeps_the_served_openapi() {
    let Some(shared) = shared_upstream() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sources = shared_sources(&shared, tmp.path());
    let data = tmp.path().join("data");
    let out = build(&data, sources, &Clock::new(1_763_000_000_000));
    let app = app();
    install(&app, &data);
    let mut contract = Contract::served_by(&app);
    let (failures, checked) = contract.check_snapshot(&out.snapshot.files);
    let eggs = out.report.eggs;
    assert!(eggs > 500, "{eggs} eggs");
    // Per egg at least its document and its history (import files only where one could be
    // written); plus the catalog-wide ones.
    assert!(
        checked >= 2 * eggs + 7,
        "{checked} JSON files for {eggs} eggs"
    );
    assert_none(&failures);
}

/// The validator is live: a document that breaks its schema in one field fails, and a JSON file
/// no path describes fails as uncovered.
#[test]
fn the_contract_check_fails_on_a_broken_or_unknown_document() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("a/egg-a.json", egg_json("A"));
    repo.commit("one egg");
    let data = tmp.path().join("data");
    let out = build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(0),
    );
    let app = app();
    install(&app, &data);
    let mut contract = Contract::served_by(&app);
    let (failures, _) = contract.check_snapshot(&out.snapshot.files);
    assert_none(&failures);

    let mut broken = out.snapshot.files.clone();
    let path = "api/v1/eggs/eggs-a.json".to_owned();
    let mut doc: Value = serde_json::from_slice(&broken[&path]).unwrap();
    doc["meta"]["indexedAt"] = Value::from("yesterday");
    broken.insert(path.clone(), serde_json::to_vec(&doc).unwrap());
    broken.insert("api/v1/eggs/eggs-a/new.json".into(), b"{}".to_vec());
    let (failures, _) = contract.check_snapshot(&broken);
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(
        failures[0].contains("/api/v1/eggs/eggs-a.json breaks"),
        "{}",
        failures[0]
    );
    assert!(failures[0].contains("indexedAt"), "{}", failures[0]);
    assert!(
        failures[1].contains("no path of the OpenAPI matches"),
        "{}",
        failures[1]
    );
}

/// Every schema of the served OpenAPI compiles, so every `$ref` in it names a schema of the
/// document: the hand-written part's references to the schemas generated from the types, and
/// the generated schemas' own. A schema dropped or renamed on either side fails here, and not
/// only once a document happens to reach it.
#[test]
fn every_schema_of_the_served_openapi_compiles() {
    let mut contract = Contract::served_by(&app());
    let schemas = contract.openapi["components"]["schemas"]
        .as_object()
        .unwrap()
        .len();
    let (failures, compiled) = contract.compile_all();
    assert_none(&failures);
    assert!(
        compiled > schemas + 30,
        "{compiled} schemas compiled, {schemas} of them named"
    );

    // The check is live: without the generated `EggMeta`, `EggDetail` refers to nothing.
    let mut openapi = contract.openapi.clone();
    let schemas = openapi["components"]["schemas"].as_object_mut().unwrap();
    assert!(schemas.remove("EggMeta").is_some());
    let (failures, _) = Contract::of(openapi).compile_all();
    assert!(
        !failures.is_empty() && failures.iter().all(|f| f.contains("EggMeta")),
        "{failures:#?}"
    );
}

/// The field tables of docs/catalog-format.md that describe published schemas of the OpenAPI:
/// each table by its heading (the whole line) and its place under that heading (0: the first),
/// with the schemas whose members it names.
const DOCUMENTED: &[(&str, usize, &[&str])] = &[
    ("## 7. `meta`", 0, &["EggMeta"]),
    (
        "### `import`",
        0,
        &["Imports", "PanelImport", "DatabaseFiles"],
    ),
    ("### `diagnostics`", 0, &["Diagnostic"]),
    ("### `images` and `runsOn`", 0, &["ImageInfo"]),
    ("### `downloads`", 0, &["DownloadInfo"]),
    (
        "## 8. The egg document (`api/v1/eggs/<slug>.json`)",
        0,
        &["EggDetail"],
    ),
    ("## 9. The index (`_index.json`)", 0, &["EggListItem"]),
    (REPORT, 0, &["BuildReport"]),
    (REPORT, 1, &["SourceReport"]),
    (REPORT, 2, &["SourceProblem"]),
    (REPORT, 3, &["DiagnosticCounts"]),
    (REPORT, 4, &["ImagesReport"]),
    (REPORT, 5, &["MissingImage"]),
    (REPORT, 6, &["DownloadsReport"]),
    (REPORT, 7, &["MissingDownload"]),
    ("### `lastRebuild` (served only)", 0, &["LastRebuild"]),
    ("## 15. Removed eggs (`_removed.json`)", 0, &["RemovedEgg"]),
    (
        "## 17. Panel egg indexes (`api/v1/compat/`)",
        0,
        &["CompatIndex"],
    ),
    (
        "## 18. The search summary (`_summary.json`)",
        0,
        &["SummaryItem", "Importable", "NameForms"],
    ),
    (HISTORY, 0, &["EggHistory", "HistorySince"]),
    (HISTORY, 1, &["EggVersion"]),
    (HISTORY, 2, &["EggChange"]),
    (HISTORY, 3, &["ScriptDiff"]),
];
const REPORT: &str = "## 11. The build report (`api/v1/_status.json`)";
const HISTORY: &str = "## 20. Egg history (`api/v1/eggs/<slug>/history.json`)";

/// The schemas of the OpenAPI that catalog-format.md does not describe field by field, and why.
const NOT_IN_CATALOG_FORMAT: &[(&str, &str)] = &[
    ("Egg", "the upstream egg, published as upstream wrote it"),
    ("EggVariable", "a variable of the upstream egg"),
    ("PanelEgg", "the panels' own export format (docs/panels.md)"),
    ("Problem", "an answer of eggcat serve (docs/api.md)"),
    (
        "ProblemDocument",
        "the problem answers' members, refined by Problem and GoneProblem",
    ),
    ("GoneProblem", "an answer of eggcat serve (docs/api.md)"),
    ("Health", "an answer of eggcat serve (docs/api.md)"),
    ("Ready", "an answer of eggcat serve (docs/api.md)"),
    ("HealthStatus", "a string enum of Health"),
    ("ReadyStatus", "a string enum of Ready"),
    ("ReadyProblem", "a member of Ready"),
    ("ReadyProblemCode", "a string enum of ReadyProblem"),
    (
        "RebuildOutcome",
        "a string enum, its one value in `lastRebuild`'s table",
    ),
    ("OpenApiDocument", "the OpenAPI document itself"),
    ("EggIndex", "an array of EggListItem"),
    ("EggNames", "an array of strings"),
    (
        "ImageStatus",
        "a string enum, its values in section 7's `images` table",
    ),
    (
        "DownloadKind",
        "a string enum, its values in section 7's `downloads` table",
    ),
    ("RemovedList", "an array of RemovedEgg"),
    (
        "UpdateCheckMd5",
        "`pelicanUpdateCheckMd5`'s three hashes, in its row of section 20's version table",
    ),
    ("Summary", "an array of SummaryItem"),
    ("SourceStatus", "a string"),
    (
        "ImageRole",
        "a string enum, its values in section 7's `images` table",
    ),
    (
        "Severity",
        "a string enum, its values in section 7's `diagnostics` table",
    ),
    (
        "ChangeKind",
        "a string enum, its values in docs/diff.md (section 20 links there)",
    ),
    (
        "VersionEvent",
        "a string enum, its values in section 20's `event` row",
    ),
];

/// Headings whose field tables describe no schema: `state.json` is not published.
const NO_SCHEMA_HEADINGS: &[&str] = &["## 14. Snapshot state (`state.json`, not published)"];

/// The field tables of a Markdown document (tables whose first column is `Field`), by heading
/// and place under it: the member names each row's first cell names in backticks, a dotted
/// name (`importable.pelican`, `egg.meta.version`, `*.problems`, `sources[].key`) naming each
/// of its parts.
fn field_tables(doc: &str) -> BTreeMap<(String, usize), BTreeSet<String>> {
    let mut tables = BTreeMap::new();
    let (mut heading, mut under, mut in_table) = (String::new(), 0, false);
    for line in doc.lines() {
        if line.starts_with('#') {
            (heading, under, in_table) = (line.trim().to_owned(), 0, false);
        } else if line.starts_with("| Field |") {
            tables.insert((heading.clone(), under), BTreeSet::new());
            (under, in_table) = (under + 1, true);
        } else if in_table && line.starts_with('|') {
            let first = line.split('|').nth(1).unwrap_or("");
            let names = tables.get_mut(&(heading.clone(), under - 1)).unwrap();
            for token in first.split('`').skip(1).step_by(2) {
                for part in token.split('.') {
                    let part = part.trim_end_matches("[]");
                    if !part.is_empty() && part != "*" {
                        names.insert(part.to_owned());
                    }
                }
            }
        } else {
            in_table = false;
        }
    }
    tables
}

/// The member names of a schema: its properties, and those of the objects and arrays written
/// inside it (a `$ref` is another schema's, not followed).
fn schema_members(schema: &Value, into: &mut BTreeSet<String>) {
    if let Some(props) = schema["properties"].as_object() {
        for (name, s) in props {
            into.insert(name.clone());
            schema_members(s, into);
        }
    }
    if schema["items"].is_object() {
        schema_members(&schema["items"], into);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for s in schema[key].as_array().into_iter().flatten() {
            schema_members(s, into);
        }
    }
}

/// What does not agree between the field tables of `doc` and the schemas of `openapi`: a
/// member a table lacks or names in vain, a schema neither documented nor set aside, a field
/// table no schema is listed for, a listed table that is not there.
fn catalog_format_disagreements(doc: &str, openapi: &Value) -> Vec<String> {
    let schemas = openapi["components"]["schemas"].as_object().unwrap();
    let tables = field_tables(doc);
    let mut failures = Vec::new();
    for name in schemas.keys() {
        let documented = DOCUMENTED
            .iter()
            .any(|(_, _, s)| s.contains(&name.as_str()));
        let elsewhere = NOT_IN_CATALOG_FORMAT.iter().any(|(s, _)| s == name);
        if documented == elsewhere {
            failures.push(format!(
                "schema {name}: listed {} (list it once, in DOCUMENTED or NOT_IN_CATALOG_FORMAT)",
                if documented { "twice" } else { "nowhere" }
            ));
        }
    }
    for (heading, place, names) in DOCUMENTED {
        let Some(doc_names) = tables.get(&(heading.to_string(), *place)) else {
            failures.push(format!("no field table {place} under `{heading}`"));
            continue;
        };
        let mut members = BTreeSet::new();
        for name in *names {
            match schemas.get(*name) {
                Some(s) => schema_members(s, &mut members),
                None => failures.push(format!("no schema {name} in the OpenAPI")),
            }
        }
        for m in members.difference(doc_names) {
            failures.push(format!(
                "`{m}` of {names:?} is not in field table {place} under `{heading}`"
            ));
        }
        for m in doc_names.difference(&members) {
            failures.push(format!(
                "field table {place} under `{heading}` names `{m}`, which {names:?} do not have"
            ));
        }
    }
    for (heading, place) in tables.keys() {
        let listed = DOCUMENTED
            .iter()
            .any(|(h, p, _)| h == heading && p == place);
        if !listed && !NO_SCHEMA_HEADINGS.contains(&heading.as_str()) {
            failures.push(format!(
                "field table {place} under `{heading}` is listed for no schema"
            ));
        }
    }
    failures
}

fn catalog_format() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/catalog-format.md"),
    )
    .unwrap()
}

/// The OpenAPI document as the server serves it: the hand-written part with the schemas
/// generated from the types.
fn openapi_served() -> Value {
    Contract::served_by(&app()).openapi
}

/// docs/catalog-format.md, a hand-written description of the published documents, names every
/// member of every published schema of the OpenAPI in its field tables, and no other.
#[test]
fn catalog_format_md_names_every_member_of_the_published_schemas_and_no_other() {
    assert_none(&catalog_format_disagreements(
        &catalog_format(),
        &openapi_served(),
    ));
}

/// The check is live: a member left out of the doc, a field the schema lacks, a new schema and
/// an unlisted field table each fail.
#[test]
fn the_catalog_format_check_fails_on_each_kind_of_drift() {
    let (doc, mut openapi) = (catalog_format(), openapi_served());
    let row = "| `sha256` | string |";
    assert!(doc.contains(row));
    let missing = doc.replacen(row, "| sha-256 | string |", 1);
    let f = catalog_format_disagreements(&missing, &openapi);
    assert!(
        f.len() == 1 && f[0].contains("`sha256` of [\"EggMeta\"]"),
        "{f:#?}"
    );
    let extra = doc.replacen(row, "| `sha512` | string | x |\n| `sha256` | string |", 1);
    let f = catalog_format_disagreements(&extra, &openapi);
    assert!(f.len() == 1 && f[0].contains("names `sha512`"), "{f:#?}");
    let unlisted = format!("{doc}\n## 99. New\n\n| Field | Type |\n|---|---|\n| `x` | y |\n");
    let f = catalog_format_disagreements(&unlisted, &openapi);
    assert!(f.len() == 1 && f[0].contains("## 99. New"), "{f:#?}");
    openapi["components"]["schemas"]["Brand"] = serde_json::json!({"type": "object"});
    let f = catalog_format_disagreements(&doc, &openapi);
    assert!(f.len() == 1 && f[0].contains("schema Brand"), "{f:#?}");
}
