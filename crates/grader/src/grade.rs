//! Grading, the same for every exercise and every kind of submission.
//!
//! An [`Exercise`] says which cases to run (named scenarios, then seeded
//! random schedules) and how to check a finished run's trace. The submission
//! is just a function from a [`Case`] to an [`Execution`]: the Rust reference
//! and buggy variants run through `sim::host`, the learner's JavaScript
//! through the runner. A failing case is shrunk (its plan and its workload)
//! to the smallest case that still fails *the same invariant*, and reported
//! with a replay token that reproduces it exactly.

use serde::{Deserialize, Serialize};
use sim::{Ending, Plan, SimLimits, TraceEvent};

use crate::registry::GRADER_VERSION;
use crate::report::{Counterexample, Status, SuiteReport, TestReport, Violation};

/// The invariant every exercise reports when the learner's code failed to run.
pub const NO_ERRORS: &str = "no-errors";
/// Runs spent shrinking a crash of the learner's code (see `minimize`): the
/// process that crashed alone, then one more candidate.
pub const NO_ERRORS_SHRINK_ATTEMPTS_MAX: u32 = 2;

/// One run to make: a plan of faults and a workload for the processes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case<W> {
    /// The scenario's id, e.g. `ttl-unlock-bug` or `random`.
    pub scenario: String,
    pub plan: Plan,
    pub workload: W,
    pub limits: SimLimits,
}

/// What running a case produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    pub ending: Ending,
    pub trace: Vec<TraceEvent>,
}

/// A named, hand-written scenario: one test.
#[derive(Clone, Debug)]
pub struct Scenario<W> {
    pub id: &'static str,
    /// What the learner sees as the test's name.
    pub title: &'static str,
    pub points: u32,
    pub case: Case<W>,
}

/// A workload that can be written into a replay token and read back.
pub trait WorkloadText: Sized {
    fn encode(&self) -> String;
    fn decode(text: &str) -> Result<Self, String>;
}

/// An exercise's suite and checker.
pub trait Exercise {
    type Workload: Clone + WorkloadText;

    /// `cas`, `lock`, `lease`, `fencing` or `election`.
    fn name(&self) -> &'static str;
    fn scenarios(&self) -> Vec<Scenario<Self::Workload>>;
    /// The random-schedules test: the case for one seed.
    fn random_case(&self, seed: u64) -> Case<Self::Workload>;
    /// Points for the random-schedules test.
    fn random_points(&self) -> u32;
    /// The first broken rule in a finished run, if any.
    fn check(&self, case: &Case<Self::Workload>, execution: &Execution) -> Option<Violation>;
    /// Smaller workloads to try while shrinking, most promising first.
    fn shrink_workload(&self, workload: &Self::Workload) -> Vec<Self::Workload>;
    /// The workload without process `index` (later processes move up).
    fn remove_process(&self, workload: &Self::Workload, index: u32) -> Self::Workload;
}

/// The id and title of the random-schedules test, which every exercise has.
pub const RANDOM_TEST: (&str, &str) = ("random", "random schedules");

/// The invariant of a run the host stopped without saying why.
pub const RUN_STOPPED: &str = "run-stopped";

/// The first broken rule of a finished run: the exercise's checker, then one
/// rule every exercise shares. A run that ended `Stopped` was cut short by its
/// host (a limit the learner's code hit, or a checker that found a violation),
/// so if no rule explains the stop, the run fails anyway: a stop can never
/// pass silently, whoever it was blamed on.
pub fn verdict<E: Exercise>(exercise: &E, case: &Case<E::Workload>, execution: &Execution) -> Option<Violation> {
    let found = exercise.check(case, execution).or_else(|| still_running_after_the_work(case, execution)).or_else(|| {
        (execution.ending == Ending::Stopped).then(|| {
            let last = execution.trace.last();
            Violation::new(
                RUN_STOPPED,
                "the run was stopped before it finished, and no reason was recorded; this is a grader bug, please report it with the replay token".into(),
                execution.trace.len().checked_sub(1),
                last.map_or(0, |event| event.at_ms),
                last.and_then(|event| event.process),
            )
        })
    });
    // A message may quote the learner's values: bounded here, where grading and replays both get it.
    found.map(|violation| Violation {
        message: crate::shown::cut_middle(&violation.message, crate::shown::MESSAGE_CHARS_MAX),
        ..violation
    })
}

