//! Grading by exercise name, with cases and executions as JSON: the entry
//! point for hosts that run submissions outside Rust (the JavaScript runner
//! in the browser and in Node). The same `grade()` runs underneath, so the
//! verdicts, the shrinking and the replay tokens are the Rust ones.
//!
//! What the host returns for a case: for `lock`, `lease`, `fencing` and `election`
//! the execution `{ ending, trace }` of the simulation it drove; for `cas` (no
//! simulation: the learner's store is called directly) the recording
//! `{ answers, failure, console }` described in `cas/mod.rs`, which is turned
//! into an execution here exactly as for a Rust store.

use serde::de::DeserializeOwned;
use serde::Serialize;

use serde_json::{json, Value};
use std::cell::RefCell;

use crate::cas::CasExercise;
use crate::election::ElectionExercise;
use crate::fencing::FencingExercise;
use crate::grade::{
    case_from_token, grade, grade_part_with, replay_token, Case, Execution, Exercise, GradeOptions, ScenarioPart,
    TestEvent, RANDOM_TEST,
};
use crate::lease::LeaseExercise;
use crate::lock::LockExercise;
use crate::registry::{ExerciseInfo, LabRun};
use crate::report::{SuiteReport, Violation};

/// Runs a case; returns the host's answer (see the module docs), or a
/// message when the host itself failed.
pub type RunJson<'a> = dyn FnMut(&dyn HostCase) -> Result<HostAnswer, String> + 'a;

/// A case as a host is handed it: whole as JSON, for a host that runs it
/// outside Rust (the JavaScript runner), or in parts, for one in this
/// module (the engine), which then needs no JSON round trip for the plan:
/// serialising and reading it again at every run was about 1.5% of a
/// grading, and its reader 25 KB of wasm compiled in every cold process
/// (BENCHMARKS.md, issue 18's tenth pass).
pub trait HostCase {
    /// The whole case as JSON (`{ scenario, plan, workload, limits }`).
    fn json(&self) -> Result<String, String>;
    fn plan(&self) -> &sim::Plan;
    fn limits(&self) -> &sim::SimLimits;
    /// The workload alone, as JSON.
    fn workload_json(&self) -> Result<String, String>;
}

impl<W: Serialize> HostCase for Case<W> {
    fn json(&self) -> Result<String, String> {
        serde_json::to_string(self).map_err(|error| error.to_string())
    }

    fn plan(&self) -> &sim::Plan {
        &self.plan
    }

    fn limits(&self) -> &sim::SimLimits {
        &self.limits
    }

    fn workload_json(&self) -> Result<String, String> {
        serde_json::to_string(&self.workload).map_err(|error| error.to_string())
    }
}

/// Hears about each test as soon as it is known: failing, then finished
/// (see [`crate::grade::grade_part_with`]); an error (the host could not
/// take it) stops the grading like a host failure.
pub type OnTest<'a> = dyn FnMut(TestEvent<'_>) -> Result<(), String> + 'a;

/// What a host hands back for one case.
pub enum HostAnswer {
    /// The answer as JSON text: an execution, or for `cas` a recording.
    Json(String),
    /// An execution the host already holds as a value (a simulation that ran
    /// in the same wasm instance): no JSON round trip, which for a long run
    /// costs more than the run itself.
    Execution(Execution),
}

/// Every exercise, in the lesson's order: the registry's one list.
pub static EXERCISE_LIST: &[&dyn HostedExercise] =
    &[&CasExercise, &LockExercise, &LeaseExercise, &FencingExercise, &ElectionExercise];

/// The exercise called `name`, or a message listing the ones there are.
pub fn exercise_named(name: &str) -> Result<&'static dyn HostedExercise, String> {
    EXERCISE_LIST.iter().copied().find(|exercise| exercise.info().name == name).ok_or_else(|| {
        format!("there is no exercise named {name:?}; the exercises are {}", crate::registry::names().join(", "))
    })
}

