//! Property tests: random operation sequences over a few keys, run on the
//! store and on a naive reference model side by side.
//!
//! After every step the harness checks that
//! - the store and the model gave the same answer and show the same state
//!   (revision, clock, keys, leases, waiting watchers, fired watches);
//! - `check_invariants` holds;
//! - the revision moved exactly when keys changed, by one per write (by one
//!   per expired lease for an advance), and never backwards;
//! - a read, a refused request, a failed compare or a guarded delete that
//!   deleted nothing left the whole store unchanged;
//! - no key is visible once its lease deadline has passed;
//! - every mod revision ever written is new (shared only by the writes of
//!   one transaction), so it works as a fencing token, and versions restart
//!   at 1 on re-create;
//! - every watch is answered with the first change of its key after its
//!   revision, taken from a change log the harness keeps itself, in revision
//!   order, and no waiting watch has a change it should have woken on.
//!
//! Runs are deterministic: a fixed seed and case count. `PROPTEST_RNG_SEED`
//! and `PROPTEST_CASES` override them; a failure prints the minimal sequence,
//! a step-by-step trace of it, and the command that replays it.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use kv::{
    CasOutcome, Compare, CompareOp, CompareTarget, Event, EventKind, Expect, KeyValue, LeaseChoice, LeaseId, LeaseInfo,
    Limits, OpResponse, Store, StoreError, Txn, TxnOp, TxnResponse, WatchId, WatchStart,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestError, TestRunner};

/// The seed CI runs with; any other is as good, this one is just fixed.
const SEED_DEFAULT: u64 = 0x1EA5_E1AB;
const CASES_DEFAULT: u32 = 256;

/// Valid keys, few enough that operations collide on them, plus an empty key
/// and one too long for the small limits (4 bytes), which must be refused.
const KEYS: [&str; 6] = ["a", "b", "c", "lock", "", "toolong"];
const KEY_VALID_COUNT: usize = 4;

// ----- operations ------------------------------------------------------------

/// A revision chosen when the step runs, relative to the state then, so that
/// guards and watches hit current, stale and future revisions often.
#[derive(Clone, Copy, Debug)]
enum RevisionPick {
    /// The key's current mod revision (0 if absent).
    KeyCurrent,
    /// The store's revision minus this much (saturating).
    Back(u8),
    /// The store's revision plus this much.
    Ahead(u8),
}

/// A lease id chosen when the step runs.
#[derive(Clone, Copy, Debug)]
enum LeaseIdPick {
    /// One of the live leases (granted or a key's private one), if any.
    Live(u8),
    /// A raw id: sometimes live, often expired, revoked or never granted.
    Raw(u64),
}

#[derive(Clone, Copy, Debug)]
enum LeasePick {
    None,
    Ttl(u64),
    Lease(LeaseIdPick),
}

#[derive(Clone, Copy, Debug)]
enum ExpectPick {
    Absent,
    Value(u8),
    ValueAt(u8, RevisionPick),
}

#[derive(Clone, Copy, Debug)]
enum TargetPick {
    Value(u8),
    Version(u8),
    Create(RevisionPick),
    Mod(RevisionPick),
    Lease(u64),
}

#[derive(Clone, Copy, Debug)]
enum BranchOp {
    Get(usize),
    Put(usize, u8, LeasePick),
    Delete(usize),
}

#[derive(Clone, Debug)]
enum Op {
    Get(usize),
    Put(usize, u8, LeasePick),
    Cas(usize, u8, ExpectPick, LeasePick),
    Delete(usize),
    DeleteIf(usize, RevisionPick),
    Txn {
        compares: Vec<(usize, CompareOp, TargetPick)>,
        success: Vec<BranchOp>,
        failure: Vec<BranchOp>,
    },
    Grant(u64),
    KeepAlive(LeaseIdPick),
    Revoke(LeaseIdPick),
    Watch(usize, RevisionPick),
    /// Cancels the n-th watch id handed out so far (modulo), or an unknown id.
    Cancel(u8),
    Advance(u64),
    AdvanceTo(u64),
}

/// `v0`–`v2` collide often enough for value compares to succeed; `big` is
/// over the small limits' value size.
fn value(pick: u8) -> &'static str {
    ["v0", "v1", "v2", "big"][pick as usize % 4]
}

fn key_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![12 => 0..KEY_VALID_COUNT, 1 => KEY_VALID_COUNT..KEYS.len()]
}

fn value_strategy() -> impl Strategy<Value = u8> {
    prop_oneof![9 => 0u8..3, 1 => Just(3u8)]
}

fn revision_strategy() -> impl Strategy<Value = RevisionPick> {
    prop_oneof![
        4 => Just(RevisionPick::KeyCurrent),
        3 => (0u8..6).prop_map(RevisionPick::Back),
        1 => (1u8..4).prop_map(RevisionPick::Ahead),
    ]
}

fn ttl_strategy() -> impl Strategy<Value = u64> {
    // Around the small limits' range of 5..=60, including both sides of it.
    prop_oneof![8 => 5u64..=60, 1 => 0u64..5, 1 => 61u64..80]
}

fn lease_id_strategy() -> impl Strategy<Value = LeaseIdPick> {
    prop_oneof![3 => any::<u8>().prop_map(LeaseIdPick::Live), 1 => (1u64..10).prop_map(LeaseIdPick::Raw)]
}

