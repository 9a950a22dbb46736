//! `eggcat publish` when things go wrong: no target, no catalog, no credentials, a missing
//! bucket, no network, a store that dies mid-publish, wrong credentials (moto with signature
//! checks). Each gives one clear error line and a non-zero exit, and a later publish completes.

use std::process::Command;

use eggcat_catalog::paths;

use crate::hosts::*;
use crate::publish_site::*;
use crate::support::*;

#[test]
fn publish_without_a_target_or_a_catalog_says_what_to_do() {
    let site = Site::new(1);
    let config = site.tmp.path().join("plain.toml");
    std::fs::write(&config, "data_dir = \"data\"\n").unwrap();
    let line = error_line(&site.publish(&config, &[], "k", "s"));
    assert!(
        line.contains("no publish target") && line.contains("--to"),
        "{line}"
    );
    let line = error_line(&site.publish(&config, &["--to", "s3://eggs"], "k", "s"));
    assert!(line.contains("run `eggcat build` first"), "{line}");
    let line = error_line(&site.publish(&config, &["--to", "http://eggs"], "k", "s"));
    assert!(line.contains("not an s3:// URL"), "{line}");
}

#[test]
fn no_credentials_at_all_says_what_to_set_not_that_the_store_refused_them() {
    let site = Site::new(1);
    site.build();
    // No `AWS_*` variable and no `~/.aws`: object_store falls back to the EC2 instance metadata
    // service, here a closed port (off EC2 it times out, or a proxy denies it).
    let config = site.config(free_port(), "eggs");
    let out = site
        .publish_command(&config, &[])
        .env(
            "AWS_METADATA_ENDPOINT",
            format!("http://127.0.0.1:{}", free_port()),
        )
        .output()
        .unwrap();
    let line = error_line(&out);
    assert!(
        line.contains("no credentials found for s3://eggs"),
        "{line}"
    );
    assert!(
        line.contains("AWS_ACCESS_KEY_ID") && line.contains("~/.aws/credentials"),
        "{line}"
    );
    assert!(!line.contains("refused"), "{line}");
}

/// An `http://` endpoint given only as `AWS_ENDPOINT_URL` (as the AWS tools take it) works like
/// one in the config; it failed with "URL scheme is not allowed".
#[test]
fn an_endpoint_from_the_environment_is_used_with_plain_http() {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(2);
    let files = keys(&site.build());
    let with_endpoint = site.config(s3.port, "eggs");
    let text = std::fs::read_to_string(&with_endpoint).unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("endpoint"))
        .map(|l| format!("{l}\n"))
        .collect();
    let config = with_endpoint.with_extension("env.toml");
    std::fs::write(&config, without).unwrap();
    let out = site
        .publish_command(&config, &[])
        .env("AWS_ACCESS_KEY_ID", "k")
        .env("AWS_SECRET_ACCESS_KEY", "s")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{}", s3.port))
        .output()
        .unwrap();
    let (up, _, _) = counts(&out);
    assert_eq!(up, files.len());
}

#[test]
fn a_missing_bucket_and_a_store_dying_mid_publish_give_clear_errors_and_a_later_publish_completes()
{
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    let site = Site::new(12);
    let files = keys(&site.build());

    let out = site.publish(&site.config(s3.port, "no-such-bucket"), &[], "k", "s");
    let line = error_line(&out);
    assert!(
        line.contains("bucket `no-such-bucket` does not exist"),
        "{line}"
    );

    // Nothing listening: no network.
    let closed = free_port();
    let line = error_line(&site.publish(&site.config(closed, "eggs"), &[], "k", "s"));
    eprintln!("{line}");
    assert!(line.contains("cannot reach the store"), "{line}");

    // The store dies after a few uploads.
    create_public_bucket(s3.port, "eggs");
    let proxy = Proxy::start(0, s3.port, Some(6), std::time::Duration::ZERO);
    let config = site.config(proxy.port, "eggs");
    let line = error_line(&site.publish(&config, &[], "k", "s"));
    eprintln!("{line}");
    assert!(line.contains("cannot reach the store"), "{line}");
    // Lists go up only after every document: the index is not there yet.
    assert_ne!(get(s3.port, &format!("/eggs/{}", paths::INDEX)).status, 200);
    let port = proxy.port;
    drop(proxy);

    // The store is back: the next publish uploads the rest and the bucket is complete.
    let proxy = Proxy::start_on_when_free(port, s3.port);
    let (up, same, _) = counts(&site.publish(&config, &[], "k", "s"));
    assert_eq!(up + same, files.len());
    assert!(same > 0, "what the failed publish uploaded was kept");
    for (key, bytes) in &files {
        assert_eq!(&get(s3.port, &format!("/eggs/{key}")).body, bytes, "{key}");
    }
    drop(proxy);
}

#[test]
fn wrong_credentials_are_refused_with_a_clear_error_that_never_shows_the_secret() {
    let Some(moto) = moto_binary() else { return };
    let python = moto.with_file_name("python");
    // Signature checks start after four unauthenticated calls, used to make a user and its key.
    let s3 = start_moto(&moto, Some(4));
    let (key, secret) = iam_user(&python, s3.port);
    let (key, secret) = (key.as_str(), secret.as_str());
    let site = Site::new(3);
    let files = keys(&site.build());
    let config = site.config(s3.port, "eggs");

    let wrong = "wrong-secret-0123456789";
    let out = site.publish(&config, &[], key, wrong);
    let line = error_line(&out);
    eprintln!("{line}");
    assert!(line.contains("refused the credentials"), "{line}");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains(wrong), "the secret was printed: {all}");

    assert_eq!(
        counts(&site.publish(&config, &[], key, secret)).0,
        files.len()
    );
}

/// A user with an access key made in the moto at `port` ([`IAM_SETUP`], run by moto's own
/// `python`): its (key, secret).
pub(crate) fn iam_user(python: &std::path::Path, port: u16) -> (String, String) {
    let setup = Command::new(python)
        .arg("-c")
        .arg(IAM_SETUP)
        .arg(port.to_string())
        .output()
        .unwrap();
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let stdout = String::from_utf8(setup.stdout).unwrap();
    let (key, secret) = stdout.trim().split_once(' ').unwrap();
    (key.to_owned(), secret.to_owned())
}

/// Creates an IAM user with an allow-all policy and an access key (the four unauthenticated
/// calls), then the bucket with that key; prints the key and secret.
pub(crate) const IAM_SETUP: &str = r#"
import sys, boto3
ep = "http://127.0.0.1:" + sys.argv[1]
iam = boto3.client("iam", endpoint_url=ep, region_name="us-east-1",
                   aws_access_key_id="setup", aws_secret_access_key="setup")
iam.create_user(UserName="eggcat")
arn = iam.create_policy(PolicyName="all", PolicyDocument='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}')["Policy"]["Arn"]
iam.attach_user_policy(UserName="eggcat", PolicyArn=arn)
key = iam.create_access_key(UserName="eggcat")["AccessKey"]
s3 = boto3.client("s3", endpoint_url=ep, region_name="us-east-1",
                  aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
s3.create_bucket(Bucket="eggs")
print(key["AccessKeyId"], key["SecretAccessKey"])
"#;
