//! The store itself: keys, leases, the clock and the watch bookkeeping, and
//! the one place where a transaction is validated and applied.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::StoreError;
use crate::lease::{Lease, LeaseId, LeaseInfo};
use crate::limits::Limits;
use crate::record::{Event, EventKind, KeyValue};
use crate::txn::{Compare, CompareOp, CompareTarget, LeaseChoice, OpResponse, Txn, TxnOp, TxnResponse};
use crate::watch::{WatchId, WatchStart, Watches};

/// What a compare-and-swap expects to find.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Expect {
    /// `None`: the key must be absent. `Some(v)`: it must hold `v` (which
    /// fails on a missing key, as etcd's value compare does).
    pub value: Option<String>,
    /// If given, the key's mod revision must equal it as well.
    pub mod_revision: Option<u64>,
}

impl Expect {
    pub fn absent() -> Self {
        Expect { value: None, mod_revision: None }
    }
    pub fn value(value: impl Into<String>) -> Self {
        Expect { value: Some(value.into()), mod_revision: None }
    }
    pub fn with_mod_revision(mut self, revision: u64) -> Self {
        self.mod_revision = Some(revision);
        self
    }
    fn compares(&self, key: &str) -> Vec<Compare> {
        let mut compares = vec![match &self.value {
            None => Compare::absent(key),
            Some(value) => Compare::value_is(key, value.clone()),
        }];
        if let Some(revision) = self.mod_revision {
            compares.push(Compare::new(key, CompareOp::Equal, CompareTarget::ModRevision(revision)));
        }
        compares
    }
}

/// The outcome of a compare-and-swap: both are ordinary results.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum CasOutcome {
    /// The write happened; `kv` is the key as it is now.
    Swapped { kv: KeyValue },
    /// The compare did not hold; nothing changed. `current` is what is there.
    Mismatch { current: Option<KeyValue> },
}

