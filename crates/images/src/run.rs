//! Asking many references at once, politely: at most `concurrency` requests at a time per
//! registry (a semaphore each, fair, so references are asked in the order given), nothing past
//! the budget's deadline (what is not asked by then, or whose request the deadline cuts, is left
//! for the next build), and a registry that answered `429` or `503` with `Retry-After` is not
//! asked again before that time: a wait that ends within the budget is waited out (once per
//! reference), a longer one ends the registry's turn for this check and is kept in the cache
//! for the next.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eggcat_wire::ImageReference;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout_at};

use crate::ImagesError;
use crate::client::{Answer, Client};

/// What became of one reference.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The registry was asked.
    Asked(Answer),
    /// It was not asked, or its request was cut: the budget ran out, or its registry asked to
    /// wait past it.
    NotAsked(ImagesError),
}

/// How a check runs.
pub(crate) struct Run<'a> {
    pub(crate) client: &'a Client,
    /// Requests at a time per registry.
    pub(crate) concurrency: usize,
    /// When the budget ends.
    pub(crate) deadline: Instant,
    /// Registries not to ask before a time (Unix ms): from the cache, and filled by this run.
    pub(crate) wait_until: &'a Mutex<BTreeMap<String, u64>>,
    /// The wall clock, Unix ms.
    pub(crate) now_ms: &'a (dyn Fn() -> u64 + Sync),
}

impl Run<'_> {
    /// Asks about every reference (the normalized text with its parsed form), in order; each
    /// comes back once with its outcome.
    pub(crate) async fn ask_all(
        &self,
        references: Vec<(String, ImageReference)>,
    ) -> Vec<(String, Outcome)> {
        let mut semaphores: HashMap<String, Arc<Semaphore>> = HashMap::new();
        let mut pending: FuturesUnordered<_> = references
            .iter()
            .map(|(text, r)| {
                let semaphore = semaphores
                    .entry(r.registry.clone())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.concurrency.max(1))))
                    .clone();
                async move { (text.clone(), self.ask_one(r, &semaphore).await) }
            })
            .collect();
        let mut done = Vec::with_capacity(references.len());
        while let Ok(Some(result)) = timeout_at(self.deadline, pending.next()).await {
            done.push(result);
        }
        drop(pending);
        let answered: std::collections::HashSet<String> =
            done.iter().map(|(t, _)| t.clone()).collect();
        for (text, _) in references {
            if !answered.contains(&text) {
                done.push((text, Outcome::NotAsked(ImagesError::Budget)));
            }
        }
        done
    }

    async fn ask_one(&self, r: &ImageReference, semaphore: &Semaphore) -> Outcome {
        let Ok(_permit) = semaphore.acquire().await else {
            return Outcome::NotAsked(ImagesError::Budget);
        };
        for attempt in 0..2 {
            if let Err(e) = self.wait_for(&r.registry).await {
                return Outcome::NotAsked(e);
            }
            let answer = self.client.ask(r).await;
            if let Answer::Unknown(ImagesError::RetryAfter { wait_ms, .. }) = &answer {
                let until = (self.now_ms)().saturating_add(*wait_ms);
                let mut waits = self
                    .wait_until
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let entry = waits.entry(r.registry.clone()).or_insert(until);
                *entry = (*entry).max(until);
                if attempt == 0 {
                    continue;
                }
            }
            // A request the deadline cut is no answer, and must not stand in for one: the
            // reference keeps its last (docs/operations.md, `budget`), as if never reached.
            if let Answer::Unknown(ImagesError::Budget) = answer {
                return Outcome::NotAsked(ImagesError::Budget);
            }
            return Outcome::Asked(answer);
        }
        unreachable!("the second attempt returns")
    }

    /// Waits until the registry's `Retry-After` time when it ends before the deadline; an error
    /// when it does not.
    async fn wait_for(&self, registry: &str) -> Result<(), ImagesError> {
        let until = self
            .wait_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(registry)
            .copied();
        let Some(until) = until else { return Ok(()) };
        let wait = Duration::from_millis(until.saturating_sub((self.now_ms)()));
        if wait.is_zero() {
            return Ok(());
        }
        if Instant::now() + wait >= self.deadline {
            return Err(ImagesError::Waiting { until_ms: until });
        }
        tokio::time::sleep(wait).await;
        Ok(())
    }
}