fn lease_strategy() -> impl Strategy<Value = LeasePick> {
    prop_oneof![
        3 => Just(LeasePick::None),
        2 => ttl_strategy().prop_map(LeasePick::Ttl),
        2 => lease_id_strategy().prop_map(LeasePick::Lease),
    ]
}

fn branch_op_strategy() -> impl Strategy<Value = BranchOp> {
    prop_oneof![
        (key_strategy()).prop_map(BranchOp::Get),
        (key_strategy(), value_strategy(), lease_strategy()).prop_map(|(k, v, l)| BranchOp::Put(k, v, l)),
        (key_strategy()).prop_map(BranchOp::Delete),
    ]
}

fn compare_strategy() -> impl Strategy<Value = (usize, CompareOp, TargetPick)> {
    let op = prop_oneof![
        3 => Just(CompareOp::Equal),
        1 => Just(CompareOp::NotEqual),
        1 => Just(CompareOp::Greater),
        1 => Just(CompareOp::Less),
    ];
    let target = prop_oneof![
        value_strategy().prop_map(TargetPick::Value),
        (0u8..4).prop_map(TargetPick::Version),
        revision_strategy().prop_map(TargetPick::Create),
        revision_strategy().prop_map(TargetPick::Mod),
        (0u64..6).prop_map(TargetPick::Lease),
    ];
    (key_strategy(), op, target)
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let expect = prop_oneof![
        Just(ExpectPick::Absent),
        value_strategy().prop_map(ExpectPick::Value),
        (value_strategy(), revision_strategy()).prop_map(|(v, r)| ExpectPick::ValueAt(v, r)),
    ];
    prop_oneof![
        2 => key_strategy().prop_map(Op::Get),
        4 => (key_strategy(), value_strategy(), lease_strategy()).prop_map(|(k, v, l)| Op::Put(k, v, l)),
        5 => (key_strategy(), value_strategy(), expect, lease_strategy()).prop_map(|(k, v, e, l)| Op::Cas(k, v, e, l)),
        2 => key_strategy().prop_map(Op::Delete),
        3 => (key_strategy(), revision_strategy()).prop_map(|(k, r)| Op::DeleteIf(k, r)),
        2 => (
            prop::collection::vec(compare_strategy(), 0..4),
            prop::collection::vec(branch_op_strategy(), 0..4),
            prop::collection::vec(branch_op_strategy(), 0..3),
        )
            .prop_map(|(compares, success, failure)| Op::Txn { compares, success, failure }),
        2 => ttl_strategy().prop_map(Op::Grant),
        2 => lease_id_strategy().prop_map(Op::KeepAlive),
        1 => lease_id_strategy().prop_map(Op::Revoke),
        3 => (key_strategy(), revision_strategy()).prop_map(|(k, r)| Op::Watch(k, r)),
        1 => any::<u8>().prop_map(Op::Cancel),
        4 => prop_oneof![9 => 0u64..40, 1 => 400u64..700].prop_map(Op::Advance),
        1 => (0u64..600).prop_map(Op::AdvanceTo),
    ]
}

// ----- the reference model ---------------------------------------------------

#[derive(Clone, Debug)]
struct ModelLease {
    ttl_ms: u64,
    deadline_ms: u64,
    key_scoped: bool,
}

/// The store's rules written the slow, obvious way: which keys a lease holds
/// is found by scanning the keys, the change log is never trimmed, and a
/// transaction is applied to a copy that replaces the model only if it ends
/// within the limits.
#[derive(Clone, Debug)]
struct Model {
    limits: Limits,
    revision: u64,
    now_ms: u64,
    keys: BTreeMap<String, KeyValue>,
    leases: BTreeMap<u64, ModelLease>,
    next_lease_id: u64,
    log: Vec<Event>,
    waiting: BTreeMap<u64, (String, u64)>,
    fired: Vec<(u64, Event)>,
}

enum ModelWatch {
    Ready(Event),
    Waiting,
}

impl Model {
    fn new(limits: Limits) -> Self {
        Model {
            limits,
            revision: 1,
            now_ms: 0,
            keys: BTreeMap::new(),
            leases: BTreeMap::new(),
            next_lease_id: 1,
            log: Vec::new(),
            waiting: BTreeMap::new(),
            fired: Vec::new(),
        }
    }

    fn check_key(&self, key: &str) -> Result<(), StoreError> {
        if key.is_empty() {
            Err(StoreError::EmptyKey)
        } else if key.len() > self.limits.key_bytes_max {
            Err(StoreError::KeyTooLong { bytes: key.len(), bytes_max: self.limits.key_bytes_max })
        } else {
            Ok(())
        }
    }

    fn check_ttl(&self, ttl_ms: u64) -> Result<(), StoreError> {
        if (self.limits.ttl_ms_min..=self.limits.ttl_ms_max).contains(&ttl_ms) {
            Ok(())
        } else {
            Err(StoreError::TtlOutOfRange {
                ttl_ms,
                ttl_ms_min: self.limits.ttl_ms_min,
                ttl_ms_max: self.limits.ttl_ms_max,
            })
        }
    }

    fn lease_keys(&self, id: u64) -> Vec<String> {
        self.keys.values().filter(|kv| kv.lease == Some(LeaseId(id))).map(|kv| kv.key.clone()).collect()
    }

    /// The newest revision whose events are no longer all kept.
    fn compacted_revision(&self) -> u64 {
        let kept = self.limits.history_events_max;
        if self.log.len() > kept {
            self.log[self.log.len() - kept - 1].revision
        } else {
            0
        }
    }