/// A run that every process's workload had finished (or crashed out of),
/// and that went on until a limit ended it: some code was left running
/// after its work was done (a keep-alive never stopped, a loop in a task
/// nobody waited for). It breaks the rule every exercise shares: each run
/// finishes within the limits. Blamed on the process whose call came last.
fn still_running_after_the_work<W>(case: &Case<W>, execution: &Execution) -> Option<Violation> {
    let Ending::Limit { limit } = &execution.ending else { return None };
    let processes = case.plan.processes as usize;
    let mut done = vec![false; processes];
    let mut finished_ms = vec![0; processes];
    let mut last_call: Option<(usize, &sim::TraceEvent)> = None;
    for (index, event) in execution.trace.iter().enumerate() {
        let Some(process) = event.process.map(|process| process as usize).filter(|&process| process < processes) else {
            continue;
        };
        match &event.happening {
            sim::Happening::Finish => {
                done[process] = true;
                finished_ms[process] = event.at_ms;
            }
            sim::Happening::Crash => done[process] = true,
            sim::Happening::Invoke { .. } => last_call = Some((index, event)),
            _ => {}
        }
    }
    if !done.iter().all(|&done| done) {
        return None;
    }
    let (index, event) = last_call?;
    let process = event.process?;
    let sim::Happening::Invoke { request, .. } = &event.happening else { return None };
    let name = sim::process_name(process);
    let since = finished_ms[process as usize];
    Some(Violation::new(
        NO_ERRORS,
        format!(
            "{name} finished its work at t={since} ms, but its code went on running: it called {} at t={} ms, and nothing stopped it before the run was ended ({}). A task left running after the work is done (a keep-alive, a loop nobody waits for) must stop: stop what a function starts before it returns, or when unlock or resign runs",
            request.describe(),
            event.at_ms,
            limit.describe(&case.limits)
        ),
        Some(index),
        event.at_ms,
        Some(process),
    ))
}

/// How much to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradeOptions {
    /// Random schedules: seeds `first_seed .. first_seed + seeds`.
    pub first_seed: u64,
    pub seeds: u32,
    /// Runs spent shrinking one failure.
    pub shrink_attempts_max: u32,
}

impl Default for GradeOptions {
    fn default() -> Self {
        GradeOptions { first_seed: 1, seeds: 200, shrink_attempts_max: 400 }
    }
}

/// Writes a case as one pasteable line:
/// `exercise@graderVersion:scenario:workload:plan`. The version is there
/// because another grader may number its cases differently: a token is only
/// ever replayed by the version that made it.
pub fn replay_token<E: Exercise>(exercise: &E, case: &Case<E::Workload>) -> String {
    format!(
        "{}@{}:{}:{}:{}",
        exercise.name(),
        GRADER_VERSION,
        case.scenario,
        case.workload.encode(),
        sim::token::encode(&case.plan)
    )
}

/// Reads a replay token back into a case of `exercise`.
pub fn case_from_token<E: Exercise>(exercise: &E, token: &str) -> Result<Case<E::Workload>, String> {
    let parts: Vec<&str> = token.trim().splitn(4, ':').collect();
    let [stamp, scenario, workload, plan] = parts[..] else {
        return Err(format!(
            "`{token}` is not a replay token: it has the form exercise@version:scenario:workload:plan"
        ));
    };
    let Some((name, version)) = stamp.split_once('@') else {
        return Err(format!(
            "this replay token was made by a leaselab grader older than {GRADER_VERSION} (it carries no version), which may number its cases differently; run the tests again to get a token for this version"
        ));
    };
    if version != GRADER_VERSION {
        return Err(format!(
            "this replay token was made by leaselab's grader {version}, and this is grader {GRADER_VERSION}, which may number its cases differently; run the tests again to get a token for this version"
        ));
    }
    if name != exercise.name() {
        return Err(format!("this replay token is for the {name} exercise, not {}", exercise.name()));
    }
    let plan = sim::token::decode(plan).map_err(|error| error.to_string())?;
    // The test's own case: a token's plan must be that case's or one its shrinking makes, so that a
    // hand-made token cannot show a run under faults the exercise never plans.
    let planned = match exercise.scenarios().into_iter().find(|candidate| candidate.id == scenario) {
        Some(found) => found.case,
        None if scenario == RANDOM_TEST.0 => exercise.random_case(plan.seed),
        None => {
            let tests: Vec<&str> = exercise.scenarios().iter().map(|found| found.id).chain([RANDOM_TEST.0]).collect();
            return Err(format!(
                "this replay token names the test `{scenario}`, which the {} exercise does not have (its tests: {})",
                exercise.name(),
                tests.join(", ")
            ));
        }
    };
    sim::shrink::check_shrunk_from(&planned.plan, &plan)
        .map_err(|why| format!("this replay token's plan cannot be one of the `{scenario}` test's runs: {why}"))?;
    Ok(Case { scenario: scenario.to_string(), plan, workload: E::Workload::decode(workload)?, limits: planned.limits })
}

