//! Download health end to end (issue 38 §5): eggs whose install scripts name real-looking host
//! names, sent through the `resolve` override to nginx on loopback, run by the test as its own
//! process (`eggcat_testkit::nginx`) and serving HTTPS itself with a certificate from a test CA
//! that `openssl` makes (trusted through `ca_file`): files from a root folder (a file deleted
//! there is nginx's `404`), `return 410`, and a slow host (`limit_rate 64`: nginx sends even a
//! `HEAD`'s response head at 64 bytes a second, so it arrives after about 3 s). What the hosts
//! say reaches the egg documents, the egg page, the catalog card, the report, the status page
//! and `/metrics`; a file deleted on the server shows as missing at the first rebuild past its
//! answer's TTL, without any upstream commit; a slow host is `unknown`, never missing; `eggcat
//! validate --downloads` says E064 with exit code 1; the GitHub token reaches api.github.com
//! only (nginx's access log shows what each host was sent). Without nginx and `openssl` the
//! test says so on one line and checks nothing, unless `EGGCAT_REGISTRY_TESTS=require`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use eggcat_images::{Options, Resolution};
use eggcat_pipeline::BuildOptions;
use eggcat_upstream::Limits;
use serde_json::Value;

use eggcat_testkit::nginx::{self, Nginx};
use eggcat_testkit::tls::{self, Certificates};

use crate::support::*;

const HOSTS: [&str; 3] = ["files.example.com", "slow.example.org", "api.github.com"];

/// nginx serving HTTPS for [`HOSTS`] from `root` (which holds `files/a.zip` and `files/b.zip`).
fn start(work: &Path, root: &Path, certs: &Certificates) -> Nginx {
    std::fs::create_dir_all(root.join("files")).unwrap();
    for file in ["files/a.zip", "files/b.zip"] {
        std::fs::write(root.join(file), "hello").unwrap();
    }
    let bin = nginx::binary().expect("nginx is installed (checked by tls::tools)");
    let (root, cert, key) = (root.display(), certs.cert.display(), certs.key.display());
    Nginx::start(&bin, work, |port| {
        let listen = format!("listen 127.0.0.1:{port} ssl;");
        format!(
            r#"
  ssl_certificate {cert};
  ssl_certificate_key {key};
  server {{
    {listen}
    server_name files.example.com api.github.com;
    root {root};
    location = /gone {{ return 410; }}
  }}
  server {{
    {listen}
    server_name slow.example.org;
    root {root};
    limit_rate 64;
  }}"#
        )
    })
}

/// A PTDL_v2 egg whose install script runs `script`.
fn script_egg(name: &str, script: &str) -> String {
    serde_json::to_string_pretty(&serde_json::json!({
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": name,
        "author": "test@eggcat.invalid",
        "docker_images": {"Debian": "ghcr.io/parkervcp/yolks:debian"},
        "startup": "./run",
        "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": script, "container": "ghcr.io/parkervcp/installers:debian", "entrypoint": "bash"}},
        "variables": [],
    }))
    .unwrap()
}

fn options(repo: &Repo, ca: &Path, ttl: u64) -> BuildOptions {
    let images = Options {
        ttl: Duration::from_secs(ttl),
        timeout: Duration::from_secs(1),
        budget: Duration::from_secs(20),
        allow_internal: true,
        ca_file: Some(ca.to_path_buf()),
        resolve: HOSTS
            .iter()
            .map(|h| {
                (
                    (*h).to_owned(),
                    Resolution::Address("127.0.0.1".parse().unwrap()),
                )
            })
            .collect(),
        // The images are not what this test is about: their registry is skipped.
        skip: vec!["ghcr.io".to_owned()],
        ..Options::default()
    };
    BuildOptions {
        sources: vec![source(&repo.url(), "o", "eggs")],
        limits: Limits::default(),
        base_url: TEST_BASE_URL.to_owned(),
        images,
    }
}