    fn holds(compare: &Compare, kv: Option<&KeyValue>) -> bool {
        use std::cmp::Ordering;
        let ordering = match (&compare.target, kv) {
            (CompareTarget::Value(_), None) => return false,
            (CompareTarget::Value(want), Some(kv)) => kv.value.as_str().cmp(want.as_str()),
            (CompareTarget::Version(want), kv) => kv.map(|kv| kv.version).unwrap_or(0).cmp(want),
            (CompareTarget::CreateRevision(want), kv) => kv.map(|kv| kv.create_revision).unwrap_or(0).cmp(want),
            (CompareTarget::ModRevision(want), kv) => kv.map(|kv| kv.mod_revision).unwrap_or(0).cmp(want),
            (CompareTarget::Lease(want), kv) => {
                let have = kv.and_then(|kv| kv.lease).map(|id| id.0).unwrap_or(0);
                have.cmp(&want.map(|id| id.0).unwrap_or(0))
            }
        };
        match compare.op {
            CompareOp::Equal => ordering == Ordering::Equal,
            CompareOp::NotEqual => ordering != Ordering::Equal,
            CompareOp::Greater => ordering == Ordering::Greater,
            CompareOp::Less => ordering == Ordering::Less,
        }
    }

    fn record(&mut self, events: &[Event]) {
        for event in events {
            let woken: Vec<u64> = self
                .waiting
                .iter()
                .filter(|(_, (key, after))| *key == event.key && event.revision > *after)
                .map(|(id, _)| *id)
                .collect();
            for id in woken {
                self.waiting.remove(&id);
                self.fired.push((id, event.clone()));
            }
            self.log.push(event.clone());
        }
    }

    fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError> {
        for compare in &txn.compares {
            self.check_key(&compare.key)?;
        }
        for branch in [&txn.success, &txn.failure] {
            let ops = branch.len().max(txn.compares.len());
            if ops > self.limits.txn_ops_max {
                return Err(StoreError::TooManyOps { ops, ops_max: self.limits.txn_ops_max });
            }
            let mut put: Vec<&str> = Vec::new();
            let mut deleted: Vec<&str> = Vec::new();
            for op in branch {
                match op {
                    TxnOp::Get { key } => self.check_key(key)?,
                    TxnOp::Put { key, value, lease } => {
                        self.check_key(key)?;
                        if value.len() > self.limits.value_bytes_max {
                            return Err(StoreError::ValueTooLarge {
                                bytes: value.len(),
                                bytes_max: self.limits.value_bytes_max,
                            });
                        }
                        if let LeaseChoice::Ttl(ttl_ms) = lease {
                            self.check_ttl(*ttl_ms)?;
                        }
                        if put.contains(&key.as_str()) || deleted.contains(&key.as_str()) {
                            return Err(StoreError::DuplicateKeyInTxn { key: key.clone() });
                        }
                        put.push(key);
                    }
                    TxnOp::Delete { key } => {
                        self.check_key(key)?;
                        if put.contains(&key.as_str()) {
                            return Err(StoreError::DuplicateKeyInTxn { key: key.clone() });
                        }
                        deleted.push(key);
                    }
                }
            }
        }
        let succeeded = txn.compares.iter().all(|compare| Model::holds(compare, self.keys.get(&compare.key)));
        let branch = if succeeded { &txn.success } else { &txn.failure };
        for op in branch {
            if let TxnOp::Put { key, lease: LeaseChoice::Lease(id), .. } = op {
                let Some(lease) = self.leases.get(&id.0) else {
                    return Err(StoreError::LeaseNotFound { lease: id.0 });
                };
                let own = self.keys.get(key).and_then(|kv| kv.lease) == Some(*id);
                if lease.key_scoped && !own {
                    let owner = self.lease_keys(id.0).into_iter().next().unwrap_or_default();
                    return Err(StoreError::LeaseKeyScoped { lease: id.0, key: owner });
                }
            }
        }
        let mut next = self.clone();
        let revision = self.revision + 1;
        let mut events = Vec::new();
        let mut responses = Vec::new();
        let mut leases_created = 0;
        for op in branch {
            match op {
                TxnOp::Get { key } => responses.push(OpResponse::Get { kv: next.keys.get(key).cloned() }),
                TxnOp::Put { key, value, lease } => {
                    let prev = next.keys.get(key).cloned();
                    let lease_old = prev.as_ref().and_then(|kv| kv.lease);
                    let lease_new = match lease {
                        LeaseChoice::None => None,
                        LeaseChoice::Lease(id) => Some(*id),
                        LeaseChoice::Ttl(ttl_ms) => {
                            let id = next.next_lease_id;
                            next.next_lease_id += 1;
                            let deadline_ms = next.now_ms + ttl_ms;
                            next.leases.insert(id, ModelLease { ttl_ms: *ttl_ms, deadline_ms, key_scoped: true });
                            leases_created += 1;
                            Some(LeaseId(id))
                        }
                    };
                    if let Some(old) = lease_old.filter(|old| Some(*old) != lease_new) {
                        if next.leases[&old.0].key_scoped {
                            next.leases.remove(&old.0);
                        }
                    }
                    let kv = KeyValue {
                        key: key.clone(),
                        value: value.clone(),
                        create_revision: prev.as_ref().map(|kv| kv.create_revision).unwrap_or(revision),
                        mod_revision: revision,
                        version: prev.as_ref().map(|kv| kv.version + 1).unwrap_or(1),
                        lease: lease_new,
                    };
                    next.keys.insert(key.clone(), kv.clone());
                    events.push(Event {
                        kind: EventKind::Put,
                        key: key.clone(),
                        revision,
                        at_ms: next.now_ms,
                        kv: Some(kv),
                    });
                    responses.push(OpResponse::Put { prev });
                }
                TxnOp::Delete { key } => match next.keys.remove(key) {
                    Some(prev) => {
                        if let Some(old) = prev.lease {
                            if next.leases[&old.0].key_scoped {
                                next.leases.remove(&old.0);
                            }
                        }
                        events.push(Event {
                            kind: EventKind::Delete,
                            key: key.clone(),
                            revision,
                            at_ms: next.now_ms,
                            kv: None,
                        });
                        responses.push(OpResponse::Delete { deleted: 1, prev: Some(prev) });
                    }
                    None => responses.push(OpResponse::Delete { deleted: 0, prev: None }),
                },
            }
        }
        if next.keys.len() > self.limits.keys_max {
            return Err(StoreError::TooManyKeys { keys_max: self.limits.keys_max });
        }
        if leases_created > 0 && next.leases.len() > self.limits.leases_max {
            return Err(StoreError::TooManyLeases { leases_max: self.limits.leases_max });
        }
        if !events.is_empty() {
            next.revision = revision;
            next.record(&events);
        }
        *self = next;
        Ok(TxnResponse { succeeded, revision: self.revision, responses })
    }

    fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError> {
        self.txn(&Txn { compares: vec![], success: vec![TxnOp::put(key, value, lease)], failure: vec![] })?;
        Ok(self.keys[key].clone())
    }

    fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError> {
        let mut compares = vec![match &expect.value {
            None => Compare::new(key, CompareOp::Equal, CompareTarget::CreateRevision(0)),
            Some(value) => Compare::new(key, CompareOp::Equal, CompareTarget::Value(value.clone())),
        }];
        if let Some(revision) = expect.mod_revision {
            compares.push(Compare::new(key, CompareOp::Equal, CompareTarget::ModRevision(revision)));
        }
        let txn = Txn { compares, success: vec![TxnOp::put(key, next, lease)], failure: vec![TxnOp::get(key)] };
        let response = self.txn(&txn)?;
        Ok(if response.succeeded {
            CasOutcome::Swapped { kv: self.keys[key].clone() }
        } else {
            CasOutcome::Mismatch { current: self.keys.get(key).cloned() }
        })
    }

    fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError> {
        let mut compares = vec![Compare::new(key, CompareOp::NotEqual, CompareTarget::CreateRevision(0))];
        if let Some(revision) = mod_revision {
            compares.push(Compare::new(key, CompareOp::Equal, CompareTarget::ModRevision(revision)));
        }
        let response = self.txn(&Txn { compares, success: vec![TxnOp::delete(key)], failure: vec![] })?;
        Ok(match response.responses.first() {
            Some(OpResponse::Delete { prev, .. }) => prev.clone(),
            _ => None,
        })
    }