/// Runs every test of the exercise against one submission.
pub fn grade<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&Case<E::Workload>) -> Execution,
    options: &GradeOptions,
) -> SuiteReport {
    grade_part(exercise, run, options, ScenarioPart::ALL)
}

/// Which named scenarios one part of a grading split across workers runs:
/// those whose position `i` in the suite has `i % count == index`. The
/// random-schedules test always runs, over `options`' seeds (the host gives
/// each part its own range of seeds); the host merges the parts' reports in
/// the suite's order (`runner/merge.js`), which gives the report a grading
/// in one piece gives, because every run is independent of the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScenarioPart {
    pub index: u32,
    pub count: u32,
}

impl ScenarioPart {
    /// Every scenario: a grading in one piece.
    pub const ALL: ScenarioPart = ScenarioPart { index: 0, count: 1 };

    fn runs(&self, position: usize) -> bool {
        self.count <= 1 || position % self.count as usize == self.index as usize
    }
}

/// `grade`, for one part of a split grading (see [`ScenarioPart`]): the
/// report lists the scenarios of this part, then the random-schedules test.
pub fn grade_part<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&Case<E::Workload>) -> Execution,
    options: &GradeOptions,
    part: ScenarioPart,
) -> SuiteReport {
    grade_part_with(exercise, run, options, part, &mut |_| {})
}

/// What a host hears about a test while its suite is graded, each as soon
/// as it is known, in the report's order.
#[derive(Clone, Copy, Debug)]
pub enum TestEvent<'a> {
    /// The next test of the report has failed: a case broke a rule, so its
    /// verdict is final (failed, no points), and its counterexample is now
    /// being shrunk, which can take hundreds of runs. Its `Finished` follows.
    Failing { name: &'a str },
    /// A test is finished (its runs done and its failure shrunk): the very
    /// entry the returned report holds.
    Finished(&'a TestReport),
}

/// `grade_part`, telling `on_test` about each test as soon as it is known
/// (see [`TestEvent`]): a host can show that a test failed before its
/// counterexample is shrunk, and the whole failure while the later tests
/// still run.
pub fn grade_part_with<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&Case<E::Workload>) -> Execution,
    options: &GradeOptions,
    part: ScenarioPart,
    on_test: &mut dyn FnMut(TestEvent<'_>),
) -> SuiteReport {
    let mut tests = Vec::new();
    for (position, scenario) in exercise.scenarios().into_iter().enumerate() {
        if !part.runs(position) {
            continue;
        }
        let cases = std::iter::once(scenario.case);
        let test = grade_cases(exercise, run, options, scenario.title, scenario.points, cases, on_test);
        on_test(TestEvent::Finished(&test));
        tests.push(test);
    }
    let seeds = options.first_seed..options.first_seed + u64::from(options.seeds);
    let random_cases = seeds.map(|seed| exercise.random_case(seed));
    let test = grade_cases(exercise, run, options, RANDOM_TEST.1, exercise.random_points(), random_cases, on_test);
    on_test(TestEvent::Finished(&test));
    tests.push(test);
    SuiteReport {
        exercise: exercise.name().to_string(),
        grader_version: GRADER_VERSION.to_string(),
        score: tests.iter().map(|test| test.score).sum(),
        max_score: tests.iter().map(|test| test.max_score).sum(),
        tests,
    }
}

