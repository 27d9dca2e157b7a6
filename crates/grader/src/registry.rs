//! The exercise registry: the one place that says which exercises exist and
//! what each one is, for every host. The page, the worker, the mount code,
//! the CLI, `content check`, the benchmarks and the tests read it (through
//! the wasm's `exerciseRegistry()` or, natively, [`registry_json`]); none
//! keeps a list of its own. The tests' corpora are folders per exercise,
//! and their loaders fail when a registered exercise has none.
//!
//! What an entry says is fixed data ([`ExerciseInfo`], written beside each
//! exercise's suite); what can be computed from the suite (its tests, the
//! points, the lab's workload) is computed here, so it cannot drift.

use serde::Serialize;
use serde_json::{json, Value};

use crate::dynamic::{exercise_named, EXERCISE_LIST};
use crate::grade::GradeOptions;
use crate::rules::Rule;

/// The grader's version: verdicts, reports and replay tokens carry it, and a
/// token from another version is refused rather than replayed differently.
/// Bump it whenever a suite, a rule or the numbering of cases changes.
pub const GRADER_VERSION: &str = "0.1.0";

/// How the runner drives an exercise's submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Drive {
    /// The learner's module is a store; the runner calls it with a sequence
    /// of operations (no simulation).
    Store,
    /// Each simulated process runs the learner's module under the kernel.
    Processes,
}

/// What an exercise is, as every host needs to know it.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExerciseInfo {
    /// The exercise's id: its folder in the lesson, its replay tokens' prefix.
    pub name: &'static str,
    /// The file the learner writes, and that the CLI recognises.
    pub file: &'static str,
    /// The functions the module must export, in the README's order.
    pub exports: &'static [&'static str],
    pub drive: Drive,
    /// The store key the harness hands the learner's functions, if any.
    pub key: Option<&'static str>,
    /// What lab mode (the learner's code on a real etcd) shows, if it runs
    /// this exercise.
    pub lab: Option<&'static str>,
    pub rules: &'static [Rule],
}

/// What lab mode runs for an exercise: its processes and their workload.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabRun<W> {
    pub processes: u32,
    pub workload: W,
    /// Real time after which the lab stops whatever is still running.
    pub duration_ms: u64,
}

/// The defaults every host grades with: one budget everywhere.
pub fn defaults() -> GradeOptions {
    GradeOptions::default()
}

/// The names of the exercises, in the lesson's order.
pub fn names() -> Vec<&'static str> {
    EXERCISE_LIST.iter().map(|exercise| exercise.info().name).collect()
}

/// The entry of the exercise called `name`.
pub fn info(name: &str) -> Option<&'static ExerciseInfo> {
    exercise_named(name).ok().map(|exercise| exercise.info())
}

/// The whole registry as JSON data: the grader's version, the default
/// budget, and each exercise's entry with its tests and lab run.
pub fn registry_json() -> Value {
    let defaults = defaults();
    let exercises: Vec<Value> = EXERCISE_LIST
        .iter()
        .map(|exercise| {
            let mut entry = serde_json::to_value(exercise.info()).expect("exercise entries serialize");
            entry["tests"] = exercise.tests_json();
            entry["maxScore"] = json!(exercise.max_score());
            entry["processesMax"] = json!(exercise.processes_max());
            entry["labRun"] = exercise.lab_run_json();
            entry
        })
        .collect();
    json!({
        "graderVersion": GRADER_VERSION,
        "defaults": {
            "firstSeed": defaults.first_seed,
            "seeds": defaults.seeds,
            "shrinkAttemptsMax": defaults.shrink_attempts_max,
            "crashShrinkAttemptsMax": crate::grade::NO_ERRORS_SHRINK_ATTEMPTS_MAX,
        },
        "exercises": exercises,
    })
}
