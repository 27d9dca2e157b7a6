//! The cas exercise: the learner writes the store itself (`createStore(clock)`
//! with `get`, `compareAndSwap`, `delete`, store-wide versions and TTLs), and
//! it is graded by differential testing against `kv` on sequences of
//! operations and clock advances.
//!
//! There is no concurrency here, so a case's plan is always
//! `Plan::calm(seed, 1)` and the workload carries the test: the operations.
//! It still goes through [`Exercise`] so that reports, replay tokens and
//! shrinking work as for the other exercises. The code is in three parts:
//!
//! 1. **Workloads** ([`workload`], [`generate`]): named sequences, and random
//!    ones from a seed, aimed at the interesting cases; a compact text form
//!    for replay tokens (`ca=x/~+1000,t1000,ga`); shrinking by removing
//!    operations.
//! 2. **Expected answers** ([`answers::expected_answers`]): what `kv` answers.
//! 3. **Checking** ([`check::check_answers`]): the submission's answers
//!    against `kv`'s, versions compared by the properties the README promises
//!    (see `check.rs`), the first difference named by its cause.
//!
//! # The execution contract (for the JavaScript runner)
//!
//! The runner gets the workload's operations, `case.workload.ops`, as JSON:
//! `{ op: "get", key }`, `{ op: "cas", key, nextValue, currentValue, versionOf, ttlMs }`,
//! `{ op: "delete", key, versionOf }`, `{ op: "advance", ms }`, where
//! `currentValue`, `versionOf` and `ttlMs` may be `null`.
//!
//! 1. Set `nowMs = 0`, make `clock = { now: () => nowMs }`, and call the
//!    learner's `createStore(clock)` once.
//! 2. For each operation `i`, in order, record `answers[i]`:
//!    - `advance`: `nowMs += ms`; the answer is `{ reply: "slept" }`. The store is not called.
//!    - `get`: `store.get(key)`; answer `{ reply: "get", record }` with
//!      `record` null or `{ value, version, keyVersion }`.
//!    - `cas`: `store.compareAndSwap(key, nextValue, currentValue, options)`,
//!      where `options` has `version` only if `versionOf` is not null and
//!      `ttlMs` only if `ttlMs` is not null (with neither, call it with three
//!      arguments); answer `{ reply: "cas", ok: true, version }` or
//!      `{ reply: "cas", ok: false, current }`.
//!    - `delete`: `store.delete(key, { version })` if `versionOf` is not null,
//!      else `store.delete(key)`; answer `{ reply: "delete", ok }`.
//!    - The `version` passed is **the learner's own**: the version in
//!      `answers[versionOf]`, i.e. `record.version` of a get, `version` of a
//!      successful cas, `current.version` of a failed one
//!      ([`answers::version_in`]). If that answer has none, stop here
//!      without a failure: an earlier answer already differs from `kv`'s and
//!      the checker reports that one.
//! 3. A throw, an answer of another shape (versions must be non-negative
//!    safe integers, values strings, `ok` a boolean), or a runner limit
//!    stops the run: `failure` is a one-line message naming the call and what
//!    went wrong, and `answers` ends before that operation.
//! 4. Console output goes into `console` as `{ op: i, text }`.
//! 5. The runner hands the [`run::CasRecording`] `{ answers, failure, console }`
//!    to [`run::execution`], which makes the trace, and the grader checks it
//!    with [`CasExercise`]'s `check`, exactly as for a Rust store
//!    ([`run::run_rust`]).

pub mod answers;
pub mod check;
pub mod generate;
mod rules;
pub mod run;
pub mod store;
pub mod workload;

use sim::{Plan, SimLimits};

pub use answers::{expected_answers, version_in};
pub use check::{check_answers, Finding};
pub use run::{execution, record, replay_answers, run_rust, CasRecording, ConsoleLine};
pub use store::{CasAnswer, CasOptions, CasStoreApi, CasVariant, Clock, VariantStore};
pub use workload::{CasOp, CasWorkload};

use crate::dynamic::HostAnswer;
use crate::grade::{Case, Execution, Exercise, Scenario, WorkloadText};
use crate::registry::{Drive, ExerciseInfo};
use crate::report::Violation;
pub use rules::RULES;

pub struct CasExercise;

fn case(scenario: &str, seed: u64, ops: &str) -> Case<CasWorkload> {
    let workload = CasWorkload::decode(ops).unwrap_or_else(|error| panic!("scenario {scenario}: {error}"));
    Case { scenario: scenario.into(), plan: Plan::calm(seed, 1), workload, limits: SimLimits::default() }
}

