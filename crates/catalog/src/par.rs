//! An order-preserving parallel map on every core, for the per-egg work of a build (parsing and
//! checking files, converting eggs for the panels), which is independent from egg to egg. Each
//! item is handled on its own, so the output never depends on the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// Stack of each worker: parsing deeply nested YAML recurses (the pipeline's scanning thread has
/// the same).
const STACK_SIZE: usize = 16 * 1024 * 1024;

/// `items.iter().map(f).collect()`, spread over the available cores.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break out };
            out.push((i, f(item)));
        }
    };
    let mut done: Vec<(usize, R)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(scope, work)
                    .expect("the system can start a worker thread")
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("the per-egg work does not panic"))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_the_order_of_its_input() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(
            super::map(&items, |n| n * 2),
            (0..1000).map(|n| n * 2).collect::<Vec<_>>()
        );
        assert!(super::map(&[] as &[u32], |n| *n).is_empty());
    }
}