    fn grant(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError> {
        self.check_ttl(ttl_ms)?;
        if self.leases.len() >= self.limits.leases_max {
            return Err(StoreError::TooManyLeases { leases_max: self.limits.leases_max });
        }
        let id = self.next_lease_id;
        self.next_lease_id += 1;
        self.leases.insert(id, ModelLease { ttl_ms, deadline_ms: self.now_ms + ttl_ms, key_scoped: false });
        Ok(LeaseId(id))
    }

    fn keep_alive(&mut self, id: u64) -> Result<u64, StoreError> {
        let now_ms = self.now_ms;
        let lease = self.leases.get_mut(&id).ok_or(StoreError::LeaseNotFound { lease: id })?;
        lease.deadline_ms = now_ms + lease.ttl_ms;
        Ok(lease.ttl_ms)
    }

    fn end_lease(&mut self, id: u64, kind: EventKind) -> Vec<Event> {
        self.leases.remove(&id);
        let keys = self.lease_keys(id);
        if keys.is_empty() {
            return Vec::new();
        }
        self.revision += 1;
        let events: Vec<Event> = keys
            .into_iter()
            .map(|key| {
                self.keys.remove(&key);
                Event { kind, key, revision: self.revision, at_ms: self.now_ms, kv: None }
            })
            .collect();
        self.record(&events);
        events
    }

    fn revoke(&mut self, id: u64) -> Result<u64, StoreError> {
        if !self.leases.contains_key(&id) {
            return Err(StoreError::LeaseNotFound { lease: id });
        }
        self.end_lease(id, EventKind::Delete);
        Ok(self.revision)
    }

    fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError> {
        if to_ms < self.now_ms {
            return Err(StoreError::ClockBackwards { now_ms: self.now_ms, to_ms });
        }
        if to_ms > self.limits.time_ms_max {
            return Err(StoreError::TimeOutOfRange { to_ms, time_ms_max: self.limits.time_ms_max });
        }
        let mut events = Vec::new();
        while let Some((id, deadline_ms)) = self
            .leases
            .iter()
            .filter(|(_, lease)| lease.deadline_ms <= to_ms)
            .map(|(id, lease)| (*id, lease.deadline_ms))
            .min_by_key(|(id, deadline_ms)| (*deadline_ms, *id))
        {
            self.now_ms = self.now_ms.max(deadline_ms);
            events.extend(self.end_lease(id, EventKind::Expire));
        }
        self.now_ms = to_ms;
        Ok(events)
    }

    fn watch(&self, key: &str, after_revision: u64) -> Result<ModelWatch, StoreError> {
        self.check_key(key)?;
        let compacted_revision = self.compacted_revision();
        if after_revision < compacted_revision {
            return Err(StoreError::Compacted { after_revision, compacted_revision });
        }
        if let Some(event) = self.log.iter().find(|event| event.key == key && event.revision > after_revision) {
            return Ok(ModelWatch::Ready(event.clone()));
        }
        if self.waiting.len() >= self.limits.watchers_max {
            return Err(StoreError::TooManyWatchers { watchers_max: self.limits.watchers_max });
        }
        Ok(ModelWatch::Waiting)
    }

    fn lease_infos(&self) -> Vec<LeaseInfo> {
        self.leases
            .iter()
            .map(|(id, lease)| LeaseInfo {
                id: LeaseId(*id),
                granted_ttl_ms: lease.ttl_ms,
                remaining_ms: lease.deadline_ms - self.now_ms,
                keys: self.lease_keys(*id),
                key_scoped: lease.key_scoped,
            })
            .collect()
    }

    fn ttl_remaining_ms(&self, key: &str) -> Option<u64> {
        let id = self.keys.get(key)?.lease?;
        Some(self.leases[&id.0].deadline_ms - self.now_ms)
    }
}

// ----- the harness -------------------------------------------------------------

/// One registered watch, as the harness saw it start.
struct Registration {
    key: String,
    after_revision: u64,
    cancelled: bool,
    delivered: Option<Event>,
}

struct Harness {
    store: Store,
    model: Model,
    /// Every change, built from what the store showed (key diffs and the
    /// events an advance returned), independently of the model.
    log: Vec<Event>,
    watches: BTreeMap<u64, Registration>,
    /// Every mod revision ever seen on a key, with the step that wrote it.
    mod_revisions: BTreeMap<u64, usize>,
    /// The last mod revision each key had, across incarnations.
    key_last_mod: BTreeMap<String, u64>,
    /// The revision of the last fired event taken, to check firing order.
    fired_revision_last: u64,
    trace: Vec<String>,
}

fn same<T: PartialEq + std::fmt::Debug>(what: &str, store: T, model: T) {
    assert_eq!(store, model, "{what}: store (left) and reference model (right) disagree");
}

impl Harness {
    fn new(limits: Limits) -> Self {
        Harness {
            store: Store::with_limits(limits.clone()),
            model: Model::new(limits),
            log: Vec::new(),
            watches: BTreeMap::new(),
            mod_revisions: BTreeMap::new(),
            key_last_mod: BTreeMap::new(),
            fired_revision_last: 0,
            trace: Vec::new(),
        }
    }

    fn revision(&self, key: &str, pick: RevisionPick) -> u64 {
        let revision = self.store.revision();
        match pick {
            RevisionPick::KeyCurrent => self.store.get(key).map_or(0, |kv| kv.mod_revision),
            RevisionPick::Back(n) => revision.saturating_sub(u64::from(n)),
            RevisionPick::Ahead(n) => revision + u64::from(n),
        }
    }

    fn lease_id(&self, pick: LeaseIdPick) -> u64 {
        match pick {
            LeaseIdPick::Live(n) => {
                let live = self.store.leases();
                // With no live lease, id 1 is either expired or never granted.
                live.get(n as usize % live.len().max(1)).map_or(1, |lease| lease.id.0)
            }
            LeaseIdPick::Raw(id) => id,
        }
    }

    fn lease(&self, pick: LeasePick) -> LeaseChoice {
        match pick {
            LeasePick::None => LeaseChoice::None,
            LeasePick::Ttl(ttl_ms) => LeaseChoice::Ttl(ttl_ms),
            LeasePick::Lease(id) => LeaseChoice::Lease(LeaseId(self.lease_id(id))),
        }
    }

    fn branch(&self, ops: &[BranchOp]) -> Vec<TxnOp> {
        ops.iter()
            .map(|op| match *op {
                BranchOp::Get(key) => TxnOp::get(KEYS[key]),
                BranchOp::Put(key, v, lease) => TxnOp::put(KEYS[key], value(v), self.lease(lease)),
                BranchOp::Delete(key) => TxnOp::delete(KEYS[key]),
            })
            .collect()
    }

