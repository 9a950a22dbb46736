//! `eggcat publish` against a real S3 server (moto, found through `EGGCAT_MOTO`; skipped when
//! it is not set): incremental uploads, deletions, headers and metadata read back, the order a
//! polling reader relies on, publishing from `build` and `serve`, and the bucket answering with
//! `eggcat serve`'s bytes. The failures are in `publish_failures.rs`.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use eggcat_catalog::paths;
use sha2::Digest;

use crate::hosts::*;
use crate::publish_site::*;
use crate::support::*;

#[test]
fn publishes_incrementally_with_headers_and_serves_the_same_bytes_as_eggcat_serve() {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(6);
    let config = site.config(s3.port, "eggs");
    let first = site.build();
    let objects = keys(&first);

    // A first publish uploads every file and alias, and the 404 problem document.
    let (up, same, gone) = counts(&site.publish(&config, &[], "k", "s"));
    assert_eq!((up, same, gone), (objects.len(), 0, 0));

    // Every object reads back over plain HTTP with its bytes, type, cache policy and hash.
    for (key, bytes) in &objects {
        let a = get(s3.port, &format!("/eggs/{key}"));
        assert_eq!(a.status, 200, "{key}");
        assert_eq!(&a.body, bytes, "{key}");
        assert_eq!(
            a.header("x-amz-meta-sha256"),
            hex(&sha2::Sha256::digest(bytes)),
            "{key}"
        );
        if key == eggcat_publish::NOT_FOUND_KEY {
            // For a CDN's custom error response: never cached, like every error of `serve`.
            assert_eq!(a.header("content-type"), "application/problem+json");
            assert_eq!(a.header("cache-control"), "no-store");
            continue;
        }
        // The snapshot file an object holds: itself, or for an alias the file it repeats.
        let source = if key == paths::EGGS_DIR {
            paths::INDEX.to_owned()
        } else if first.contains_key(key) {
            key.clone()
        } else {
            format!("{key}.json")
        };
        assert_eq!(
            a.header("content-type"),
            paths::media_type(&source),
            "{key}"
        );
        let expected_cache = if paths::is_list(&source) {
            eggcat_publish::DEFAULT_LISTS_CACHE_CONTROL
        } else if paths::is_immutable(&source) {
            paths::IMMUTABLE_CACHE_CONTROL
        } else {
            eggcat_publish::DEFAULT_DOCUMENTS_CACHE_CONTROL
        };
        assert_eq!(a.header("cache-control"), expected_cache, "{key}");
    }

    // The bucket answers the API's paths with the bytes `eggcat serve` answers.
    let app = eggcat_server::App::new(&eggcat_server::AppOptions {
        cache_control: "public, max-age=60".into(),
    })
    .unwrap();
    crate::support::install_current(&app, &site.data());
    let slug = first
        .keys()
        .find_map(|p| eggcat_publish::alias(p).filter(|a| a != paths::EGGS_DIR))
        .unwrap();
    let mut compared = vec![format!("/{}", paths::EGGS_DIR), format!("/{slug}")];
    compared.extend(first.keys().map(|p| format!("/{p}")));
    for path in &compared {
        let served = crate::http::get(&app, path, &[]);
        assert_eq!(served.status(), 200, "{path}");
        let bucket = get(s3.port, &format!("/eggs{path}"));
        assert_eq!(bucket.body, served.body().to_vec(), "{path}");
    }

    // Nothing changed: nothing uploaded.
    assert_eq!(
        counts(&site.publish(&config, &[], "k", "s")),
        (0, objects.len(), 0)
    );

    // One changed egg: only the objects whose bytes changed.
    let mut egg: serde_json::Value = serde_json::from_str(&egg_json("Egg 2")).unwrap();
    egg["description"] = "a new description".into();
    site.repo
        .write(
            "games/egg-2/egg-2.json",
            serde_json::to_vec_pretty(&egg).unwrap(),
        )
        .commit("one egg changed");
    let second = keys(&site.build());
    let changed: Vec<&String> = second
        .iter()
        .filter(|(k, b)| objects.get(*k) != Some(*b))
        .map(|(k, _)| k)
        .collect();
    assert!(
        changed.iter().all(|k| !k.contains("other-")),
        "the other source is unchanged: {changed:?}"
    );
    let changed = changed.len();
    let (up, _, gone) = counts(&site.publish(&config, &[], "k", "s"));
    assert_eq!((up, gone), (changed, 0));

    // A dry run after a removal changes nothing; the real publish deletes the egg's objects.
    site.repo
        .remove("games/egg-4/egg-4.json")
        .commit("one egg removed");
    let third = keys(&site.build());
    let vanished: Vec<&String> = second.keys().filter(|k| !third.contains_key(*k)).collect();
    assert!(!vanished.is_empty());
    let (_, _, would) = counts(&site.publish(&config, &["--dry-run"], "k", "s"));
    assert_eq!(would, vanished.len());
    assert_eq!(
        get(s3.port, &format!("/eggs/{}", vanished[0])).status,
        200,
        "dry run kept it"
    );
    let (_, _, gone) = counts(&site.publish(&config, &[], "k", "s"));
    assert_eq!(gone, vanished.len());
    for key in vanished {
        assert_ne!(
            get(s3.port, &format!("/eggs/{key}")).status,
            200,
            "{key} deleted"
        );
    }

    // --force uploads everything again.
    assert_eq!(
        counts(&site.publish(&config, &["--force"], "k", "s")).0,
        third.len()
    );
}

