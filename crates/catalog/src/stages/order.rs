//! Stage 2, order: every egg once, in (owner, repo, path) order so that slugs and the output do
//! not depend on the configuration order, with its slug (rules in [`crate::slug`]).

use super::merge::SourceEgg;
use super::{EggRecord, MergedSource};
use crate::slug::{SlugKey, assign_slugs};

/// The records of `eggs`, sorted, each with its origin and slug.
pub(super) fn order(sources: &[MergedSource], mut eggs: Vec<SourceEgg>) -> Vec<EggRecord> {
    let info = |s: usize| &sources[s].info;
    // The source index last: two sources with one owner/repo (two branches) stay apart.
    eggs.sort_by(|(sa, a, _), (sb, b, _)| {
        let (ia, ib) = (info(*sa), info(*sb));
        (&ia.owner, &ia.repo, &a.path, sa).cmp(&(&ib.owner, &ib.repo, &b.path, sb))
    });
    let keys: Vec<SlugKey<'_>> = eggs
        .iter()
        .map(|(s, e, _)| SlugKey {
            owner: &info(*s).owner,
            repo: &info(*s).repo,
            path: &e.path,
        })
        .collect();
    let slugs = assign_slugs(&keys);
    eggs.into_iter()
        .zip(slugs)
        .map(|((source, egg, first), slug)| EggRecord {
            origin: format!("{}/{}/{}", info(source).owner, info(source).repo, egg.path),
            source,
            egg,
            first,
            slug,
            readable: false,
            upstream_uuid: String::new(),
            uuid: String::new(),
            collision: None,
            shared: Vec::new(),
            facts: None,
            updated: None,
            history: None,
        })
        .collect()
}
