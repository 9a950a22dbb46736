//! Asking many references at once, politely: at most `concurrency` requests at a time per
//! registry (a semaphore each, fair, so references are asked in the order given), nothing past
//! the budget's deadline (what is not asked by then, or whose request the deadline cuts, is left
//! for the next build), and a registry that answered `429` or `503` with `Retry-After` is not
//! asked again before that time: a wait that ends within the budget is waited out (once per
//! reference), a longer one ends the registry's turn for this check and is kept in the cache
//! for the next.
//!
//! A host that fails fails once per check ([`Down`]): after a name that does not resolve, a
//! refused connection or a timeout, its requests still in flight are dropped and its remaining
//! references are `unknown` at once with that first failure's reason, and the log says so, so
//! that one unreachable registry costs one timeout rather than one per reference.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::sync::{Semaphore, watch};
use tokio::time::{Instant, timeout_at};

use crate::ImagesError;
use crate::client::Answer;

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
    /// Requests at a time per registry.
    pub(crate) concurrency: usize,
    /// When the budget ends.
    pub(crate) deadline: Instant,
    /// Registries not to ask before a time (Unix ms): from the cache, and filled by this run.
    pub(crate) wait_until: &'a Mutex<BTreeMap<String, u64>>,
    /// The hosts that failed in this check.
    pub(crate) down: &'a Down,
    /// The wall clock, Unix ms.
    pub(crate) now_ms: &'a (dyn Fn() -> u64 + Sync),
}

/// One request in flight.
pub(crate) type Asking<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Answer> + 'a>>;

/// The hosts that failed in one check, each with its first failure's reason, and how many
/// requests each was then spared.
#[derive(Debug, Default)]
pub(crate) struct Down {
    hosts: Mutex<HashMap<String, HostState>>,
}

/// One host's failure (none yet: `None`), watched by its requests, and the requests it spared.
type HostState = (watch::Sender<Option<String>>, usize);

impl Down {
    /// The watch of `host`'s failure.
    pub(crate) fn watch(&self, host: &str) -> watch::Receiver<Option<String>> {
        let mut hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        hosts
            .entry(host.to_owned())
            .or_insert_with(|| (watch::channel(None).0, 0))
            .0
            .subscribe()
    }

    /// Records that `host` failed with `why`, when it is the first failure; the requests
    /// waiting on it end at once.
    pub(crate) fn fail(&self, host: &str, why: &str) {
        let hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((sender, _)) = hosts.get(host) {
            let first = sender.send_if_modified(|v| {
                if v.is_some() {
                    return false;
                }
                *v = Some(why.to_owned());
                true
            });
            if first {
                tracing::warn!(
                    host,
                    reason = why,
                    "host failed: its other references and URLs in this check are unknown without asking"
                );
            }
        }
    }

    /// The error of a request `host`'s failure spared, counted.
    pub(crate) fn spared(&self, host: &str, first: String) -> ImagesError {
        let mut hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, n)) = hosts.get_mut(host) {
            *n += 1;
        }
        ImagesError::HostDown {
            host: host.to_owned(),
            first,
        }
    }

    /// Logs how many requests each failed host was spared, in the check `what`.
    pub(crate) fn log(&self, what: &str) {
        let hosts = self
            .hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut failed: Vec<(&String, &HostState)> = hosts
            .iter()
            .filter(|(_, (s, _))| s.borrow().is_some())
            .collect();
        failed.sort_by_key(|(h, _)| h.as_str());
        for (host, (sender, spared)) in failed {
            tracing::warn!(
                check = what,
                host = host.as_str(),
                reason = sender.borrow().as_deref().unwrap_or_default(),
                unknown_without_asking = *spared,
                "host failed once in this check"
            );
        }
    }
}

/// Whether an error is one of the failures that end a host's turn.
pub(crate) fn ends_host(e: &ImagesError) -> bool {
    matches!(
        e,
        ImagesError::Network(_) | ImagesError::Unreachable { .. } | ImagesError::Timeout { .. }
    )
}

impl Run<'_> {
    /// Asks about every item (its text, its host and what `ask` needs of it), in order, with
    /// `ask`; each comes back once with its outcome. References of images and URLs of
    /// downloads go through here alike: per-host concurrency, `Retry-After`, the budget and a
    /// host's failure are the same for both.
    pub(crate) async fn ask_all<'c, T, F>(
        &self,
        items: &'c [(String, String, T)],
        ask: F,
    ) -> Vec<(String, Outcome)>
    where
        F: Fn(&'c T) -> Asking<'c>,
    {
        let mut semaphores: HashMap<String, Arc<Semaphore>> = HashMap::new();
        let ask = &ask;
        let mut pending: FuturesUnordered<_> = items
            .iter()
            .map(|(text, host, item)| {
                let semaphore = semaphores
                    .entry(host.clone())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.concurrency.max(1))))
                    .clone();
                async move {
                    let outcome = self.ask_one(host, &semaphore, || ask(item)).await;
                    (text.clone(), outcome)
                }
            })
            .collect();
        let mut done = Vec::with_capacity(items.len());
        while let Ok(Some(result)) = timeout_at(self.deadline, pending.next()).await {
            done.push(result);
        }
        drop(pending);
        let answered: std::collections::HashSet<String> =
            done.iter().map(|(t, _)| t.clone()).collect();
        for (text, _, _) in items {
            if !answered.contains(text) {
                done.push((text.clone(), Outcome::NotAsked(ImagesError::Budget)));
            }
        }
        done
    }

    async fn ask_one<'b>(
        &self,
        host: &str,
        semaphore: &Semaphore,
        ask: impl Fn() -> Asking<'b>,
    ) -> Outcome {
        let mut down = self.down.watch(host);
        let Ok(_permit) = semaphore.acquire().await else {
            return Outcome::NotAsked(ImagesError::Budget);
        };
        for attempt in 0..2 {
            if let Some(first) = down.borrow().clone() {
                return Outcome::Asked(Answer::Unknown(self.down.spared(host, first)));
            }
            if let Err(e) = self.wait_for(host).await {
                return Outcome::NotAsked(e);
            }
            let answer = tokio::select! {
                answer = ask() => answer,
                Ok(first) = down.wait_for(Option::is_some) => {
                    let first = first.clone().unwrap_or_default();
                    return Outcome::Asked(Answer::Unknown(self.down.spared(host, first)));
                }
            };
            if let Answer::Unknown(e) = &answer
                && ends_host(e)
            {
                self.down.fail(host, &e.to_string());
            }
            if let Answer::Unknown(ImagesError::RetryAfter { wait_ms, .. }) = &answer {
                let until = (self.now_ms)().saturating_add(*wait_ms);
                let mut waits = self
                    .wait_until
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let entry = waits.entry(host.to_owned()).or_insert(until);
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
            return Err(ImagesError::Waiting {
                host: registry.to_owned(),
                until_ms: until,
            });
        }
        tokio::time::sleep(wait).await;
        Ok(())
    }
}