#[test]
fn a_reader_polling_the_index_during_a_publish_never_sees_a_missing_document() {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(8);
    site.build();
    counts(&site.publish(&site.config(s3.port, "eggs"), &[], "k", "s"));
    // The publish goes through a slow link (each PUT held 60 ms) while the reader reads the
    // bucket directly, many times over the publish.
    let slow = Proxy::start(0, s3.port, None, std::time::Duration::from_millis(60));
    let config = site.config(slow.port, "eggs");
    // The next catalog adds many eggs and removes two: the index changes both ways.
    for i in 8..40 {
        site.repo.write(
            &format!("games/egg-{i}/egg-{i}.json"),
            egg_json(&format!("Egg {i}")),
        );
    }
    site.repo
        .remove("games/egg-1/egg-1.json")
        .remove("games/egg-5/egg-5.json");
    site.repo.commit("more eggs, two fewer");
    let next = site.build();
    let index_slugs = |bytes: &[u8]| -> Vec<String> {
        let items: Vec<serde_json::Value> = serde_json::from_slice(bytes).unwrap();
        items
            .iter()
            .map(|i| i["slug"].as_str().unwrap().to_owned())
            .collect()
    };
    let final_slugs = index_slugs(&next[paths::INDEX]);
    let first_slugs = index_slugs(&get(s3.port, &format!("/eggs/{}", paths::INDEX)).body);
    // The slugs at risk: those one index names and the other does not.
    let at_risk: Vec<String> = final_slugs
        .iter()
        .filter(|s| !first_slugs.contains(s))
        .chain(first_slugs.iter().filter(|s| !final_slugs.contains(s)))
        .cloned()
        .collect();

    let done = Arc::new(AtomicBool::new(false));
    let (reads, missing) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let port = s3.port;
    let reader = {
        let (done, reads, missing) = (done.clone(), reads.clone(), missing.clone());
        let (final_slugs, at_risk) = (final_slugs.clone(), at_risk.clone());
        std::thread::spawn(move || {
            let mut saw_new = false;
            while !done.load(Ordering::SeqCst) {
                let index = get(port, &format!("/eggs/{}", paths::INDEX));
                assert_eq!(index.status, 200);
                let slugs = index_slugs(&index.body);
                saw_new |= slugs == final_slugs;
                let absent: Vec<String> = slugs
                    .iter()
                    .filter(|s| at_risk.contains(s))
                    .flat_map(|s| {
                        [
                            format!("/eggs/api/v1/eggs/{s}.json"),
                            format!("/eggs/api/v1/eggs/{s}"),
                        ]
                    })
                    .filter(|p| request(port, "HEAD", p, &[], b"").unwrap().status != 200)
                    .collect();
                // A document may go once the index no longer names it: a miss counts only if
                // the index is still the one that named it.
                let again = get(port, &format!("/eggs/{}", paths::INDEX));
                if !absent.is_empty() && again.body == index.body {
                    eprintln!("missing while the index names them: {absent:?}");
                    missing.fetch_add(absent.len(), Ordering::SeqCst);
                }
                reads.fetch_add(1, Ordering::SeqCst);
            }
            saw_new
        })
    };
    let out = site.publish(&config, &[], "k", "s");
    done.store(true, Ordering::SeqCst);
    let saw_new = reader.join().unwrap();
    let (up, _, gone) = counts(&out);
    assert!(up > 0 && gone > 0);
    assert!(
        reads.load(Ordering::SeqCst) > 0,
        "the reader read the index"
    );
    assert_eq!(
        missing.load(Ordering::SeqCst),
        0,
        "a listed document was missing"
    );
    // Once the publish is over the index is the new one, whether or not the reader caught it.
    let last = get(s3.port, &format!("/eggs/{}", paths::INDEX));
    assert_eq!(index_slugs(&last.body), final_slugs);
    eprintln!(
        "reader: {} index reads, saw the new index during the publish: {saw_new}",
        reads.load(Ordering::SeqCst)
    );
}

