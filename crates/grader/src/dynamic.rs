//! Grading by exercise name, with cases and executions as JSON: the entry
//! point for hosts that run submissions outside Rust (the JavaScript runner
//! in the browser and in Node). The same `grade()` runs underneath, so the
//! verdicts, the shrinking and the replay tokens are the Rust ones.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::grade::{case_from_token, grade, replay_token, Case, Exercise, Execution, GradeOptions};
use crate::lock::LockExercise;
use crate::report::{SuiteReport, Violation};

/// The exercises a host may name.
pub const EXERCISES: [&str; 1] = ["lock"];

/// Runs a case given as JSON; returns the execution as JSON, or a message
/// when the host itself failed (not the submission).
pub type RunJson<'a> = dyn FnMut(&str) -> Result<String, String> + 'a;

fn unknown(name: &str) -> String {
    format!("there is no exercise named {name:?}; the exercises are {}", EXERCISES.join(", "))
}

/// Grades a submission of exercise `name`; `run` executes one case.
pub fn grade_json(name: &str, options: &GradeOptions, run: &mut RunJson<'_>) -> Result<SuiteReport, String> {
    match name {
        "lock" => grade_with(&LockExercise, options, run),
        other => Err(unknown(other)),
    }
}

fn grade_with<E>(exercise: &E, options: &GradeOptions, run: &mut RunJson<'_>) -> Result<SuiteReport, String>
where
    E: Exercise,
    E::Workload: Serialize + DeserializeOwned,
{
    // The first host failure stops grading: a broken host must not look like a failing submission.
    let mut host_error: Option<String> = None;
    let mut run_case = |case: &Case<E::Workload>| -> Execution {
        if host_error.is_none() {
            let outcome = serde_json::to_string(case)
                .map_err(|error| error.to_string())
                .and_then(|json| run(&json))
                .and_then(|json| serde_json::from_str::<Execution>(&json).map_err(|error| format!("the runner answered with a malformed execution: {error}")));
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
    fn with<E: Exercise>(exercise: &E, token: &str) -> Result<String, String>
    where
        E::Workload: Serialize,
    {
        let case = case_from_token(exercise, token)?;
        serde_json::to_string(&case).map_err(|error| error.to_string())
    }
    match name {
        "lock" => with(&LockExercise, token),
        other => Err(unknown(other)),
    }
}

/// Checks one execution of one case (both JSON), for replays.
pub fn check_json(name: &str, case_json: &str, execution_json: &str) -> Result<Option<Violation>, String> {
    fn with<E: Exercise>(exercise: &E, case_json: &str, execution_json: &str) -> Result<Option<Violation>, String>
    where
        E::Workload: DeserializeOwned,
    {
        let case: Case<E::Workload> = serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))?;
        let execution: Execution = serde_json::from_str(execution_json).map_err(|error| format!("malformed execution: {error}"))?;
        Ok(exercise.check(&case, &execution))
    }
    match name {
        "lock" => with(&LockExercise, case_json, execution_json),
        other => Err(unknown(other)),
    }
}

/// The replay token of a case given as JSON.
pub fn token_of_case_json(name: &str, case_json: &str) -> Result<String, String> {
    match name {
        "lock" => {
            let case = serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))?;
            Ok(replay_token(&LockExercise, &case))
        }
        other => Err(unknown(other)),
    }
}