/// `meta.downloads` of an egg as (checked URL, status).
fn downloads_of(out: &Outcome, slug: &str) -> Vec<(String, String)> {
    egg_doc(out, slug)["meta"]["downloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["checked"].as_str().unwrap_or_default().to_owned(),
                d["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn page(out: &Outcome, path: &str) -> String {
    String::from_utf8(out.snapshot.files[path].clone()).unwrap()
}

#[test]
fn what_the_hosts_say_reaches_the_documents_pages_report_metrics_and_validate() {
    if !tls::tools("downloads::*") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let certs = tls::certificates(tmp.path(), &HOSTS);
    let ca = certs.ca.clone();
    let root = tmp.path().join("root");
    let server = start(&tmp.path().join("nginx"), &root, &certs);
    let url = |host: &str, path: &str| format!("https://{host}:{}{path}", server.port);
    let (a, b, none, gone, slow) = (
        url("files.example.com", "/files/a.zip"),
        url("files.example.com", "/files/b.zip"),
        url("files.example.com", "/files/none.zip"),
        url("files.example.com", "/gone"),
        url("slow.example.org", "/files/a.zip"),
    );
    let script = format!(
        "#!/bin/bash\n# curl -o x {none} (a comment: not a download)\ncurl -sSL -o a.zip {a}\nwget -q {b} -O b.zip\ncurl -o n.zip \"{none}\"\ncurl -o g {gone}\ncurl -o s {slow}\n"
    );
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("a/egg-fetch.json", script_egg("Fetch", &script))
        .write(
            "b/egg-fine.json",
            script_egg("Fine", &format!("#!/bin/bash\ncurl -o a.zip {a}\n")),
        );
    repo.commit("eggs");
    let data = tmp.path().join("data");
    let clock = Clock::new(1_767_225_600_000);

    let first = rebuild_with(&data, &options(&repo, &ca, 3600), &clock).unwrap();
    let statuses = |out: &Outcome| downloads_of(out, "eggs-fetch");
    assert_eq!(
        statuses(&first),
        [
            (a.clone(), "present".to_owned()),
            (b.clone(), "present".to_owned()),
            (none.clone(), "missing".to_owned()),
            (gone.clone(), "missing".to_owned()),
            (slow.clone(), "unknown".to_owned()),
        ],
        "the comment's URL is no download"
    );
    let doc = egg_doc(&first, "eggs-fetch");
    let d = &doc["meta"]["downloads"];
    assert_eq!(d[0]["kind"], "fixed");
    assert_eq!(d[0]["line"], 3);
    assert_eq!(d[3]["detail"], "the host answered 410");
    assert_eq!(
        d[4]["detail"], "no answer within 1 s",
        "slow: unknown, never missing"
    );
    assert!(d[2]["since"].as_str().unwrap().starts_with("2026-01-01T"));
    let report = &first.report.downloads;
    assert_eq!(
        (report.present, report.missing, report.unknown),
        (2, 2, 1),
        "distinct URLs"
    );
    assert_eq!(report.missing_downloads[0].eggs, ["eggs-fetch"]);
    let egg_page = page(&first, "eggs/eggs-fetch/index.html");
    assert!(egg_page.contains("<h2 id=\"h-downloads\">Install downloads</h2>"));
    assert!(egg_page.contains("2 downloads are missing"), "the warning");
    assert!(egg_page.contains("<span class=\"st missing\">missing</span>"));
    assert!(egg_page.contains("<span class=\"st present\">present</span>"));
    assert!(egg_page.contains("<span class=\"st unknown\">unknown</span>"));
    let items: Vec<Value> =
        serde_json::from_slice(&first.snapshot.files["api/v1/eggs/_summary.json"]).unwrap();
    let item = |slug: &str| items.iter().find(|i| i["slug"] == slug).unwrap().clone();
    assert_eq!(item("eggs-fetch")["missingDownloads"], 2);
    assert!(item("eggs-fine").get("missingDownloads").is_none());
    let catalog_page = page(&first, "index.html");
    assert!(
        catalog_page.contains("2 install downloads missing"),
        "the card mark"
    );
    let status_page = page(&first, "status/index.html");
    assert!(status_page.contains("Install downloads</h2>"));
    assert!(status_page.contains(&format!("<code>{}", "<span class=\"nw\">https:/</span>")));
    let metrics = metrics_of(&data);
    assert!(
        metrics.contains("eggcat_downloads{status=\"present\"} 2"),
        "{metrics}"
    );
    assert!(metrics.contains("eggcat_downloads{status=\"missing\"} 2"));
    assert!(metrics.contains("eggcat_downloads{status=\"unknown\"} 1"));

    // Within the TTL nothing changes; b.zip deleted, past the TTL it is missing, with no
    // upstream commit.
    std::fs::remove_file(root.join("files/b.zip")).unwrap();
    let within = rebuild_with(&data, &options(&repo, &ca, 3600), &clock).unwrap();
    assert_eq!(
        statuses(&within)[1].1,
        "present",
        "the answer holds for the TTL"
    );
    let past = rebuild_with(&data, &options(&repo, &ca, 1), &clock).unwrap();
    assert!(
        past.report.sources.iter().all(|s| !s.changed),
        "no upstream commit"
    );
    assert_eq!(statuses(&past)[1], (b.clone(), "missing".to_owned()));
    let seen = server.requests();
    assert!(
        seen.iter()
            .any(|l| l.method == "HEAD" && l.uri == "/files/b.zip" && l.status == 404),
        "nginx answered 404 for the deleted file: {seen:#?}"
    );
    assert!(
        seen.iter().all(|l| l
            .user_agent
            .as_deref()
            .is_some_and(|ua| ua.starts_with("eggcat/"))),
        "every request names eggcat: {seen:#?}"
    );
    assert!(page(&past, "eggs/eggs-fetch/index.html").contains("3 downloads are missing"));

    // validate --downloads, as a maintainer runs it before pushing.
    let egg_file = tmp.path().join("egg-fetch.json");
    std::fs::write(&egg_file, script_egg("Fetch", &script)).unwrap();
    let mut args: Vec<String> = [
        "validate",
        "--downloads",
        "--allow-internal",
        "--format",
        "json",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(format!("--ca-file={}", ca.display()));
    for h in HOSTS {
        args.push(format!("--resolve={h}=127.0.0.1"));
    }
    args.push(egg_file.display().to_string());
    let out = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let diags: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let codes: Vec<(&str, bool)> = diags
        .iter()
        .filter(|d| d["code"] == "E064" || d["code"] == "E065")
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            (
                d["code"].as_str().unwrap(),
                message.contains("/files/b.zip"),
            )
        })
        .collect();
    // b.zip (now gone), none.zip and /gone are errors; the slow host answers within validate's
    // 10 s timeout: present, nothing said of it.
    assert!(!stdout.contains("slow.example.org"), "{stdout}");
    assert_eq!(
        codes,
        [("E064", true), ("E064", false), ("E064", false),],
        "{stdout}"
    );
    // A GitHub API URL the web does not answer alike is asked of the API with the token from
    // the environment, and only there; the token is written nowhere.
    let api_egg = tmp.path().join("egg-api.json");
    let api_script = format!(
        "#!/bin/bash\ncurl -o r {}\ncurl -o a {a}\n",
        url("api.github.com", "/files/a.zip")
    );
    std::fs::write(&api_egg, script_egg("Api", &api_script)).unwrap();
    let mut args: Vec<String> = ["validate", "--downloads", "--allow-internal"]
        .map(str::to_owned)
        .to_vec();
    args.push(format!("--ca-file={}", ca.display()));
    for h in HOSTS {
        args.push(format!("--resolve={h}=127.0.0.1"));
    }
    args.push(api_egg.display().to_string());
    let before = server.requests().len();
    let out = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(&args)
        .env("EGGCAT_GITHUB_TOKEN", "t0ken-never-written")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let seen: Vec<(String, String)> = server.requests()[before..]
        .iter()
        .filter_map(|l| Some((l.host.clone(), l.authorization.clone()?)))
        .collect();
    assert!(
        seen.iter()
            .any(|(h, v)| h == "api.github.com" && v == "Bearer t0ken-never-written"),
        "{seen:?}"
    );
    assert!(
        seen.iter().all(|(h, _)| h == "api.github.com"),
        "the token goes to api.github.com only: {seen:?}"
    );
    assert!(!stdout.contains("t0ken") && !stderr.contains("t0ken"));
    let cache = std::fs::read_to_string(data.join("images.json")).unwrap_or_default();
    assert!(!cache.is_empty() && !cache.contains("t0ken"));
}

/// `/metrics` of a server that loaded `data`'s current snapshot.
fn metrics_of(data: &Path) -> String {
    let store = eggcat_store::Store::new(data);
    let app = eggcat_server::App::new(&eggcat_server::AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    install_current(&app, store.data_dir());
    let r = crate::http::get(&app, "/metrics", &[]);
    String::from_utf8(r.body().to_vec()).unwrap()
}
