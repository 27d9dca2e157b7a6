//! Grading by exercise name, with cases and executions as JSON: the entry
//! point for hosts that run submissions outside Rust (the JavaScript runner
//! in the browser and in Node). The same `grade()` runs underneath, so the
//! verdicts, the shrinking and the replay tokens are the Rust ones.
//!
//! What the host returns for a case: for `lock`, `lease` and `fencing` the
//! execution `{ ending, trace }` of the simulation it drove; for `cas` (no
//! simulation: the learner's store is called directly) the recording
//! `{ answers, failure, console }` described in `cas/mod.rs`, which is turned
//! into an execution here exactly as for a Rust store.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::cas::{CasExercise, CasRecording};
use crate::fencing::FencingExercise;
use crate::grade::{case_from_token, grade, replay_token, Case, Exercise, Execution, GradeOptions};
use crate::lease::LeaseExercise;
use crate::lock::LockExercise;
use crate::report::{SuiteReport, Violation};

/// The exercises a host may name, in the lesson's order.
pub const EXERCISES: [&str; 4] = ["cas", "lock", "lease", "fencing"];

/// Runs a case given as JSON; returns the host's answer (see the module
/// docs), or a message when the host itself failed.
pub type RunJson<'a> = dyn FnMut(&str) -> Result<HostAnswer, String> + 'a;

/// What a host hands back for one case.
pub enum HostAnswer {
    /// The answer as JSON text: an execution, or for `cas` a recording.
    Json(String),
    /// An execution the host already holds as a value (a simulation that ran
    /// in the same wasm instance): no JSON round trip, which for a long run
    /// costs more than the run itself.
    Execution(Execution),
}

fn unknown(name: &str) -> String {
    format!("there is no exercise named {name:?}; the exercises are {}", EXERCISES.join(", "))
}

/// An exercise plus how to read the host's answer for one of its cases.
trait Hosted: Exercise {
    fn execution_from_json(&self, case: &Case<Self::Workload>, json: &str) -> Result<Execution, String>;

    /// Simulated exercises take an execution as it is; `cas` overrides this.
    fn execution_from_answer(&self, case: &Case<Self::Workload>, answer: HostAnswer) -> Result<Execution, String> {
        match answer {
            HostAnswer::Json(json) => self.execution_from_json(case, &json),
            HostAnswer::Execution(execution) => Ok(execution),
        }
    }
}

fn simulated_execution(json: &str) -> Result<Execution, String> {
    serde_json::from_str(json).map_err(|error| format!("the runner answered with a malformed execution: {error}"))
}

impl Hosted for LockExercise {
    fn execution_from_json(&self, _: &Case<Self::Workload>, json: &str) -> Result<Execution, String> {
        simulated_execution(json)
    }
}

impl Hosted for LeaseExercise {
    fn execution_from_json(&self, _: &Case<Self::Workload>, json: &str) -> Result<Execution, String> {
        simulated_execution(json)
    }
}

impl Hosted for FencingExercise {
    fn execution_from_json(&self, _: &Case<Self::Workload>, json: &str) -> Result<Execution, String> {
        simulated_execution(json)
    }
}

impl Hosted for CasExercise {
    fn execution_from_json(&self, case: &Case<Self::Workload>, json: &str) -> Result<Execution, String> {
        let recording: CasRecording =
            serde_json::from_str(json).map_err(|error| format!("the runner answered with a malformed recording: {error}"))?;
        Ok(crate::cas::execution(&case.workload, &recording))
    }

    fn execution_from_answer(&self, case: &Case<Self::Workload>, answer: HostAnswer) -> Result<Execution, String> {
        match answer {
            HostAnswer::Json(json) => self.execution_from_json(case, &json),
            HostAnswer::Execution(_) => Err("the cas runner must answer with its recording as JSON, not with a simulation".into()),
        }
    }
}

/// Calls `$body` with `$exercise` bound to the exercise named `$name`.
macro_rules! with_exercise {
    ($name:expr, $exercise:ident => $body:expr) => {
        match $name {
            "cas" => {
                let $exercise = &CasExercise;
                $body
            }
            "lock" => {
                let $exercise = &LockExercise;
                $body
            }
            "lease" => {
                let $exercise = &LeaseExercise;
                $body
            }
            "fencing" => {
                let $exercise = &FencingExercise;
                $body
            }
            other => Err(unknown(other)),
        }
    };
}

