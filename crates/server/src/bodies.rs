//! The bodies asked for most, held in memory in front of the snapshot's files: a bounded cache.
//!
//! Reading a body from the page cache costs an `open`, a `read` and a `close` per request, and
//! a copy; nginx does the same with `sendfile`. A body in memory costs none of them: the
//! response shares it (`Bytes`). So each served snapshot keeps up to [`CAPACITY`] bytes of
//! bodies, each at most [`LARGEST`], chosen by `quick_cache`'s policy (scan resistant: a crawl
//! over every file once does not push out what is asked again and again). The memory is bounded
//! whatever the catalog's size, and it goes with the snapshot: a swap starts an empty cache,
//! and the old one is freed when the last request holding the old snapshot ends.
//!
//! Only a body checked against the manifest enters, so a hit is as good as a read of a file
//! found intact.

use bytes::Bytes;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

/// Bytes of bodies one served snapshot holds at most.
pub(crate) const CAPACITY: u64 = 16 * 1024 * 1024;
/// The largest body held: a larger one is read from its file each time (its reads are few
/// next to the bytes it sends, and it would push many small bodies out).
pub(crate) const LARGEST: usize = 1024 * 1024;
/// The number of bodies the cache expects to hold (it sizes its table by it).
const EXPECTED: usize = 2048;

/// A body's key: the index entry's name offset (unique in a snapshot) and the coding's index.
pub(crate) type Key = (u32, u8);

/// The cache of one served snapshot.
pub(crate) struct Bodies(Cache<Key, Bytes, ByLength>);

impl Bodies {
    pub(crate) fn new() -> Bodies {
        Bodies(Cache::with_weighter(EXPECTED, CAPACITY, ByLength))
    }

    /// The body held under `key`, if any.
    pub(crate) fn get(&self, key: Key) -> Option<Bytes> {
        self.0.get(&key)
    }

    /// Holds `body` (checked against the manifest) under `key`, when it is not too large.
    pub(crate) fn offer(&self, key: Key, body: &Bytes) {
        if body.len() <= LARGEST {
            self.0.insert(key, body.clone());
        }
    }

    /// Bytes held now.
    pub(crate) fn held(&self) -> u64 {
        self.0.weight()
    }
}

impl std::fmt::Debug for Bodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bodies")
            .field("held", &self.held())
            .finish()
    }
}

/// A body weighs its length (at least 1: quick_cache never evicts an item of weight 0).
#[derive(Clone)]
struct ByLength;

impl Weighter<Key, Bytes> for ByLength {
    fn weight(&self, _key: &Key, body: &Bytes) -> u64 {
        body.len().max(1) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_fits_and_stays_within_capacity() {
        let bodies = Bodies::new();
        let small = Bytes::from(vec![b'a'; 1000]);
        bodies.offer((0, 0), &small);
        assert_eq!(bodies.get((0, 0)), Some(small));
        assert_eq!(bodies.get((0, 1)), None);
        // A body over the largest held is not held.
        let large = Bytes::from(vec![b'b'; LARGEST + 1]);
        bodies.offer((1, 0), &large);
        assert_eq!(bodies.get((1, 0)), None);
        // Offered far more than its capacity, it holds at most that.
        let body = Bytes::from(vec![b'c'; LARGEST]);
        for i in 2..(2 + 3 * CAPACITY as u32 / LARGEST as u32) {
            bodies.offer((i, 0), &body);
        }
        assert!(bodies.held() <= CAPACITY, "{} held", bodies.held());
        assert!(bodies.held() > 0);
    }
}