/// An exercise as a host sees it: its registry entry, its reference
/// solution, and how to read the host's answer for one of its cases. Each
/// exercise implements it beside its suite (`<exercise>/mod.rs`).
pub trait Hosted: Exercise {
    /// The registry's entry for this exercise.
    fn info(&self) -> &'static ExerciseInfo;
    /// The exercise's Rust implementations: the reference first, then every
    /// known-buggy variant (what the suite is tested against, for every
    /// exercise alike: `tests/every_exercise.rs`).
    fn implementations(&self) -> Vec<Implementation<Self::Workload>>;
    /// The Rust reference solution's execution of a case.
    fn reference_execution(&self, case: &Case<Self::Workload>) -> Execution {
        let reference = self.implementations().into_iter().next();
        let reference =
            reference.expect("the grader is built with its Rust implementations (feature rust-implementations)");
        (reference.run)(case)
    }
    /// What lab mode runs, if it runs this exercise.
    fn lab_run(&self) -> Option<LabRun<Self::Workload>> {
        None
    }
    fn execution_from_json(&self, case: &Case<Self::Workload>, json: &str) -> Result<Execution, String>;

    /// Simulated exercises take an execution as it is; `cas` overrides this.
    fn execution_from_answer(&self, case: &Case<Self::Workload>, answer: HostAnswer) -> Result<Execution, String> {
        match answer {
            HostAnswer::Json(json) => self.execution_from_json(case, &json),
            HostAnswer::Execution(execution) => Ok(execution),
        }
    }
}

/// One Rust implementation of an exercise: its name (the variant's), and
/// how it runs a case.
pub struct Implementation<W> {
    pub name: String,
    pub buggy: bool,
    pub run: Box<dyn Fn(&Case<W>) -> Execution>,
}

impl<W> Implementation<W> {
    /// The implementations of a variant enum: `reference` first, then `buggy`.
    /// None without the `rust-implementations` feature: the grader's
    /// WebAssembly module grades learners' code only, and so links none of
    /// the Rust implementations' code.
    #[cfg(not(feature = "rust-implementations"))]
    pub fn of<V>(_: V, _: &[V], _: fn(V, &Case<W>) -> Execution) -> Vec<Implementation<W>> {
        Vec::new()
    }

    /// The implementations of a variant enum: `reference` first, then `buggy`.
    #[cfg(feature = "rust-implementations")]
    pub fn of<V: Copy + std::fmt::Debug + 'static>(
        reference: V,
        buggy: &[V],
        run: fn(V, &Case<W>) -> Execution,
    ) -> Vec<Implementation<W>>
    where
        W: 'static,
    {
        std::iter::once((reference, false))
            .chain(buggy.iter().map(|&variant| (variant, true)))
            .map(|(variant, buggy)| Implementation {
                name: format!("{variant:?}"),
                buggy,
                run: Box::new(move |case: &Case<W>| run(variant, case)),
            })
            .collect()
    }
}

/// Reads a simulated exercise's answer: the execution of the simulation the
/// host drove.
pub fn simulated_execution(json: &str) -> Result<Execution, String> {
    serde_json::from_str(json).map_err(|error| format!("the runner answered with a malformed execution: {error}"))
}