/// The simulated etcd-style store. See the crate docs for its rules.
#[derive(Clone, Debug)]
pub struct Store {
    limits: Limits,
    revision: u64,
    now_ms: u64,
    keys: BTreeMap<String, KeyValue>,
    leases: BTreeMap<LeaseId, Lease>,
    next_lease_id: u64,
    watches: Watches,
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Store {
    /// An empty store at revision 1 and time 0, with the default limits.
    pub fn new() -> Self {
        Store::with_limits(Limits::default())
    }

    /// An empty store with the given limits.
    ///
    /// Panics if the limits contradict the store's invariants: a zero minimum
    /// TTL would make a key expire at the very moment it is written, and the
    /// largest time plus the largest TTL must fit in a `u64` so deadlines
    /// never overflow.
    pub fn with_limits(limits: Limits) -> Self {
        assert!(limits.ttl_ms_min >= 1, "Limits::ttl_ms_min must be at least 1 ms");
        assert!(limits.ttl_ms_min <= limits.ttl_ms_max, "Limits::ttl_ms_min must not exceed ttl_ms_max");
        assert!(
            limits.time_ms_max.checked_add(limits.ttl_ms_max).is_some(),
            "Limits::time_ms_max + ttl_ms_max must fit in a u64"
        );
        Store {
            limits,
            revision: 1,
            now_ms: 0,
            keys: BTreeMap::new(),
            leases: BTreeMap::new(),
            next_lease_id: 1,
            watches: Watches::default(),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The store-wide revision: 1 when empty, +1 per transaction that changed something.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The store's virtual time.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn get(&self, key: &str) -> Option<&KeyValue> {
        self.keys.get(key)
    }

    /// Every key, in key order.
    pub fn keys(&self) -> impl Iterator<Item = &KeyValue> {
        self.keys.values()
    }

    /// Every key that starts with `prefix`, oldest incarnation first: sorted
    /// by create revision, as etcd answers a range over the prefix with
    /// `sort_target = CREATE`. The election queue reads itself this way: the
    /// first key is the leader, and each key's predecessor is the one before
    /// it. A read: it changes nothing, so the revision stays.
    pub fn range_prefix(&self, prefix: &str) -> Result<Vec<KeyValue>, StoreError> {
        self.validate_key(prefix)?;
        let mut found: Vec<KeyValue> = Vec::new();
        let mut bytes = 0;
        for (key, kv) in self.keys.range(prefix.to_string()..).take_while(|(key, _)| key.starts_with(prefix)) {
            bytes += key.len() + kv.value.len();
            if bytes > self.limits.range_bytes_max {
                return Err(StoreError::RangeTooLarge {
                    prefix: prefix.to_string(),
                    bytes_max: self.limits.range_bytes_max,
                });
            }
            found.push(kv.clone());
        }
        // One transaction may create several keys at one revision; they keep their key order, so the
        // order is total and the same on every run.
        found.sort_by(|a, b| (a.create_revision, &a.key).cmp(&(b.create_revision, &b.key)));
        Ok(found)
    }

    /// Time left before `key` expires, if it is attached to a lease.
    pub fn key_ttl_remaining_ms(&self, key: &str) -> Option<u64> {
        let lease = self.keys.get(key)?.lease?;
        self.leases.get(&lease).map(|lease| lease.deadline_ms - self.now_ms)
    }

    pub fn lease_info(&self, id: LeaseId) -> Option<LeaseInfo> {
        self.leases.get(&id).map(|lease| LeaseInfo {
            id,
            granted_ttl_ms: lease.ttl_ms,
            remaining_ms: lease.deadline_ms - self.now_ms,
            keys: lease.keys.iter().cloned().collect(),
            key_scoped: lease.key_scoped,
        })
    }

    /// Every live lease, in id order.
    pub fn leases(&self) -> Vec<LeaseInfo> {
        self.leases.keys().filter_map(|id| self.lease_info(*id)).collect()
    }

    /// How many watchers are waiting.
    pub fn waiting_watchers(&self) -> usize {
        self.watches.waiting.len()
    }

    // ----- writes -------------------------------------------------------

    /// Writes `key` unconditionally.
    pub fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError> {
        self.txn(&Txn { compares: vec![], success: vec![TxnOp::put(key, value, lease)], failure: vec![] })?;
        Ok(self.keys[key].clone())
    }

    /// Deletes `key`; returns what was there.
    pub fn delete(&mut self, key: &str) -> Result<Option<KeyValue>, StoreError> {
        self.delete_if(key, None)
    }

    /// Deletes `key` if it exists and, when `mod_revision` is given, was last
    /// written at that revision. Returns what was deleted.
    pub fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError> {
        let mut compares = vec![Compare::new(key, CompareOp::Greater, CompareTarget::CreateRevision(0))];
        if let Some(revision) = mod_revision {
            compares.push(Compare::mod_revision_is(key, revision));
        }
        let response = self.txn(&Txn { compares, success: vec![TxnOp::delete(key)], failure: vec![] })?;
        Ok(match response.responses.into_iter().next() {
            Some(OpResponse::Delete { prev, .. }) => prev,
            _ => None,
        })
    }

    /// Writes `next` to `key` if `expect` holds.
    pub fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError> {
        let txn = Txn {
            compares: expect.compares(key),
            success: vec![TxnOp::put(key, next, lease)],
            failure: vec![TxnOp::get(key)],
        };
        let response = self.txn(&txn)?;
        if response.succeeded {
            let kv = self.keys[key].clone();
            debug_assert_eq!(kv.mod_revision, self.revision);
            Ok(CasOutcome::Swapped { kv })
        } else {
            Ok(CasOutcome::Mismatch { current: self.keys.get(key).cloned() })
        }
    }

    /// Applies a transaction atomically: all of the chosen branch or nothing.
    pub fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError> {
        self.validate_txn(txn)?;
        let succeeded = txn.compares.iter().all(|compare| compare.holds(self.keys.get(&compare.key)));
        let branch = if succeeded { &txn.success } else { &txn.failure };
        self.validate_branch(branch)?;

        let revision_next = self.revision + 1;
        let mut responses = Vec::with_capacity(branch.len());
        let mut events = Vec::new();
        for op in branch {
            responses.push(self.apply_op(op, revision_next, &mut events));
        }
        if !events.is_empty() {
            self.revision = revision_next;
            for event in events {
                self.watches.record(event, self.limits.history_events_max);
            }
        }
        self.debug_check();
        Ok(TxnResponse { succeeded, revision: self.revision, responses })
    }

    fn validate_key(&self, key: &str) -> Result<(), StoreError> {
        if key.is_empty() {
            return Err(StoreError::EmptyKey);
        }
        if key.len() > self.limits.key_bytes_max {
            return Err(StoreError::KeyTooLong { bytes: key.len(), bytes_max: self.limits.key_bytes_max });
        }
        Ok(())
    }

    fn validate_ttl(&self, ttl_ms: u64) -> Result<(), StoreError> {
        if ttl_ms < self.limits.ttl_ms_min || ttl_ms > self.limits.ttl_ms_max {
            return Err(StoreError::TtlOutOfRange {
                ttl_ms,
                ttl_ms_min: self.limits.ttl_ms_min,
                ttl_ms_max: self.limits.ttl_ms_max,
            });
        }
        Ok(())
    }

    /// Shape checks on both branches, before anything is evaluated.
    fn validate_txn(&self, txn: &Txn) -> Result<(), StoreError> {
        for compare in &txn.compares {
            self.validate_key(&compare.key)?;
        }
        let ops_max = self.limits.txn_ops_max;
        for branch in [&txn.success, &txn.failure] {
            if branch.len() > ops_max || txn.compares.len() > ops_max {
                return Err(StoreError::TooManyOps { ops: branch.len().max(txn.compares.len()), ops_max });
            }
            // As etcd: a key may be put once, and not both put and deleted;
            // deleting it twice is allowed (the second delete finds nothing).
            let mut put = BTreeSet::new();
            let mut deleted = BTreeSet::new();
            for op in branch {
                self.validate_key(op.key())?;
                match op {
                    TxnOp::Get { .. } => {}
                    TxnOp::Put { key, value, lease } => {
                        if value.len() > self.limits.value_bytes_max {
                            return Err(StoreError::ValueTooLarge {
                                bytes: value.len(),
                                bytes_max: self.limits.value_bytes_max,
                            });
                        }
                        if let LeaseChoice::Ttl(ttl_ms) = lease {
                            self.validate_ttl(*ttl_ms)?;
                        }
                        if deleted.contains(key.as_str()) || !put.insert(key.as_str()) {
                            return Err(StoreError::DuplicateKeyInTxn { key: key.clone() });
                        }
                    }
                    TxnOp::Delete { key } => {
                        if put.contains(key.as_str()) {
                            return Err(StoreError::DuplicateKeyInTxn { key: key.clone() });
                        }
                        deleted.insert(key.as_str());
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks that depend on the current state, for the branch that will run,
    /// so that applying it cannot fail half way.
    fn validate_branch(&self, branch: &[TxnOp]) -> Result<(), StoreError> {
        let mut keys_count = self.keys.len();
        let mut leases_new = 0usize;
        // Key-scoped leases that the branch drops, because their key is
        // deleted or written with another lease choice. Counted so that a key
        // rewritten with a fresh `ttl_ms` at the lease limit is not refused:
        // it swaps one private lease for another.
        let mut leases_freed = 0usize;
        // A key deleted twice is counted once (the second delete finds nothing).
        let mut deleted = BTreeSet::new();
        for op in branch {
            if let TxnOp::Delete { key } = op {
                if !deleted.insert(key.as_str()) {
                    continue;
                }
            }
            let current_lease = self.keys.get(op.key()).and_then(|kv| kv.lease);
            let frees_scoped_lease =
                current_lease.is_some_and(|id| self.leases.get(&id).is_some_and(|lease| lease.key_scoped));
            match op {
                TxnOp::Get { .. } => {}
                TxnOp::Put { key, lease, .. } => {
                    if !self.keys.contains_key(key) {
                        keys_count += 1;
                    }
                    match lease {
                        LeaseChoice::None => leases_freed += usize::from(frees_scoped_lease),
                        LeaseChoice::Lease(id) => {
                            let Some(chosen) = self.leases.get(id) else {
                                return Err(StoreError::LeaseNotFound { lease: id.0 });
                            };
                            // A key-scoped lease is private to the key written
                            // with `ttl_ms`: letting a second key share it would
                            // make deleting the first key drop the lease under
                            // the second one.
                            if chosen.key_scoped && current_lease != Some(*id) {
                                let owner = chosen.keys.iter().next().cloned().unwrap_or_default();
                                return Err(StoreError::LeaseKeyScoped { lease: id.0, key: owner });
                            }
                            if current_lease != Some(*id) {
                                leases_freed += usize::from(frees_scoped_lease);
                            }
                        }
                        LeaseChoice::Ttl(_) => {
                            leases_new += 1;
                            leases_freed += usize::from(frees_scoped_lease);
                        }
                    }
                }
                TxnOp::Delete { key } => {
                    if self.keys.contains_key(key) {
                        keys_count -= 1;
                    }
                    leases_freed += usize::from(frees_scoped_lease);
                }
            }
        }
        if keys_count > self.limits.keys_max {
            return Err(StoreError::TooManyKeys { keys_max: self.limits.keys_max });
        }
        // Only a branch that creates leases can hit the limit; the count is
        // the one after the branch, since nothing outside sees it half way.
        if leases_new > 0 && self.leases.len() + leases_new - leases_freed > self.limits.leases_max {
            return Err(StoreError::TooManyLeases { leases_max: self.limits.leases_max });
        }
        Ok(())
    }

    fn apply_op(&mut self, op: &TxnOp, revision: u64, events: &mut Vec<Event>) -> OpResponse {
        match op {
            TxnOp::Get { key } => OpResponse::Get { kv: self.keys.get(key).cloned() },
            TxnOp::Put { key, value, lease } => {
                let prev = self.keys.get(key).cloned();
                let keeps_lease =
                    matches!(lease, LeaseChoice::Lease(id) if prev.as_ref().and_then(|kv| kv.lease) == Some(*id));
                // Detaching first would drop a key-scoped lease that the
                // key is about to be attached to again.
                if !keeps_lease {
                    self.detach_lease(key);
                }
                let lease_id = match lease {
                    LeaseChoice::None => None,
                    LeaseChoice::Lease(id) => Some(*id),
                    LeaseChoice::Ttl(ttl_ms) => Some(self.insert_lease(*ttl_ms, true)),
                };
                if let Some(id) = lease_id {
                    self.leases.get_mut(&id).expect("validated lease").keys.insert(key.clone());
                }
                let kv = KeyValue {
                    key: key.clone(),
                    value: value.clone(),
                    create_revision: prev.as_ref().map_or(revision, |prev| prev.create_revision),
                    mod_revision: revision,
                    version: prev.as_ref().map_or(1, |prev| prev.version + 1),
                    lease: lease_id,
                };
                self.keys.insert(key.clone(), kv.clone());
                events.push(Event {
                    kind: EventKind::Put,
                    key: key.clone(),
                    revision,
                    at_ms: self.now_ms,
                    kv: Some(kv),
                });
                OpResponse::Put { prev }
            }
            TxnOp::Delete { key } => match self.remove_key(key) {
                Some(prev) => {
                    events.push(Event {
                        kind: EventKind::Delete,
                        key: key.clone(),
                        revision,
                        at_ms: self.now_ms,
                        kv: None,
                    });
                    OpResponse::Delete { deleted: 1, prev: Some(prev) }
                }
                None => OpResponse::Delete { deleted: 0, prev: None },
            },
        }
    }

    fn remove_key(&mut self, key: &str) -> Option<KeyValue> {
        self.detach_lease(key);
        self.keys.remove(key)
    }

    /// Takes `key` off its lease; a key-scoped lease goes with it.
    fn detach_lease(&mut self, key: &str) {
        let Some(id) = self.keys.get(key).and_then(|kv| kv.lease) else { return };
        if let Some(lease) = self.leases.get_mut(&id) {
            lease.keys.remove(key);
            if lease.key_scoped {
                self.leases.remove(&id);
            }
        }
    }

    fn insert_lease(&mut self, ttl_ms: u64, key_scoped: bool) -> LeaseId {
        let id = LeaseId(self.next_lease_id);
        self.next_lease_id += 1;
        let deadline_ms = self.now_ms + ttl_ms;
        self.leases.insert(id, Lease { ttl_ms, deadline_ms, keys: BTreeSet::new(), key_scoped });
        id
    }

    // ----- leases -------------------------------------------------------

    /// Grants a lease that expires `ttl_ms` from now unless kept alive.
    pub fn grant_lease(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError> {
        self.validate_ttl(ttl_ms)?;
        if self.leases.len() >= self.limits.leases_max {
            return Err(StoreError::TooManyLeases { leases_max: self.limits.leases_max });
        }
        Ok(self.insert_lease(ttl_ms, false))
    }

    /// Restarts a lease's TTL from now; returns the TTL.
    pub fn keep_alive(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        let now_ms = self.now_ms;
        let lease = self.leases.get_mut(&id).ok_or(StoreError::LeaseNotFound { lease: id.0 })?;
        lease.deadline_ms = now_ms + lease.ttl_ms;
        Ok(lease.ttl_ms)
    }

    /// Revokes a lease, deleting its keys in one revision. Returns the
    /// store's revision afterwards.
    pub fn revoke_lease(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        if !self.leases.contains_key(&id) {
            return Err(StoreError::LeaseNotFound { lease: id.0 });
        }
        self.end_lease(id, EventKind::Delete);
        self.debug_check();
        Ok(self.revision)
    }

    /// Removes a lease and deletes its keys as one write. Returns the events,
    /// which are also recorded for watchers.
    fn end_lease(&mut self, id: LeaseId, kind: EventKind) -> Vec<Event> {
        let Some(lease) = self.leases.remove(&id) else { return Vec::new() };
        if lease.keys.is_empty() {
            return Vec::new();
        }
        let revision = self.revision + 1;
        let mut events = Vec::with_capacity(lease.keys.len());
        for key in lease.keys {
            let removed = self.keys.remove(&key);
            debug_assert!(removed.is_some_and(|kv| kv.lease == Some(id)), "lease {id:?} listed key {key}");
            events.push(Event { kind, key, revision, at_ms: self.now_ms, kv: None });
        }
        self.revision = revision;
        for event in &events {
            self.watches.record(event.clone(), self.limits.history_events_max);
        }
        events
    }

    // ----- time ---------------------------------------------------------

    /// Moves the clock to `to_ms`, expiring leases on the way in deadline
    /// order (ties by lease id). Returns the expiry events.
    pub fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError> {
        if to_ms < self.now_ms {
            return Err(StoreError::ClockBackwards { now_ms: self.now_ms, to_ms });
        }
        if to_ms > self.limits.time_ms_max {
            return Err(StoreError::TimeOutOfRange { to_ms, time_ms_max: self.limits.time_ms_max });
        }
        // Events are collected as they happen rather than read back from the
        // watch history, which is bounded and may already have dropped them.
        let mut events = Vec::new();
        loop {
            let due = self
                .leases
                .iter()
                .filter(|(_, lease)| lease.deadline_ms <= to_ms)
                .min_by_key(|(id, lease)| (lease.deadline_ms, **id))
                .map(|(id, lease)| (*id, lease.deadline_ms));
            let Some((id, deadline_ms)) = due else { break };
            // Each lease expires at its own deadline, so its events carry the
            // moment it ran out, not the end of the advance.
            self.now_ms = self.now_ms.max(deadline_ms);
            events.extend(self.end_lease(id, EventKind::Expire));
        }
        self.now_ms = to_ms;
        self.debug_check();
        Ok(events)
    }

    /// Moves the clock forward by `delta_ms`.
    pub fn advance_by(&mut self, delta_ms: u64) -> Result<Vec<Event>, StoreError> {
        let to_ms = self.now_ms.saturating_add(delta_ms);
        self.advance_to(to_ms)
    }

    // ----- watches ------------------------------------------------------

    /// Asks for the first change of `key` with a revision above
    /// `after_revision`: at once if it already happened, else later through
    /// [`Store::take_fired`].
    pub fn watch(&mut self, key: &str, after_revision: u64) -> Result<WatchStart, StoreError> {
        self.validate_key(key)?;
        if after_revision < self.watches.compacted_revision {
            return Err(StoreError::Compacted { after_revision, compacted_revision: self.watches.compacted_revision });
        }
        if let Some(event) = self.watches.first_after(key, after_revision) {
            return Ok(WatchStart::Ready { event: event.clone() });
        }
        if self.watches.waiting.len() >= self.limits.watchers_max {
            return Err(StoreError::TooManyWatchers { watchers_max: self.limits.watchers_max });
        }
        self.watches.next_id += 1;
        let id = WatchId(self.watches.next_id);
        // The revision is kept so that a watch starting in the future is not
        // woken by a change at or before the revision it asked to wait past.
        self.watches.waiting.insert(id, (key.to_string(), after_revision));
        Ok(WatchStart::Waiting { watch: id })
    }

    /// Stops a waiting watch. Returns false if it was not waiting.
    pub fn cancel_watch(&mut self, id: WatchId) -> bool {
        self.watches.waiting.remove(&id).is_some()
    }

    /// The watches that fired since the last call, in revision order.
    pub fn take_fired(&mut self) -> Vec<(WatchId, Event)> {
        std::mem::take(&mut self.watches.fired)
    }

    // ----- invariants ---------------------------------------------------

    /// Checks the store's internal invariants; panics with the broken one.
    /// Cheap enough to run after every write in debug builds.
    pub fn check_invariants(&self) {
        assert!(self.revision >= 1, "revision starts at 1");
        for (key, kv) in &self.keys {
            assert_eq!(&kv.key, key, "key stored under another name");
            assert!(kv.create_revision <= kv.mod_revision, "{key}: created after its last write");
            assert!(kv.mod_revision <= self.revision, "{key}: written in the future");
            assert!(kv.version >= 1, "{key}: version starts at 1");
            if let Some(id) = kv.lease {
                let lease = self.leases.get(&id).unwrap_or_else(|| panic!("{key}: on missing lease {id:?}"));
                assert!(lease.keys.contains(key), "{key}: lease {id:?} does not list it");
                assert!(lease.deadline_ms > self.now_ms, "{key}: lease {id:?} is past its deadline");
            }
        }
        for (id, lease) in &self.leases {
            for key in &lease.keys {
                assert_eq!(self.keys.get(key).and_then(|kv| kv.lease), Some(*id), "lease {id:?} lists {key}");
            }
            assert!(!lease.key_scoped || lease.keys.len() == 1, "key-scoped lease {id:?} must hold one key");
            // The clock never passes a deadline without expiring the lease.
            assert!(lease.deadline_ms > self.now_ms, "lease {id:?} is past its deadline");
            assert!(id.0 < self.next_lease_id, "lease {id:?} was not handed out by the counter");
        }
        assert!(self.leases.len() <= self.limits.leases_max, "more leases than the limit");
        assert!(self.keys.len() <= self.limits.keys_max, "more keys than the limit");
        assert!(self.watches.waiting.len() <= self.limits.watchers_max, "more watchers than the limit");
        assert!(self.watches.history.len() <= self.limits.history_events_max);
        // Watches answer from history by binary search, which needs revision order.
        let mut revision_previous = self.watches.compacted_revision;
        for event in &self.watches.history {
            assert!(event.revision >= revision_previous, "history out of revision order at {}", event.revision);
            assert!(event.revision <= self.revision, "history event from the future: {}", event.revision);
            revision_previous = event.revision;
        }
    }

    fn debug_check(&self) {
        #[cfg(debug_assertions)]
        self.check_invariants();
    }
}
