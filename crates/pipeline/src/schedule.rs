//! When `eggcat serve` rebuilds: at once at start when it has nothing to serve (no snapshot, or
//! a damaged one) or what it serves is stale ([`stale_reason`]); then every `refresh`, jittered,
//! one rebuild at a time, missed ticks never replayed; sooner (10 s, 20 s, 40 s, ...) while
//! there is no catalog to serve; and at once when damage is found in the snapshot served (the
//! caller's wait wakes early).
//!
//! [`run`] is the loop, over the caller's own waiting and rebuilding (`serve` sleeps on tokio and
//! runs each build in a child process): it needs no runtime of its own.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use eggcat_store::Store;

use crate::{BuildOptions, derivation, previous};

/// The first wait before retrying when there is no catalog to serve; it doubles at each rebuild.
pub const FIRST_RETRY: Duration = Duration::from_secs(10);

/// The waits between rebuilds: `refresh` while a catalog is served, a doubling retry (at most
/// `refresh`) until there is one.
#[derive(Debug, Clone)]
pub struct Schedule {
    refresh: Duration,
    retry: Duration,
}

impl Schedule {
    /// Rebuilds every `refresh`.
    pub fn new(refresh: Duration) -> Schedule {
        Schedule {
            refresh,
            retry: FIRST_RETRY,
        }
    }

    /// How long to wait before the next rebuild, jittered (plus or minus up to 10%, so that a
    /// fleet of mirrors does not fetch upstream at the same instant): `refresh` when a catalog
    /// is `serving`, else the retry, which doubles at each call whatever the answer.
    pub fn next_wait(&mut self, serving: bool) -> Duration {
        let wait = if serving {
            self.refresh
        } else {
            self.retry.min(self.refresh)
        };
        self.retry = self.retry.saturating_mul(2);
        jittered(wait)
    }
}

/// Whether `serve` rebuilds at once at start, instead of at its first refresh: when it serves
/// nothing (no snapshot, or a damaged one, whose intact files it serves meanwhile), or when the
/// snapshot it serves is `stale` ([`stale_reason`]).
pub fn build_at_start(serving: bool, stale: Option<&str>) -> bool {
    !serving || stale.is_some()
}

/// Runs the schedule for ever: a rebuild at once when `build_now`, then, after each, a wait of
/// [`Schedule::next_wait`] (asked whether a catalog is `serving`) and the next rebuild. `wait`
/// may end early (damage found: the rebuild repairs it). Waiting after each rebuild, not on a
/// fixed clock, means missed ticks are never replayed and rebuilds never overlap.
pub async fn run<W, R>(
    mut schedule: Schedule,
    build_now: bool,
    serving: impl Fn() -> bool,
    mut wait: impl FnMut(Duration) -> W,
    mut rebuild: impl FnMut() -> R,
) where
    W: Future<Output = ()>,
    R: Future<Output = ()>,
{
    if build_now {
        rebuild().await;
    }
    loop {
        wait(schedule.next_wait(serving())).await;
        rebuild().await;
    }
}

/// Why the current snapshot is not what a build with `options` would make of the same
/// upstream commits, as far as its state tells without asking upstream: it was made by another
/// derivation (another eggcat, another `base_url` or `history_depth`: `derivation.rs`). `None`
/// when it is current, and when there is none or its state cannot be read (a server builds
/// then anyway). `serve` rebuilds at start when there is a reason, instead of serving the
/// stale snapshot until its next refresh. (Other sources than configured are left to the next
/// refresh, as before: a source that failed at the first build has no state entry and would
/// read as a change.)
pub fn stale_reason(store: &Store, options: &BuildOptions) -> Option<&'static str> {
    let state = previous::current_state(store)?;
    (state.derivation != derivation::derivation(&options.base_url, options.limits.history))
        .then_some(
            "it was made by another version of eggcat or with another base_url or history_depth",
        )
}

/// `period` plus or minus up to 10%.
fn jittered(period: Duration) -> Duration {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let spread = period.as_millis() as u64 / 5;
    let offset = if spread == 0 { 0 } else { random % spread };
    (period + Duration::from_millis(offset)).saturating_sub(Duration::from_millis(spread / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within_a_tenth(wait: Duration, of: Duration) -> bool {
        let (wait, of) = (wait.as_millis(), of.as_millis());
        wait * 10 >= of * 9 && wait * 10 <= of * 11
    }

    #[test]
    fn the_retry_doubles_up_to_refresh_and_refresh_rules_while_serving() {
        let refresh = Duration::from_secs(60);
        let mut schedule = Schedule::new(refresh);
        for expected in [10, 20, 40, 60, 60] {
            let wait = schedule.next_wait(false);
            assert!(
                within_a_tenth(wait, Duration::from_secs(expected)),
                "{wait:?} for {expected} s"
            );
        }
        assert!(within_a_tenth(schedule.next_wait(true), refresh));
        // The retry kept doubling while a catalog was served.
        assert!(within_a_tenth(schedule.next_wait(false), refresh));
    }

    #[test]
    fn jitter_stays_within_a_tenth_and_zero_stays_zero() {
        for _ in 0..100 {
            let period = Duration::from_secs(3 * 3600);
            assert!(within_a_tenth(jittered(period), period));
        }
        assert_eq!(jittered(Duration::ZERO), Duration::ZERO);
        assert_eq!(jittered(Duration::from_millis(4)), Duration::from_millis(4));
    }

    #[test]
    fn serve_builds_at_start_with_nothing_to_serve_or_a_stale_snapshot() {
        assert!(build_at_start(false, None));
        assert!(build_at_start(true, Some("another eggcat")));
        assert!(!build_at_start(true, None));
    }

    /// The loop: a first rebuild when asked, then a wait before each rebuild.
    #[test]
    fn the_loop_waits_before_each_next_rebuild() {
        use std::pin::Pin;
        use std::sync::Mutex;
        use std::task::{Context, Poll, Waker};
        let steps = |build_now: bool| {
            let steps = Mutex::new(Vec::new());
            let wait = |d: Duration| {
                steps
                    .lock()
                    .unwrap()
                    .push(format!("wait {}", d.as_millis()));
                std::future::ready(())
            };
            // The third rebuild never ends: the loop stops there.
            let rebuild = || -> Pin<Box<dyn Future<Output = ()>>> {
                let mut steps = steps.lock().unwrap();
                steps.push("rebuild".to_owned());
                if steps.iter().filter(|s| *s == "rebuild").count() == 3 {
                    Box::pin(std::future::pending())
                } else {
                    Box::pin(std::future::ready(()))
                }
            };
            let schedule = Schedule::new(Duration::ZERO);
            {
                let mut looping = std::pin::pin!(run(schedule, build_now, || false, wait, rebuild));
                let mut cx = Context::from_waker(Waker::noop());
                assert_eq!(looping.as_mut().poll(&mut cx), Poll::Pending);
            }
            steps.into_inner().unwrap()
        };
        assert_eq!(
            steps(true),
            ["rebuild", "wait 0", "rebuild", "wait 0", "rebuild"]
        );
        assert_eq!(
            steps(false),
            [
                "wait 0", "rebuild", "wait 0", "rebuild", "wait 0", "rebuild"
            ]
        );
    }
}
