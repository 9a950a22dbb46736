//! The IO side of a publish: list what the bucket holds, plan with [`crate::plan`], upload the
//! documents (a bounded number at a time), then the lists one by one in order, then delete what
//! the snapshot no longer has, reporting each step to a progress callback.
//!
//! A publish that fails part way leaves the bucket consistent for readers (every list still
//! names documents that exist: lists go up only after all documents, deletions only after all
//! lists) and the next publish finishes the work, since it compares with what is actually there.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3;
use object_store::path::Path;
use object_store::{
    Attribute, AttributeValue, Attributes, GetOptions, ObjectStore, PutOptions, PutPayload,
};

use crate::error::{Context, PublishError};
use crate::objects::{LocalObject, objects};
use crate::plan::{Plan, RemoteObject, is_md5, plan};
use crate::target::{Target, connect};

/// How to publish.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Upload every object, changed or not.
    pub force: bool,
    /// List and plan, change nothing.
    pub dry_run: bool,
}

/// A step of a publish, for progress output.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The plan is made: this many uploads, skips and deletions to come.
    Planned {
        uploads: usize,
        skipped: usize,
        deletes: usize,
    },
    /// One object was uploaded.
    Uploaded { key: &'a str, bytes: u64 },
    /// One object was deleted.
    Deleted { key: &'a str },
}

/// What a publish did (or, for a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The snapshot published.
    pub snapshot: String,
    /// `s3://bucket/prefix`.
    pub target: String,
    pub uploaded: usize,
    pub skipped: usize,
    pub deleted: usize,
    /// Bytes uploaded.
    pub bytes: u64,
    pub took: Duration,
    pub dry_run: bool,
}

/// Publishes `files` (a snapshot's files by path) as snapshot `id` to `target`.
pub async fn publish(
    id: &str,
    files: &BTreeMap<String, Vec<u8>>,
    target: &Target,
    options: Options,
    progress: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Summary, PublishError> {
    let started = Instant::now();
    let (bucket, prefix) = target.bucket_and_prefix()?;
    let (store, secrets, endpoint) = connect(target, &bucket)?;
    let cx = Context {
        target: &target.url,
        bucket: &bucket,
        endpoint: &endpoint,
        secrets: &secrets,
    };
    let local = objects(files, &prefix, target);
    let remote = list(&store, &prefix, &cx).await?;
    let remote = with_sha256(&store, remote, target.concurrency, &cx).await?;
    let plan = plan(&local, &remote, options.force);
    progress(Event::Planned {
        uploads: plan.upload_count(),
        skipped: plan.skipped.len(),
        deletes: plan.deletes.len(),
    });
    let mut summary = Summary {
        snapshot: id.to_owned(),
        target: target.url.clone(),
        uploaded: plan.upload_count(),
        skipped: plan.skipped.len(),
        deleted: plan.deletes.len(),
        bytes: upload_bytes(&plan, &local),
        took: Duration::ZERO,
        dry_run: options.dry_run,
    };
    if !options.dry_run {
        run(
            &store,
            &plan,
            &local,
            target.concurrency.max(1),
            &cx,
            progress,
        )
        .await?;
    }
    summary.took = started.elapsed();
    Ok(summary)
}

/// The objects under `prefix`, as listed.
async fn list(
    store: &AmazonS3,
    prefix: &str,
    cx: &Context<'_>,
) -> Result<Vec<RemoteObject>, PublishError> {
    let prefix_path = (!prefix.is_empty()).then(|| Path::from(prefix));
    let mut listing = store.list(prefix_path.as_ref());
    let mut out = Vec::new();
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(|e| cx.classify("list", &format!("{prefix}/"), &e))?;
        out.push(RemoteObject {
            key: meta.location.to_string(),
            size: meta.size,
            e_tag: meta.e_tag.map(|t| t.trim_matches('"').to_owned()),
            sha256: None,
        });
    }
    Ok(out)
}

/// Reads the `sha256` metadata of the objects whose ETag is not an MD5 (multipart uploads,
/// SSE-KMS, stores that tag otherwise), so that they can still be compared.
async fn with_sha256(
    store: &AmazonS3,
    remote: Vec<RemoteObject>,
    concurrency: usize,
    cx: &Context<'_>,
) -> Result<Vec<RemoteObject>, PublishError> {
    futures_util::stream::iter(remote)
        .map(|mut object| async move {
            if object.e_tag.as_deref().is_some_and(is_md5) {
                return Ok(object);
            }
            let path = Path::from(object.key.as_str());
            let head = GetOptions::new().with_head(true);
            let got = store
                .get_opts(&path, head)
                .await
                .map_err(|e| cx.classify("head", &object.key, &e))?;
            object.sha256 = got
                .attributes
                .get(&Attribute::Metadata("sha256".into()))
                .map(|v| v.as_ref().to_owned());
            Ok(object)
        })
        .buffered(concurrency.max(1))
        .try_collect()
        .await
}

async fn run(
    store: &Arc<AmazonS3>,
    plan: &Plan,
    local: &BTreeMap<String, LocalObject>,
    concurrency: usize,
    cx: &Context<'_>,
    progress: &(dyn Fn(Event<'_>) + Sync),
) -> Result<(), PublishError> {
    let put = |key: &str| {
        let object = &local[key];
        async move {
            put(store, object, cx).await?;
            progress(Event::Uploaded {
                key: &object.key,
                bytes: object.bytes.len() as u64,
            });
            Ok::<(), PublishError>(())
        }
    };
    futures_util::stream::iter(plan.documents.iter().map(Ok))
        .try_for_each_concurrent(concurrency, |key| put(key))
        .await?;
    // One at a time, in order: the status goes last.
    for key in &plan.lists {
        put(key).await?;
    }
    if plan.deletes.is_empty() {
        return Ok(());
    }
    let paths: Vec<object_store::Result<Path>> = plan
        .deletes
        .iter()
        .map(|k| Ok(Path::from(k.as_str())))
        .collect();
    let mut deleted = store.delete_stream(futures_util::stream::iter(paths).boxed());
    while let Some(done) = deleted.next().await {
        match done {
            Ok(path) => progress(Event::Deleted { key: path.as_ref() }),
            // Already gone: what a delete wants.
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(cx.classify("delete", "", &e)),
        }
    }
    Ok(())
}

async fn put(store: &AmazonS3, object: &LocalObject, cx: &Context<'_>) -> Result<(), PublishError> {
    let mut attributes = Attributes::new();
    attributes.insert(
        Attribute::ContentType,
        AttributeValue::from(object.content_type),
    );
    attributes.insert(
        Attribute::CacheControl,
        AttributeValue::from(object.cache_control.clone()),
    );
    attributes.insert(
        Attribute::Metadata("sha256".into()),
        AttributeValue::from(object.sha256.clone()),
    );
    let options = PutOptions {
        attributes,
        ..PutOptions::default()
    };
    let path = Path::from(object.key.as_str());
    store
        .put_opts(&path, PutPayload::from(object.bytes.clone()), options)
        .await
        .map_err(|e| cx.classify("put", &object.key, &e))?;
    Ok(())
}

fn upload_bytes(plan: &Plan, local: &BTreeMap<String, LocalObject>) -> u64 {
    plan.documents
        .iter()
        .chain(&plan.lists)
        .map(|k| local[k].bytes.len() as u64)
        .sum()
}
