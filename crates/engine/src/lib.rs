//! The engine: the one runner of learner code. QuickJS-ng and the
//! simulation live in one WebAssembly module, and the run loop, in Rust,
//! drives the in-VM prelude and harness through QuickJS's C API, so a step
//! never leaves the module.
//!
//! - [`arena`], `heap`: QuickJS's heap, one region that a sandbox's seal copies.
//! - [`sandbox`]: a runtime with limits and the sealed realm.
//! - [`module`]: the learner's module, and why it could not load.
//! - [`runner`]: grader cases run with the learner's code.
//! - [`lab`]: lab mode's run, its calls answered by a real store.
//! - [`preflight`]: does it load and export what the exercise needs?
//! - [`sim_run`], [`delivery`], [`outbox`]: a simulated run as the harness sees it.
//!
//! The in-VM JavaScript is in `vm/`: the prelude and the two harnesses.

pub mod arena;
pub mod delivery;
mod heap;
mod js;
pub mod lab;
pub mod limits;
pub mod module;
pub mod outbox;
pub mod preflight;
pub mod runner;
pub mod sandbox;
pub mod sim_run;

pub use limits::Limits;
pub use module::ModuleError;
pub use sandbox::Clock;
pub use sim_run::{SimRun, Step};

use grader::dynamic::{HostAnswer, HostCase};
use grader::{GradeOptions, ScenarioPart, SuiteReport, TestEvent};

/// QuickJS asks the platform for the time (Date, which the sandbox does not
/// have, and its context's set-up): it always reads 0, so nothing in the VM
/// depends on when it runs.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
pub extern "C" fn __rquickjs_host_now_us() -> f64 {
    0.0
}

/// A submission to grade.
pub struct Submission<'a> {
    pub exercise: &'a str,
    pub source: &'a str,
    /// The file name the learner's messages use (the registry's, unless the host says otherwise).
    pub file: &'a str,
    pub limits: Limits,
}

/// What grading a submission gave.
pub enum Graded {
    /// It could not be run at all (a syntax error, a missing export): one sentence each.
    Problems(Vec<String>),
    Report(SuiteReport),
}

/// What a host hears while a submission is graded.
pub struct Listener<'a> {
    /// Before each run (for progress).
    pub on_run: &'a mut dyn FnMut() -> Result<(), String>,
    /// Each test as soon as it is known: failing, then finished.
    pub on_test: &'a mut dyn FnMut(TestEvent<'_>) -> Result<(), String>,
}

/// Grades a submission: the preflight, then the grader's suite (or one part
/// of it), each case run in one sandbox; an error from the listener stops
/// the grading like a host failure. `clock` is the real time in
/// milliseconds, for the wall-clock backstop.
pub fn grade(
    submission: &Submission<'_>,
    options: &GradeOptions,
    part: ScenarioPart,
    listener: Listener<'_>,
    clock: Clock,
) -> Result<Graded, String> {
    let Listener { on_run, on_test } = listener;
    let exercise = runner::Exercise::named(submission.exercise)?;
    let problems = preflight::preflight(submission.source, submission.file, exercise.exports, submission.limits, clock);
    if !problems.is_empty() {
        return Ok(Graded::Problems(problems));
    }
    let drives_store = exercise.drives_store;
    let mut runner = runner::CaseRunner::new(exercise, submission.source, submission.file, submission.limits, clock);
    let mut run = |case: &dyn HostCase| -> Result<HostAnswer, String> {
        on_run()?;
        let workload = case.workload_json()?;
        if drives_store {
            runner.run_cas(&workload).map(HostAnswer::Json)
        } else {
            let sim = sim::Sim::new(case.plan().clone(), case.limits().clone());
            Ok(HostAnswer::Execution(runner.run_simulated(sim, &workload)))
        }
    };
    grader::dynamic::grade_json(submission.exercise, options, part, &mut run, on_test).map(Graded::Report)
}

/// Runs one case (a replay): the runner's answer as JSON, as the grader
/// reads it (an execution, or for cas a recording).
pub fn run_case(submission: &Submission<'_>, case_json: &str, clock: Clock) -> Result<String, String> {
    // The grader's own case, its workload left as the text the harness is handed.
    let case: grader::Case<Box<serde_json::value::RawValue>> =
        serde_json::from_str(case_json).map_err(|error| format!("a malformed case: {error}"))?;
    let exercise = runner::Exercise::named(submission.exercise)?;
    let drives_store = exercise.drives_store;
    let mut runner = runner::CaseRunner::new(exercise, submission.source, submission.file, submission.limits, clock);
    if drives_store {
        runner.run_cas(case.workload.get())
    } else {
        let execution = runner.run_simulated(sim::Sim::new(case.plan, case.limits), case.workload.get());
        Ok(serde_json::to_string(&execution).expect("executions serialize"))
    }
}