/// A [`Hosted`] exercise behind JSON, so that one list can hold them all.
pub trait HostedExercise: Sync {
    fn info(&self) -> &'static ExerciseInfo;
    /// Grades a submission (or one part of it, see [`ScenarioPart`]); `run`
    /// executes one case; `on_test` receives each test as it is finished.
    fn grade_json(
        &self,
        options: &GradeOptions,
        part: ScenarioPart,
        run: &mut RunJson<'_>,
        on_test: &mut OnTest<'_>,
    ) -> Result<SuiteReport, String>;
    /// The case a replay token stands for, as JSON.
    fn case_json_from_token(&self, token: &str) -> Result<String, String>;
    /// Checks the host's answer (JSON) for one case (JSON), for replays.
    fn check_json(&self, case_json: &str, answer_json: &str) -> Result<Option<Violation>, String>;
    /// The replay token of a case given as JSON.
    fn token_of_case_json(&self, case_json: &str) -> Result<String, String>;
    /// The Rust reference solution's execution of a case (JSON in and out).
    fn reference_execution_json(&self, case_json: &str) -> Result<String, String>;
    /// The execution the grader reads from a host's answer for a case.
    fn execution_json_from_answer(&self, case_json: &str, answer_json: &str) -> Result<String, String>;
    /// The most points a submission can score.
    fn max_score(&self) -> u32;
    /// The most processes the suite's named scenarios and its first random
    /// case run: the JavaScript runner evaluates that many instances of the
    /// learner's module once per sandbox, before sealing it (a case with
    /// more processes, e.g. from a replay token, evaluates the rest in its run).
    fn processes_max(&self) -> u32;
    /// The tests, in grading order: `{ id, title, points }`.
    fn tests_json(&self) -> Value;
    /// What lab mode runs (`{ processes, workload, durationMs }`), or null.
    fn lab_run_json(&self) -> Value;
    /// The Rust implementations' names and whether each is buggy, reference first.
    fn implementation_names(&self) -> Vec<(String, bool)>;
    /// Grades Rust implementation `index` (see `implementation_names`).
    fn grade_implementation(&self, index: usize, options: &GradeOptions) -> SuiteReport {
        self.grade_implementation_seeing(index, options, &mut |_| {})
    }
    /// The same, showing `seen` each case's execution as it is made (the
    /// benchmarks count runs and store calls with it).
    fn grade_implementation_seeing(
        &self,
        index: usize,
        options: &GradeOptions,
        seen: &mut dyn FnMut(&Execution),
    ) -> SuiteReport;
    /// Replays a token with Rust implementation `index`: its execution and verdict.
    fn replay_implementation(&self, index: usize, token: &str) -> Result<(Execution, Option<Violation>), String>;
}

fn parse_case<W: DeserializeOwned>(case_json: &str) -> Result<Case<W>, String> {
    serde_json::from_str(case_json).map_err(|error| format!("malformed case: {error}"))
}

impl<E> HostedExercise for E
where
    E: Hosted + Sync,
    E::Workload: Serialize + DeserializeOwned,
{
    fn info(&self) -> &'static ExerciseInfo {
        Hosted::info(self)
    }

    fn grade_json(
        &self,
        options: &GradeOptions,
        part: ScenarioPart,
        run: &mut RunJson<'_>,
        on_test: &mut OnTest<'_>,
    ) -> Result<SuiteReport, String> {
        // The first host failure stops grading: a broken host must not look like a failing submission.
        // Shared by the two callbacks: a run can fail, and so can handing a test over.
        let host_error: RefCell<Option<String>> = RefCell::new(None);
        let mut run_case = |case: &Case<E::Workload>| -> Execution {
            if host_error.borrow().is_none() {
                let outcome = run(case).and_then(|answer| self.execution_from_answer(case, answer));
                match outcome {
                    Ok(execution) => return execution,
                    Err(message) => *host_error.borrow_mut() = Some(message),
                }
            }
            Execution { ending: sim::Ending::Stopped, trace: Vec::new() }
        };
        // A test graded after a host failure is the failure's echo, not a verdict: it is not handed over.
        let mut finished = |event: TestEvent<'_>| {
            if host_error.borrow().is_none() {
                if let Err(message) = on_test(event) {
                    *host_error.borrow_mut() = Some(message);
                }
            }
        };
        let report = grade_part_with(self, &mut run_case, options, part, &mut finished);
        match host_error.into_inner() {
            Some(message) => Err(message),
            None => Ok(report),
        }
    }

    fn case_json_from_token(&self, token: &str) -> Result<String, String> {
        let case = case_from_token(self, token)?;
        serde_json::to_string(&case).map_err(|error| error.to_string())
    }

    fn check_json(&self, case_json: &str, answer_json: &str) -> Result<Option<Violation>, String> {
        let case = parse_case(case_json)?;
        let execution = self.execution_from_json(&case, answer_json)?;
        Ok(crate::grade::verdict(self, &case, &execution))
    }

    fn token_of_case_json(&self, case_json: &str) -> Result<String, String> {
        Ok(replay_token(self, &parse_case(case_json)?))
    }

    fn reference_execution_json(&self, case_json: &str) -> Result<String, String> {
        let execution = self.reference_execution(&parse_case(case_json)?);
        serde_json::to_string(&execution).map_err(|error| error.to_string())
    }

    fn execution_json_from_answer(&self, case_json: &str, answer_json: &str) -> Result<String, String> {
        let execution = self.execution_from_json(&parse_case(case_json)?, answer_json)?;
        serde_json::to_string(&execution).map_err(|error| error.to_string())
    }

    fn max_score(&self) -> u32 {
        self.scenarios().iter().map(|scenario| scenario.points).sum::<u32>() + self.random_points()
    }

    fn processes_max(&self) -> u32 {
        self.scenarios()
            .iter()
            .map(|scenario| scenario.case.plan.processes)
            .chain(std::iter::once(self.random_case(GradeOptions::default().first_seed).plan.processes))
            .max()
            .unwrap_or(1)
    }

    fn tests_json(&self) -> Value {
        let mut tests: Vec<Value> = self
            .scenarios()
            .iter()
            .map(|scenario| json!({ "id": scenario.id, "title": scenario.title, "points": scenario.points }))
            .collect();
        tests.push(json!({ "id": RANDOM_TEST.0, "title": RANDOM_TEST.1, "points": self.random_points() }));
        Value::Array(tests)
    }

    fn lab_run_json(&self) -> Value {
        self.lab_run().map_or(Value::Null, |lab| serde_json::to_value(lab).expect("lab runs serialize"))
    }

    fn implementation_names(&self) -> Vec<(String, bool)> {
        self.implementations().into_iter().map(|implementation| (implementation.name, implementation.buggy)).collect()
    }

    fn grade_implementation_seeing(
        &self,
        index: usize,
        options: &GradeOptions,
        seen: &mut dyn FnMut(&Execution),
    ) -> SuiteReport {
        let implementation = self.implementations().swap_remove(index);
        grade(
            self,
            &mut |case| {
                let execution = (implementation.run)(case);
                seen(&execution);
                execution
            },
            options,
        )
    }

    fn replay_implementation(&self, index: usize, token: &str) -> Result<(Execution, Option<Violation>), String> {
        let implementation = self.implementations().swap_remove(index);
        let case = case_from_token(self, token)?;
        let execution = (implementation.run)(&case);
        let violation = crate::grade::verdict(self, &case, &execution);
        Ok((execution, violation))
    }
}