    /// Runs one operation on both sides and checks every property.
    fn step(&mut self, index: usize, op: &Op) {
        let before = format!("{:?}", self.store);
        let keys_before: BTreeMap<String, KeyValue> =
            self.store.keys().map(|kv| (kv.key.clone(), kv.clone())).collect();
        let revision_before = self.store.revision();
        // Keys on a lease and when that lease runs out, to check no key
        // outlives its deadline.
        let deadlines: Vec<(String, u64, u64)> = self
            .store
            .keys()
            .filter_map(|kv| Some((kv.key.clone(), kv.mod_revision, self.store.lease_info(kv.lease?)?.remaining_ms)))
            .map(|(key, revision, remaining_ms)| (key, revision, self.store.now_ms() + remaining_ms))
            .collect();
        // True when the outcome is one that must change nothing at all.
        let mut unchanged = false;
        // Events the store reported for this step (an advance's expiries).
        let mut reported: Option<Vec<Event>> = None;

        let outcome = match op {
            Op::Get(key) => {
                unchanged = true;
                let got = self.store.get(KEYS[*key]).cloned();
                same("get", &got, &self.model.keys.get(KEYS[*key]).cloned());
                format!("{got:?}")
            }
            Op::Put(key, v, lease) => {
                let lease = self.lease(*lease);
                let got = self.store.put(KEYS[*key], value(*v), lease.clone());
                same("put", &got, &self.model.put(KEYS[*key], value(*v), lease));
                unchanged = got.is_err();
                format!("{got:?}")
            }
            Op::Cas(key, v, expect, lease) => {
                let expect = match *expect {
                    ExpectPick::Absent => Expect::absent(),
                    ExpectPick::Value(old) => Expect::value(value(old)),
                    ExpectPick::ValueAt(old, at) => {
                        Expect::value(value(old)).with_mod_revision(self.revision(KEYS[*key], at))
                    }
                };
                let lease = self.lease(*lease);
                let got = self.store.compare_and_swap(KEYS[*key], value(*v), &expect, lease.clone());
                same("cas", &got, &self.model.compare_and_swap(KEYS[*key], value(*v), &expect, lease));
                unchanged = !matches!(got, Ok(CasOutcome::Swapped { .. }));
                format!("{expect:?} {got:?}")
            }
            Op::Delete(key) => {
                let got = self.store.delete(KEYS[*key]);
                same("delete", &got, &self.model.delete_if(KEYS[*key], None));
                unchanged = !matches!(got, Ok(Some(_)));
                format!("{got:?}")
            }
            Op::DeleteIf(key, at) => {
                let revision = self.revision(KEYS[*key], *at);
                let got = self.store.delete_if(KEYS[*key], Some(revision));
                same("delete_if", &got, &self.model.delete_if(KEYS[*key], Some(revision)));
                unchanged = !matches!(got, Ok(Some(_)));
                format!("rev={revision} {got:?}")
            }
            Op::Txn { compares, success, failure } => {
                let compares = compares
                    .iter()
                    .map(|(key, compare_op, target)| {
                        let key = KEYS[*key];
                        let target = match *target {
                            TargetPick::Value(v) => CompareTarget::Value(value(v).to_string()),
                            TargetPick::Version(version) => CompareTarget::Version(u64::from(version)),
                            TargetPick::Create(at) => CompareTarget::CreateRevision(self.revision(key, at)),
                            TargetPick::Mod(at) => CompareTarget::ModRevision(self.revision(key, at)),
                            TargetPick::Lease(id) => CompareTarget::Lease(Some(LeaseId(id)).filter(|id| id.0 != 0)),
                        };
                        Compare::new(key, *compare_op, target)
                    })
                    .collect();
                let txn = Txn { compares, success: self.branch(success), failure: self.branch(failure) };
                let got = self.store.txn(&txn);
                same("txn", &got, &self.model.txn(&txn));
                unchanged = match &got {
                    Err(_) => true,
                    Ok(response) => response.responses.iter().all(|response| {
                        matches!(response, OpResponse::Get { .. } | OpResponse::Delete { deleted: 0, .. })
                    }),
                };
                format!("{txn:?} {got:?}")
            }
            Op::Grant(ttl_ms) => {
                let got = self.store.grant_lease(*ttl_ms);
                same("grant", &got, &self.model.grant(*ttl_ms));
                unchanged = got.is_err();
                format!("{got:?}")
            }
            Op::KeepAlive(pick) => {
                let id = self.lease_id(*pick);
                let got = self.store.keep_alive(LeaseId(id));
                same("keep_alive", &got, &self.model.keep_alive(id));
                unchanged = got.is_err();
                format!("lease {id} {got:?}")
            }
            Op::Revoke(pick) => {
                let id = self.lease_id(*pick);
                let got = self.store.revoke_lease(LeaseId(id));
                same("revoke", &got, &self.model.revoke(id));
                unchanged = got.is_err();
                format!("lease {id} {got:?}")
            }
            Op::Advance(delta_ms) => {
                let to_ms = self.store.now_ms().saturating_add(*delta_ms);
                let got = self.store.advance_by(*delta_ms);
                same("advance_by", &got, &self.model.advance_to(to_ms));
                unchanged = got.is_err();
                reported = got.as_ref().ok().cloned();
                format!("{got:?}")
            }
            Op::AdvanceTo(to_ms) => {
                let got = self.store.advance_to(*to_ms);
                same("advance_to", &got, &self.model.advance_to(*to_ms));
                unchanged = got.is_err();
                reported = got.as_ref().ok().cloned();
                format!("{got:?}")
            }
            Op::Watch(key, at) => {
                let key = KEYS[*key];
                let after_revision = self.revision(key, *at);
                let got = self.store.watch(key, after_revision);
                match (&got, self.model.watch(key, after_revision)) {
                    (Ok(WatchStart::Ready { event }), Ok(ModelWatch::Ready(expected))) => {
                        same("watch ready", event, &expected);
                        unchanged = true;
                    }
                    (Ok(WatchStart::Waiting { watch }), Ok(ModelWatch::Waiting)) => {
                        assert!(!self.watches.contains_key(&watch.0), "watch id {} handed out twice", watch.0);
                        self.model.waiting.insert(watch.0, (key.to_string(), after_revision));
                    }
                    (Err(error), Err(expected)) => {
                        same("watch error", error, &expected);
                        unchanged = true;
                    }
                    (got, _) => panic!("watch {key} after {after_revision}: store says {got:?}, the model disagrees"),
                }
                match &got {
                    Ok(WatchStart::Ready { event }) => {
                        // A ready watch is checked like a fired one, then forgotten.
                        self.check_delivery(key, after_revision, event);
                    }
                    Ok(WatchStart::Waiting { watch }) => {
                        let registration =
                            Registration { key: key.to_string(), after_revision, cancelled: false, delivered: None };
                        self.watches.insert(watch.0, registration);
                    }
                    Err(_) => {}
                }
                format!("after={after_revision} {got:?}")
            }
            Op::Cancel(pick) => {
                let ids: Vec<u64> = self.watches.keys().copied().collect();
                let id = if ids.is_empty() { 1_000 } else { ids[*pick as usize % ids.len()] };
                let got = self.store.cancel_watch(WatchId(id));
                same("cancel_watch", got, self.model.waiting.remove(&id).is_some());
                if got {
                    self.watches.get_mut(&id).expect("a waiting watch was registered").cancelled = true;
                }
                unchanged = !got;
                format!("#{id} {got}")
            }
        };
        self.trace.push(format!("{index:>3}. {op:?}\n       -> {outcome}"));

        if unchanged {
            assert_eq!(before, format!("{:?}", self.store), "this outcome must leave the store exactly as it was");
        }
        self.store.check_invariants();
        self.check_same_state();
        self.check_revisions(index, revision_before, &keys_before, reported.as_deref());
        for (key, mod_revision, deadline_ms) in deadlines {
            if self.store.now_ms() >= deadline_ms {
                let still = self.store.get(&key).filter(|kv| kv.mod_revision == mod_revision);
                assert!(
                    still.is_none(),
                    "{key} is visible at {} ms, past its deadline {deadline_ms} ms",
                    self.store.now_ms()
                );
            }
        }
        self.check_watches();
    }