/// The named scenarios: id, title, operations (see [`WorkloadText`] for
/// [`CasWorkload`]; `@n` takes the version from answer `n`).
const SCENARIOS: [(&str, &str, &str); 9] = [
    ("create-when-absent", "create only when absent", "ca=p1/~,ca=p2/~,ga,cb=p2/~,gb,ca=p3/p1,ga"),
    ("missing-key-value", "a value compare on a missing key fails", "ca=y/x,ga,ca=y/,ga,ca=x/~,da,ca=y/x,ga"),
    (
        "versions-never-repeat",
        "versions never repeat, across keys and after expiry",
        "ca=p1/~+1000,t1000,ga,ca=p2/~,ga,da,ca=p3/~,cb=p1/~,gb,ga",
    ),
    (
        "ttl-deadline",
        "a TTL runs out exactly at its deadline",
        "ca=x/~+1000,t1000,ca=y/~,ga,cb=x/~+86400000,t86399999,gb,t1,gb,cb=z/x,db",
    ),
    (
        "rewrite-clears-ttl",
        "a rewrite without ttlMs clears the TTL",
        "ca=x/~+1000,t600,ca=y/x,t600,ga,t100000,ga,ca=z/y+300,t300,ga",
    ),
    // `@!`: a version the store never handed out (0, for a store that numbers from 1).
    (
        "versioned-cas",
        "compareAndSwap with a version",
        "ca=x/~,ga,ca=y/x@1,ca=z/y@1,ga,ca=z/y@2,cb=w/~@4,gb,ga,ca=q/z@!,ga",
    ),
    (
        "versioned-delete",
        "versioned delete removes only that version",
        "ca=x/~,ca=y/x,da@0,da@!,ga,da@1,ga,da,cb=x/~+500,t500,db",
    ),
    (
        "failed-cas-changes-nothing",
        "a failed compareAndSwap changes nothing",
        "ca=x/~,ga,ca=y/z,ga,ca=y/~,ga,ca=y/x@0,ga",
    ),
    (
        "key-version",
        "keyVersion counts writes and restarts at 1",
        "ca=x/~,ca=y/x,ga,da,ca=z/~,ga,ca=w/z+100,t100,ca=v/~,ga",
    ),
];

impl Exercise for CasExercise {
    type Workload = CasWorkload;

    fn name(&self) -> &'static str {
        INFO.name
    }

    fn scenarios(&self) -> Vec<Scenario<CasWorkload>> {
        SCENARIOS
            .iter()
            .zip(1u64..)
            .map(|((id, title, ops), seed)| Scenario { id, title, points: 1, case: case(id, seed, ops) })
            .collect()
    }

    fn random_case(&self, seed: u64) -> Case<CasWorkload> {
        Case {
            scenario: "random".into(),
            plan: Plan::calm(seed, 1),
            workload: generate::random_workload(seed),
            limits: SimLimits::default(),
        }
    }

    fn random_points(&self) -> u32 {
        4
    }

    fn check(&self, case: &Case<CasWorkload>, execution: &Execution) -> Option<Violation> {
        let replayed = replay_answers(&case.workload, &execution.trace);
        let finding = check_answers(&case.workload, &replayed.answers, replayed.failure.as_deref())?;
        let trace_index = replayed.trace_index.get(finding.op).copied().flatten();
        Some(Violation::new(finding.invariant, finding.message, trace_index, finding.at_ms, Some(0)))
    }

    /// Shorter sequences whose versions still resolve.
    fn shrink_workload(&self, workload: &CasWorkload) -> Vec<CasWorkload> {
        workload.smaller().into_iter().filter(|candidate| expected_answers(candidate).is_ok()).collect()
    }

    /// One process only: nothing to remove.
    fn remove_process(&self, workload: &CasWorkload, _index: u32) -> CasWorkload {
        workload.clone()
    }
}

impl crate::dynamic::Hosted for CasExercise {
    fn info(&self) -> &'static ExerciseInfo {
        &INFO
    }

    fn implementations(&self) -> Vec<crate::dynamic::Implementation<CasWorkload>> {
        crate::dynamic::Implementation::of(CasVariant::Reference, &CasVariant::BUGGY, run_rust)
    }

    /// The host answers with the recording of the learner's store, turned
    /// into an execution exactly as for a Rust store.
    fn execution_from_json(&self, case: &Case<CasWorkload>, json: &str) -> Result<Execution, String> {
        let recording: CasRecording = serde_json::from_str(json)
            .map_err(|error| format!("the runner answered with a malformed recording: {error}"))?;
        Ok(execution(&case.workload, &recording))
    }

    fn execution_from_answer(&self, case: &Case<CasWorkload>, answer: HostAnswer) -> Result<Execution, String> {
        match answer {
            HostAnswer::Json(json) => self.execution_from_json(case, &json),
            HostAnswer::Execution(_) => {
                Err("the cas runner must answer with its recording as JSON, not with a simulation".into())
            }
        }
    }
}

/// The cas exercise's registry entry.
pub static INFO: ExerciseInfo = ExerciseInfo {
    name: "cas",
    file: "cas.js",
    exports: &["createStore"],
    drive: Drive::Store,
    key: None,
    lab: None,
    rules: rules::RULES,
};
