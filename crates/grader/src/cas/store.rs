//! Cas submissions written in Rust: the store API a submission implements,
//! a clock the grader controls, the reference store, and the classic bugs.
//!
//! The reference here is a clean-room port of the README's contract, not a
//! wrapper around `kv`: grading it against `kv` is then a real differential
//! test of two independent implementations. It also numbers its versions
//! differently from `kv` on purpose (from 1, and a delete takes no
//! version), so the suite proves it accepts every numbering the contract
//! allows.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use sim::Record;

/// The time a store reads, set by whoever drives it; like the learner's
/// `clock.now()`. Clones share one reading.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    now_ms: Rc<Cell<u64>>,
}

impl Clock {
    /// A clock at 0 ms.
    pub fn new() -> Clock {
        Clock::default()
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms.get()
    }

    /// Moves the clock `ms` forward (the driver's side; stores only read it).
    pub fn advance(&self, ms: u64) {
        self.now_ms.set(self.now_ms.get() + ms);
    }
}

/// The options of `compareAndSwap`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CasOptions {
    /// The key must exist with exactly this version.
    pub version: Option<u64>,
    /// The key expires this long after the write; `None`: never.
    pub ttl_ms: Option<u64>,
}

/// What `compareAndSwap` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CasAnswer {
    /// `{ ok: true, version }`.
    Swapped { version: u64 },
    /// `{ ok: false, current }`.
    Mismatch { current: Option<Record> },
}

/// The learner's `createStore(clock)` result, in Rust: a synchronous
/// in-memory store that reads time from the [`Clock`] it was made with.
pub trait CasStoreApi {
    /// `get(key)`: the live record, or `None` if absent or expired.
    fn get(&mut self, key: &str) -> Option<Record>;
    /// `compareAndSwap(key, nextValue, currentValue, { version, ttlMs })`;
    /// `current_value: None` expects the key to be absent.
    fn compare_and_swap(
        &mut self,
        key: &str,
        next_value: &str,
        current_value: Option<&str>,
        options: CasOptions,
    ) -> CasAnswer;
    /// `delete(key, { version })`: true if it removed the key.
    fn delete(&mut self, key: &str, version: Option<u64>) -> bool;
}

/// Which store to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CasVariant {
    /// The reference solution: versions 1, 2, 3 … from one counter.
    Reference,
    /// Also correct: versions start at 100, go up in steps of 3, and deletes
    /// and failed writes use up numbers too. The contract allows all of it.
    SparseVersions,
    /// A value compare on a missing key succeeds (the key is created).
    MissingKeyMatchesValue,
    /// Versions are counted per key (the `keyVersion` is handed out as the
    /// version), so they repeat across keys and after a re-create.
    PerKeyVersions,
    /// A rewrite without `ttlMs` keeps the key's old expiry time.
    RewriteKeepsTtl,
    /// Expiry uses `now > expiresAt`: a key is still there at its deadline.
    ExpiryOffByOne,
    /// A failed compareAndSwap on a live key still bumps its version (and keyVersion).
    FailedCasBumpsVersion,
    /// `delete(key, { version })` deletes whatever version is there.
    DeleteIgnoresVersion,
    /// `keyVersion` goes on counting after a delete or expiry instead of restarting at 1.
    KeyVersionNeverRestarts,
    /// compareAndSwap looks at the raw record, so an expired key still blocks
    /// a create (get and delete do check expiry).
    CasIgnoresExpiry,
    /// `currentValue === null` writes even over a live key.
    CreateOverwrites,
    /// The `version` option is ignored.
    VersionCompareIgnored,
    /// The exercise's starter code: no TTLs, per-key versions, no version checks.
    Starter,
}

impl CasVariant {
    /// The correct stores.
    pub const CORRECT: [CasVariant; 2] = [CasVariant::Reference, CasVariant::SparseVersions];

    /// The buggy corpus.
    pub const BUGGY: [CasVariant; 11] = [
        CasVariant::MissingKeyMatchesValue,
        CasVariant::PerKeyVersions,
        CasVariant::RewriteKeepsTtl,
        CasVariant::ExpiryOffByOne,
        CasVariant::FailedCasBumpsVersion,
        CasVariant::DeleteIgnoresVersion,
        CasVariant::KeyVersionNeverRestarts,
        CasVariant::CasIgnoresExpiry,
        CasVariant::CreateOverwrites,
        CasVariant::VersionCompareIgnored,
        CasVariant::Starter,
    ];

    /// `createStore(clock)`.
    pub fn create(self, clock: Clock) -> VariantStore {
        let (last_version, version_step) = match self {
            CasVariant::SparseVersions => (97, 3),
            _ => (0, 1),
        };
        VariantStore {
            variant: self,
            clock,
            records: BTreeMap::new(),
            last_version,
            version_step,
            writes_ever: BTreeMap::new(),
        }
    }
}

#[derive(Clone, Debug)]
struct Stored {
    value: String,
    version: u64,
    key_version: u64,
    /// `None`: never expires.
    expires_at_ms: Option<u64>,
}

impl Stored {
    fn record(&self) -> Record {
        Record { value: self.value.clone(), version: self.version, key_version: self.key_version }
    }
}