/// Grades a submission of exercise `name` (or one part of it, see
/// [`ScenarioPart`]); `run` executes one case; `on_test` hears about each
/// test as soon as it is known (failing, then finished).
pub fn grade_json(
    name: &str,
    options: &GradeOptions,
    part: ScenarioPart,
    run: &mut RunJson<'_>,
    on_test: &mut OnTest<'_>,
) -> Result<SuiteReport, String> {
    exercise_named(name)?.grade_json(options, part, run, on_test)
}

/// The case a replay token stands for, as JSON.
pub fn case_json_from_token(name: &str, token: &str) -> Result<String, String> {
    exercise_named(name)?.case_json_from_token(token)
}

/// Checks the host's answer (JSON) for one case (JSON), for replays.
pub fn check_json(name: &str, case_json: &str, answer_json: &str) -> Result<Option<Violation>, String> {
    exercise_named(name)?.check_json(case_json, answer_json)
}

/// The replay token of a case given as JSON.
pub fn token_of_case_json(name: &str, case_json: &str) -> Result<String, String> {
    exercise_named(name)?.token_of_case_json(case_json)
}

/// The Rust reference solution's execution of a case (JSON in and out): the
/// yardstick for the JavaScript harness, which must produce the very same
/// trace when it runs the lesson's `solution.js`.
pub fn reference_execution_json(name: &str, case_json: &str) -> Result<String, String> {
    exercise_named(name)?.reference_execution_json(case_json)
}

/// The execution the grader reads from a host's answer for a case (JSON).
pub fn execution_json_from_answer(name: &str, case_json: &str, answer_json: &str) -> Result<String, String> {
    exercise_named(name)?.execution_json_from_answer(case_json, answer_json)
}

/// The most points a submission of exercise `name` can score.
pub fn max_score(name: &str) -> Result<u32, String> {
    Ok(exercise_named(name)?.max_score())
}