    fn check_same_state(&self) {
        same("revision", self.store.revision(), self.model.revision);
        same("clock", self.store.now_ms(), self.model.now_ms);
        let keys: Vec<KeyValue> = self.store.keys().cloned().collect();
        same("keys", keys, self.model.keys.values().cloned().collect());
        same("leases", self.store.leases(), self.model.lease_infos());
        same("waiting watchers", self.store.waiting_watchers(), self.model.waiting.len());
        for key in KEYS {
            same("ttl remaining", self.store.key_ttl_remaining_ms(key), self.model.ttl_remaining_ms(key));
        }
    }

    /// Revision rules, and the harness's own change log, from key diffs.
    fn check_revisions(
        &mut self,
        index: usize,
        revision_before: u64,
        keys_before: &BTreeMap<String, KeyValue>,
        reported: Option<&[Event]>,
    ) {
        let revision = self.store.revision();
        assert!(revision >= revision_before, "the revision went back from {revision_before} to {revision}");
        let keys_after: BTreeMap<String, KeyValue> = self.store.keys().map(|kv| (kv.key.clone(), kv.clone())).collect();
        let written: Vec<&KeyValue> = keys_after
            .values()
            .filter(|kv| keys_before.get(&kv.key).is_none_or(|old| old.mod_revision != kv.mod_revision))
            .collect();
        let removed: Vec<&KeyValue> = keys_before.values().filter(|kv| !keys_after.contains_key(&kv.key)).collect();
        match reported {
            Some(events) => {
                // An advance only expires: one revision per lease that held keys.
                assert!(written.is_empty(), "an advance wrote keys: {written:?}");
                let expired: BTreeSet<&str> = events.iter().map(|event| event.key.as_str()).collect();
                let removed_keys: BTreeSet<&str> = removed.iter().map(|kv| kv.key.as_str()).collect();
                assert_eq!(expired, removed_keys, "the advance's events are not the keys it removed");
                let revisions: BTreeSet<u64> = events.iter().map(|event| event.revision).collect();
                assert_eq!(revision - revision_before, revisions.len() as u64, "one revision per expired lease");
                for event in events {
                    assert_eq!(event.kind, EventKind::Expire);
                    assert!(event.revision > revision_before && event.revision <= revision);
                }
                self.log.extend(events.iter().cloned());
            }
            None => {
                let changed = !written.is_empty() || !removed.is_empty();
                assert_eq!(
                    revision - revision_before,
                    u64::from(changed),
                    "one revision per changing write, none otherwise"
                );
                // Removals come first only to keep one order; within one
                // revision the harness does not depend on the order.
                for kv in &removed {
                    self.log.push(Event {
                        kind: EventKind::Delete,
                        key: kv.key.clone(),
                        revision,
                        at_ms: self.store.now_ms(),
                        kv: None,
                    });
                }
                for kv in &written {
                    self.log.push(Event {
                        kind: EventKind::Put,
                        key: kv.key.clone(),
                        revision,
                        at_ms: self.store.now_ms(),
                        kv: Some((*kv).clone()),
                    });
                }
            }
        }
        for kv in written {
            assert_eq!(kv.mod_revision, revision, "{}: a write in this step carries another revision", kv.key);
            if let Some(step) = self.mod_revisions.insert(kv.mod_revision, index) {
                assert_eq!(step, index, "mod revision {} reused (first written in step {step})", kv.mod_revision);
            }
            if let Some(last) = self.key_last_mod.insert(kv.key.clone(), kv.mod_revision) {
                assert!(
                    kv.mod_revision > last,
                    "{}: mod revision {} not above its earlier {last}",
                    kv.key,
                    kv.mod_revision
                );
            }
            let created = keys_before.get(&kv.key).is_none_or(|old| old.create_revision != kv.create_revision);
            if created {
                assert_eq!((kv.version, kv.create_revision), (1, kv.mod_revision), "{}: a new incarnation", kv.key);
            } else {
                assert_eq!(kv.version, keys_before[&kv.key].version + 1, "{}: version +1 per write", kv.key);
            }
        }
    }