#[test]
fn build_publishes_when_configured_and_a_failed_publish_never_fails_the_build() {
    let site = Site::new(2);
    // No store listening: the build succeeds, says the publish failed, and writes --out.
    let config = site.config(free_port(), "eggs");
    let www = site.tmp.path().join("www");
    let out = build_with(&site, &config, &["--out", www.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("publish failed (retried at the next build)"),
        "{stderr}"
    );
    assert!(www.join(paths::INDEX).is_file());
    assert!(
        www.join(".eggcat/nginx.conf").is_file(),
        "the rules are written with the tree"
    );

    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let config = site.config(s3.port, "eggs");
    let out = build_with(&site, &config, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let current = eggcat_store::Store::new(site.data())
        .read_current()
        .unwrap()
        .unwrap();
    let index = get(s3.port, &format!("/eggs/{}", paths::INDEX));
    assert_eq!(
        index.body,
        current.files[paths::INDEX],
        "the build published its catalog"
    );
}

#[test]
fn serve_publishes_the_catalog_it_builds() {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(2);
    let config = site.config(s3.port, "eggs");
    let port = free_port();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_eggcat"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            serve.env_remove(k);
        }
    }
    let mut child = serve
        .args([
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--config",
        ])
        .arg(&config)
        .env("HOME", site.tmp.path())
        .env("AWS_ACCESS_KEY_ID", "k")
        .env("AWS_SECRET_ACCESS_KEY", "s")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // With no catalog yet, serve builds one at start, then publishes it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let index = loop {
        let a = get(s3.port, &format!("/eggs/{}", paths::INDEX));
        if a.status == 200 {
            break a;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "serve never published"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let served = get(port, "/api/v1/eggs");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(served.status, 200);
    assert_eq!(
        index.body, served.body,
        "the bucket holds the catalog serve answers with"
    );
}

#[test]
fn aliases_off_publishes_no_key_that_is_also_a_folder_for_minio_and_garage() {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(3);
    let files = site.build();
    let config = site.config(s3.port, "eggs");
    let with_aliases = keys(&files);
    counts(&site.publish(&config, &[], "k", "s"));

    // `aliases = false` (what MinIO and Garage need): the alias objects a publish with aliases
    // left are deleted, and no key is the "folder" of another.
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}aliases = false\n")).unwrap();
    let (up, same, gone) = counts(&site.publish(&config, &[], "k", "s"));
    let aliases = with_aliases.len() - files.len() - 1;
    assert!(aliases > 1, "the index and each egg have an alias");
    assert_eq!((up, same, gone), (0, with_aliases.len() - aliases, aliases));
    let listing = String::from_utf8(get(s3.port, "/eggs?list-type=2").body).unwrap();
    let listed: Vec<&str> = listing
        .split("<Key>")
        .skip(1)
        .filter_map(|k| k.split("</Key>").next())
        .collect();
    assert_eq!(listed.len(), files.len() + 1, "{listing}");
    for key in &listed {
        assert!(
            !listed.iter().any(|k| k.starts_with(&format!("{key}/"))),
            "{key} is also a folder"
        );
    }
}