fn grade_cases<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&Case<E::Workload>) -> Execution,
    options: &GradeOptions,
    name: &str,
    points: u32,
    cases: impl Iterator<Item = Case<E::Workload>>,
    on_test: &mut dyn FnMut(TestEvent<'_>),
) -> TestReport {
    let mut runs = 0;
    for case in cases {
        runs += 1;
        let execution = run(&case);
        if let Some(violation) = verdict(exercise, &case, &execution) {
            on_test(TestEvent::Failing { name });
            let counterexample = minimize(exercise, run, options, case, execution, violation);
            return TestReport {
                name: name.to_string(),
                status: Status::Failed,
                score: 0,
                max_score: points,
                message: counterexample.violation.message.clone(),
                runs,
                counterexample: Some(counterexample),
            };
        }
    }
    TestReport {
        name: name.to_string(),
        status: Status::Passed,
        score: points,
        max_score: points,
        message: String::new(),
        runs,
        counterexample: None,
    }
}

/// Shrinks a failing case while it still breaks the same invariant.
pub fn minimize<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&Case<E::Workload>) -> Execution,
    options: &GradeOptions,
    case: Case<E::Workload>,
    execution: Execution,
    violation: Violation,
) -> Counterexample {
    let shrunk_from_events = execution.trace.len();
    let invariant = violation.invariant.clone();
    let blamed = violation.process;
    let mut best = (execution, violation);
    let without = |case: &Case<E::Workload>, removed| Case {
        plan: sim::shrink::without_process(&case.plan, removed),
        workload: exercise.remove_process(&case.workload, removed),
        ..case.clone()
    };
    let candidates = |case: &Case<E::Workload>| {
        // A process less: tried first in every round (see `sim::shrink::shrink`).
        let first = if case.plan.processes > 1 {
            (0..case.plan.processes).rev().map(|removed| without(case, removed)).collect()
        } else {
            Vec::new()
        };
        let mut rest: Vec<Case<E::Workload>> = exercise
            .shrink_workload(&case.workload)
            .into_iter()
            .map(|workload| Case { workload, ..case.clone() })
            .collect();
        rest.extend(sim::shrink::plan_candidates(&case.plan).into_iter().map(|plan| Case { plan, ..case.clone() }));
        sim::shrink::Candidates { first, rest }
    };
    let mut keeps = |candidate: &Case<E::Workload>| {
        let execution = run(candidate);
        match verdict(exercise, candidate, &execution) {
            Some(found) if found.invariant == invariant => {
                best = (execution, found);
                true
            }
            _ => false,
        }
    };
    let mut case = case;
    let mut attempts_max = options.shrink_attempts_max;
    // A crash of the learner's code (a throw, an infinite loop, a memory
    // bomb) tells its story without a minimal schedule, and such runs are the
    // expensive ones: shrink them only a little, and first to the process
    // that crashed, alone, in one run.
    if invariant == NO_ERRORS {
        attempts_max = attempts_max.min(NO_ERRORS_SHRINK_ATTEMPTS_MAX);
        if let Some(blamed) =
            blamed.filter(|&process| process < case.plan.processes && case.plan.processes > 1 && attempts_max > 0)
        {
            let others = (0..case.plan.processes).rev().filter(|&process| process != blamed);
            let alone = others.fold(case.clone(), |smaller, removed| without(&smaller, removed));
            attempts_max -= 1;
            if keeps(&alone) {
                case = alone;
            }
        }
    }
    let shrunk = sim::shrink::shrink(case, attempts_max, candidates, &mut keeps);
    let (mut execution, mut violation) = best;
    // The story ends where the rule broke: what came after is noise.
    if let Some(index) = violation.trace_index {
        execution.trace.truncate(index + 1);
    }
    // The words are made from the whole trace, as a replay's are; then a very
    // long run keeps its first and last events (the violation is the last).
    let (words, _) = crate::shown::shown_events(crate::timeline::event_words(&execution.trace));
    let (trace, omitted) = crate::shown::shown_events(execution.trace);
    if let (Some(index), Some(omitted)) = (violation.trace_index.as_mut(), omitted) {
        *index -= omitted.count;
    }
    Counterexample {
        replay_token: replay_token(exercise, &shrunk.case),
        processes: shrunk.case.plan.processes,
        // The learner's texts in it, shown bounded (crate::shown).
        trace: crate::shown::shown_trace(&trace),
        words,
        ending: execution.ending,
        violation,
        shrunk_from_events,
        omitted,
    }
}