/// Grades a submission of exercise `name`; `run` executes one case.
pub fn grade_json(name: &str, options: &GradeOptions, run: &mut RunJson<'_>) -> Result<SuiteReport, String> {
    with_exercise!(name, exercise => grade_with(exercise, options, run))
}

fn grade_with<E>(exercise: &E, options: &GradeOptions, run: &mut RunJson<'_>) -> Result<SuiteReport, String>
where
    E: Hosted,
    E::Workload: Serialize + DeserializeOwned,
{
    // The first host failure stops grading: a broken host must not look like a failing submission.
    let mut host_error: Option<String> = None;
    let mut run_case = |case: &Case<E::Workload>| -> Execution {
        if host_error.is_none() {
            let outcome = serde_json::to_string(case)
                .map_err(|error| error.to_string())
                .and_then(|json| run(&json))
                .and_then(|answer| exercise.execution_from_answer(case, answer));
            match outcome {
                Ok(execution) => return execution,
                Err(message) => host_error = Some(message),
            }
        }
        Execution { ending: sim::Ending::Stopped, trace: Vec::new() }
    };
    let report = grade(exercise, &mut run_case, options);
    match host_error {
        Some(message) => Err(message),
        None => Ok(report),
    }
}

/// The case a replay token stands for, as JSON.
pub fn case_json_from_token(name: &str, token: &str) -> Result<String, String> {
    with_exercise!(name, exercise => {
        let case = case_from_token(exercise, token)?;
        serde_json::to_string(&case).map_err(|error| error.to_string())
    })
}

/// Checks the host's answer (JSON) for one case (JSON), for replays.
pub fn check_json(name: &str, case_json: &str, answer_json: &str) -> Result<Option<Violation>, String> {
    fn with<E: Hosted>(exercise: &E, case_json: &str, answer_json: &str) -> Result<Option<Violation>, String>
    where
        E::Workload: DeserializeOwned,
    {
        let case: Case<E::Workload> = serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))?;
        let execution = exercise.execution_from_json(&case, answer_json)?;
        Ok(crate::grade::verdict(exercise, &case, &execution))
    }
    with_exercise!(name, exercise => with(exercise, case_json, answer_json))
}

/// The replay token of a case given as JSON.
pub fn token_of_case_json(name: &str, case_json: &str) -> Result<String, String> {
    fn with<E: Exercise>(exercise: &E, case_json: &str) -> Result<String, String>
    where
        E::Workload: DeserializeOwned,
    {
        let case = serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))?;
        Ok(replay_token(exercise, &case))
    }
    with_exercise!(name, exercise => with(exercise, case_json))
}

/// The Rust reference solution's execution of a case (JSON in and out): the
/// yardstick for the JavaScript harness, which must produce the very same
/// trace when it runs the lesson's `solution.js`.
pub fn reference_execution_json(name: &str, case_json: &str) -> Result<String, String> {
    fn parse<W: DeserializeOwned>(case_json: &str) -> Result<Case<W>, String> {
        serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))
    }
    let execution = match name {
        "cas" => crate::cas::run_rust(crate::cas::CasVariant::Reference, &parse(case_json)?),
        "lock" => crate::lock::run_rust(lock::LockVariant::Reference, &parse(case_json)?),
        "lease" => crate::lease::run_rust(lease::LeaseVariant::Reference, &parse(case_json)?),
        "fencing" => crate::fencing::run_rust(lease::FencingVariant::Reference, &parse(case_json)?),
        other => return Err(unknown(other)),
    };
    serde_json::to_string(&execution).map_err(|error| error.to_string())
}

/// The execution the grader reads from a host's answer for a case (JSON).
pub fn execution_json_from_answer(name: &str, case_json: &str, answer_json: &str) -> Result<String, String> {
    fn with<E: Hosted>(exercise: &E, case_json: &str, answer_json: &str) -> Result<String, String>
    where
        E::Workload: DeserializeOwned,
    {
        let case: Case<E::Workload> = serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))?;
        let execution = exercise.execution_from_json(&case, answer_json)?;
        serde_json::to_string(&execution).map_err(|error| error.to_string())
    }
    with_exercise!(name, exercise => with(exercise, case_json, answer_json))
}

/// The most points a submission of exercise `name` can score.
pub fn max_score(name: &str) -> Result<u32, String> {
    fn with<E: Exercise>(exercise: &E) -> Result<u32, String> {
        Ok(exercise.scenarios().iter().map(|scenario| scenario.points).sum::<u32>() + exercise.random_points())
    }
    with_exercise!(name, exercise => with(exercise))
}