/// One store of any [`CasVariant`]; each bug is a marked deviation from the
/// reference code path.
#[derive(Clone, Debug)]
pub struct VariantStore {
    variant: CasVariant,
    clock: Clock,
    records: BTreeMap<String, Stored>,
    /// The last version handed out; the next write gets `last_version + version_step`.
    last_version: u64,
    version_step: u64,
    /// Writes per key since the store began, for `KeyVersionNeverRestarts` only.
    writes_ever: BTreeMap<String, u64>,
}

impl VariantStore {
    fn is(&self, variant: CasVariant) -> bool {
        self.variant == variant
    }

    fn next_version(&mut self) -> u64 {
        self.last_version += self.version_step;
        self.last_version
    }

    /// The one place that knows about expiry: an expired key is removed and
    /// reads as absent.
    fn read_live(&mut self, key: &str) -> Option<Stored> {
        let now_ms = self.clock.now_ms();
        let record = self.records.get(key)?;
        let expired = match record.expires_at_ms {
            None => false,
            Some(_) if self.is(CasVariant::Starter) => false,
            Some(expires_at_ms) if self.is(CasVariant::ExpiryOffByOne) => now_ms > expires_at_ms,
            Some(expires_at_ms) => now_ms >= expires_at_ms,
        };
        if expired {
            self.records.remove(key);
            return None;
        }
        Some(record.clone())
    }
}

impl CasStoreApi for VariantStore {
    fn get(&mut self, key: &str) -> Option<Record> {
        self.read_live(key).map(|record| record.record())
    }

    fn compare_and_swap(
        &mut self,
        key: &str,
        next_value: &str,
        current_value: Option<&str>,
        options: CasOptions,
    ) -> CasAnswer {
        if let Some(ttl_ms) = options.ttl_ms {
            assert!(ttl_ms >= 1, "ttlMs must be a positive integer, got {ttl_ms}");
        }
        let current =
            if self.is(CasVariant::CasIgnoresExpiry) { self.records.get(key).cloned() } else { self.read_live(key) };
        let ignores_version = self.is(CasVariant::VersionCompareIgnored) || self.is(CasVariant::Starter);
        let matches = match (current_value, &current) {
            // Expect absent; a version compare cannot hold on a key that is not there.
            (None, None) => options.version.is_none() || ignores_version,
            (None, Some(_)) => self.is(CasVariant::CreateOverwrites),
            (Some(_), None) => self.is(CasVariant::MissingKeyMatchesValue),
            (Some(expected), Some(current)) => {
                current.value == expected
                    && (ignores_version || options.version.is_none_or(|version| version == current.version))
            }
        };
        if !matches {
            if self.is(CasVariant::SparseVersions) {
                // Legal too: a number used up by nobody is never seen.
                self.next_version();
            }
            if let (true, Some(mut bumped)) = (self.is(CasVariant::FailedCasBumpsVersion), current.clone()) {
                bumped.version = self.next_version();
                bumped.key_version += 1;
                self.records.insert(key.to_string(), bumped.clone());
                return CasAnswer::Mismatch { current: Some(bumped.record()) };
            }
            return CasAnswer::Mismatch { current: current.map(|current| current.record()) };
        }

        let key_version = match &current {
            _ if self.is(CasVariant::KeyVersionNeverRestarts) => {
                let writes_ever = self.writes_ever.entry(key.to_string()).or_insert(0);
                *writes_ever += 1;
                *writes_ever
            }
            Some(current) => current.key_version + 1,
            None => 1,
        };
        let version = if self.is(CasVariant::PerKeyVersions) || self.is(CasVariant::Starter) {
            key_version
        } else {
            self.next_version()
        };
        let expires_at_ms = match options.ttl_ms {
            Some(ttl_ms) => Some(self.clock.now_ms() + ttl_ms),
            None if self.is(CasVariant::RewriteKeepsTtl) => current.and_then(|current| current.expires_at_ms),
            None => None,
        };
        self.records
            .insert(key.to_string(), Stored { value: next_value.to_string(), version, key_version, expires_at_ms });
        CasAnswer::Swapped { version }
    }

    fn delete(&mut self, key: &str, version: Option<u64>) -> bool {
        let Some(current) = self.read_live(key) else {
            return false;
        };
        let ignores_version = self.is(CasVariant::DeleteIgnoresVersion) || self.is(CasVariant::Starter);
        if !ignores_version && version.is_some_and(|version| version != current.version) {
            return false;
        }
        self.records.remove(key);
        if self.is(CasVariant::SparseVersions) {
            // Legal: the contract only asks that later versions be greater.
            self.next_version();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's example, step for step.
    #[test]
    fn the_readme_example() {
        let clock = Clock::new();
        let mut store = CasVariant::Reference.create(clock.clone());
        let ttl = CasOptions { ttl_ms: Some(1000), ..CasOptions::default() };
        assert_eq!(store.compare_and_swap("lock", "p1", None, ttl), CasAnswer::Swapped { version: 1 });
        assert_eq!(
            store.compare_and_swap("lock", "p2", None, CasOptions::default()),
            CasAnswer::Mismatch { current: Some(Record { value: "p1".into(), version: 1, key_version: 1 }) }
        );
        clock.advance(1000);
        assert_eq!(store.get("lock"), None);
        assert_eq!(
            store.compare_and_swap("lock", "p2", None, CasOptions::default()),
            CasAnswer::Swapped { version: 2 }
        );
        assert_eq!(store.get("lock"), Some(Record { value: "p2".into(), version: 2, key_version: 1 }));
    }
}