    /// The event a watch of `key` after `after_revision` must deliver: the
    /// first change in the harness's log.
    fn check_delivery(&self, key: &str, after_revision: u64, event: &Event) {
        let first = self.log.iter().find(|logged| logged.key == key && logged.revision > after_revision);
        let expected =
            first.unwrap_or_else(|| panic!("watch {key} after {after_revision} got {event:?}, which never happened"));
        assert_eq!(event, expected, "watch {key} after {after_revision} missed or misreported a change");
    }

    fn check_watches(&mut self) {
        let fired = self.store.take_fired();
        let expected = std::mem::take(&mut self.model.fired);
        let fired_ids: Vec<(u64, Event)> = fired.iter().map(|(id, event)| (id.0, event.clone())).collect();
        same("fired watches", &fired_ids, &expected);
        for (id, event) in fired {
            assert!(event.revision >= self.fired_revision_last, "watch #{} fired out of revision order", id.0);
            self.fired_revision_last = event.revision;
            let registration = self.watches.get(&id.0).unwrap_or_else(|| panic!("unknown watch #{} fired", id.0));
            assert!(!registration.cancelled, "cancelled watch #{} fired", id.0);
            assert!(registration.delivered.is_none(), "watch #{} fired twice", id.0);
            let (key, after_revision) = (registration.key.clone(), registration.after_revision);
            self.check_delivery(&key, after_revision, &event);
            self.watches.get_mut(&id.0).expect("checked above").delivered = Some(event);
        }
        // No missed wake-up: a watch still waiting has no change to wake on.
        let mut waiting = 0;
        for (id, registration) in &self.watches {
            if registration.cancelled || registration.delivered.is_some() {
                continue;
            }
            waiting += 1;
            let missed = self
                .log
                .iter()
                .find(|event| event.key == registration.key && event.revision > registration.after_revision);
            assert!(missed.is_none(), "watch #{id} is still waiting but missed {missed:?}");
        }
        assert_eq!(self.store.waiting_watchers(), waiting, "waiting watchers");
    }
}

// ----- running ----------------------------------------------------------------

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|text| text.parse().ok()).unwrap_or(default)
}

/// Small limits, so that every limit is hit within a short sequence.
fn small_limits() -> Limits {
    Limits {
        keys_max: 3,
        key_bytes_max: 4,
        value_bytes_max: 2,
        ttl_ms_min: 5,
        ttl_ms_max: 60,
        leases_max: 3,
        watchers_max: 3,
        txn_ops_max: 3,
        history_events_max: 6,
        range_bytes_max: 8,
        time_ms_max: 1_000,
    }
}

thread_local! {
    /// Set while proptest explores and shrinks: each failing attempt panics,
    /// and printing thousands of those would bury the one report that counts.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent on threads that are
/// exploring, and prints as usual everywhere else.
fn quiet_panics_while_exploring() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|quiet| quiet.get()) {
                default_hook(info);
            }
        }));
    });
}

fn run_sequence(limits: &Limits, ops: &[Op], trace: &mut Vec<String>) {
    let mut harness = Harness::new(limits.clone());
    let result = catch_unwind(AssertUnwindSafe(|| {
        for (index, op) in ops.iter().enumerate() {
            harness.step(index, op);
        }
    }));
    *trace = std::mem::take(&mut harness.trace);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// Runs `cases` random sequences against `limits`; on failure, panics with
/// the seed, the minimal sequence, its trace, and how to replay it.
fn check_sequences(test_name: &str, limits: Limits) {
    let seed = env_or("PROPTEST_RNG_SEED", SEED_DEFAULT);
    let cases = env_or("PROPTEST_CASES", CASES_DEFAULT);
    let config = Config {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        // The seed replays a failure; no regression files in the source tree.
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let strategy = prop::collection::vec(op_strategy(), 1..80);
    quiet_panics_while_exploring();
    QUIET.with(|quiet| quiet.set(true));
    let result = runner.run(&strategy, |ops| {
        run_sequence(&limits, &ops, &mut Vec::new());
        Ok(())
    });
    QUIET.with(|quiet| quiet.set(false));
    match result {
        Ok(()) => {}
        Err(TestError::Abort(reason)) => panic!("{test_name}: proptest aborted: {reason}"),
        Err(TestError::Fail(reason, ops)) => {
            let mut trace = Vec::new();
            QUIET.with(|quiet| quiet.set(true));
            let _ = catch_unwind(AssertUnwindSafe(|| run_sequence(&limits, &ops, &mut trace)));
            QUIET.with(|quiet| quiet.set(false));
            panic!(
                "{test_name} failed: {reason}\n\
                 seed {seed}, {cases} cases, limits {limits:?}\n\
                 minimal sequence ({} ops), as run up to the failing step:\n{}\n\
                 replay: PROPTEST_RNG_SEED={seed} PROPTEST_CASES={cases} cargo test -p kv --test properties {test_name}",
                ops.len(),
                trace.join("\n"),
            );
        }
    }
}

#[test]
fn random_sequences_with_default_limits_match_the_model_and_keep_every_rule() {
    check_sequences("random_sequences_with_default_limits_match_the_model_and_keep_every_rule", Limits::default());
}

#[test]
fn random_sequences_with_small_limits_match_the_model_and_keep_every_rule() {
    check_sequences("random_sequences_with_small_limits_match_the_model_and_keep_every_rule", small_limits());
}
