//! Answers: what a store said to each operation, and what `kv` says.
//!
//! An answer is a [`sim::Reply`] in the lesson's shapes: `Get { record }`,
//! `Cas { ok, version, current }`, `Delete { ok }`, and `Slept` for a clock
//! advance, so `answers[i]` always answers `ops[i]`.
//!
//! The expected answers come from `kv`, the etcd-style model the rest of
//! leaselab runs on, not from a second hand-written store: the differential
//! test then says "your store behaves like the store the lesson teaches".
//! `kv`'s numbers differ from a learner's (its revision starts at 1 so the
//! first write gets 2, and deletes and expiries take revisions too); the
//! checker compares versions by the properties the contract promises, see
//! `check.rs`.

use kv::{CasOutcome, Expect, LeaseChoice, Store};
use sim::{Call, Record, Reply};

use super::workload::{CasOp, CasWorkload, VersionFrom};

/// The version an answer carries, for a later operation's `version_of`:
/// a read record's, a successful write's, or a failed write's `current`.
pub fn version_in(answer: &Reply) -> Option<u64> {
    match answer {
        Reply::Get { record: Some(record) } => Some(record.version),
        Reply::Cas { ok: true, version, .. } => *version,
        Reply::Cas { ok: false, current: Some(record), .. } => Some(record.version),
        _ => None,
    }
}

/// A version no answer so far carries: 0, unless one carries 0; then one
/// more than the largest (the harness computes the same, `neverHandedOut`).
pub fn never_handed_out(answers: &[Reply]) -> u64 {
    let versions: Vec<u64> = answers.iter().filter_map(version_in).collect();
    if versions.contains(&0) {
        versions.iter().max().map_or(0, |largest| largest + 1)
    } else {
        0
    }
}

/// The call a store receives for `ops[index]`, with `version_of` resolved
/// against that store's own earlier `answers`. `None` for an advance, and
/// `Err` when the referenced answer carries no version.
pub fn concrete_call(ops: &[CasOp], index: usize, answers: &[Reply]) -> Result<Option<Call>, String> {
    let op = &ops[index];
    let version = match op.version_of() {
        None => None,
        Some(VersionFrom::Never) => Some(never_handed_out(&answers[..index.min(answers.len())])),
        Some(VersionFrom::Answer(target)) => match answers.get(target).and_then(version_in) {
            Some(version) => Some(version),
            None => {
                return Err(format!(
                    "operation {index} takes its version from operation {target}, whose answer carries no version"
                ));
            }
        },
    };
    Ok(match op {
        CasOp::Get { key } => Some(Call::Get { key: key.clone() }),
        CasOp::Cas { key, next_value, current_value, ttl_ms, .. } => Some(Call::Cas {
            key: key.clone(),
            next_value: next_value.clone(),
            current_value: current_value.clone(),
            version,
            ttl_ms: *ttl_ms,
        }),
        CasOp::Delete { key, .. } => Some(Call::Delete { key: key.clone(), version }),
        CasOp::Advance { .. } => None,
    })
}

/// `kv` in the role of the reference store, one operation at a time (the
/// generator uses it to aim at interesting states).
#[derive(Clone, Debug, Default)]
pub struct Oracle {
    store: Store,
    answers: Vec<Reply>,
}

impl Oracle {
    pub fn new() -> Oracle {
        Oracle::default()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn now_ms(&self) -> u64 {
        self.store.now_ms()
    }

    pub fn answers(&self) -> &[Reply] {
        &self.answers
    }

    /// Applies the next operation, `ops[answers.len()]` (the earlier ones
    /// are those already applied); `Err` if its version does not resolve.
    pub fn apply(&mut self, ops: &[CasOp]) -> Result<&Reply, String> {
        let index = self.answers.len();
        let op = &ops[index];
        let call = concrete_call(ops, index, &self.answers)?;
        let answer = match call {
            None => {
                let CasOp::Advance { ms } = op else { unreachable!("only an advance makes no call") };
                accepted(self.store.advance_by(*ms), op);
                Reply::Slept
            }
            Some(Call::Get { key }) => Reply::Get { record: self.store.get(&key).map(Record::from_kv) },
            Some(Call::Cas { key, next_value, current_value, version, ttl_ms }) => {
                let expect = Expect { value: current_value, mod_revision: version };
                let lease = ttl_ms.map_or(LeaseChoice::None, LeaseChoice::Ttl);
                match accepted(self.store.compare_and_swap(&key, &next_value, &expect, lease), op) {
                    CasOutcome::Swapped { kv } => {
                        Reply::Cas { ok: true, version: Some(kv.mod_revision), current: None }
                    }
                    CasOutcome::Mismatch { current } => {
                        Reply::Cas { ok: false, version: None, current: current.as_ref().map(Record::from_kv) }
                    }
                }
            }
            Some(Call::Delete { key, version }) => {
                Reply::Delete { ok: accepted(self.store.delete_if(&key, version), op).is_some() }
            }
            Some(other) => unreachable!("a cas workload makes no {other:?}"),
        };
        self.answers.push(answer);
        Ok(self.answers.last().expect("just pushed"))
    }
}

/// The workload's limits lie inside kv's, so kv refusing an operation is a
/// bug in the grader, not in the submission.
fn accepted<T>(result: Result<T, kv::StoreError>, op: &CasOp) -> T {
    result.unwrap_or_else(|error| panic!("kv refused {op:?}, which the workload's limits allow: {error}"))
}

/// What `kv` answers to every operation of the workload, in order; `Err`
/// if an operation takes its version from an answer that has none (such a
/// workload is refused when it is decoded, and never generated).
pub fn expected_answers(workload: &CasWorkload) -> Result<Vec<Reply>, String> {
    let mut oracle = Oracle::new();
    for _ in &workload.ops {
        oracle.apply(&workload.ops)?;
    }
    debug_assert_eq!(oracle.answers.len(), workload.ops.len());
    Ok(oracle.answers)
}
