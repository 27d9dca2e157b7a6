//! Prints how fast each suite grades the reference solution: runs per second
//! and store calls per second, for every exercise in the registry. `cargo
//! bench -p grader`; the figures go in BENCHMARKS.md. Not a test: nothing
//! here passes or fails on a clock.

use std::time::Instant;

use grader::dynamic::{HostedExercise, EXERCISE_LIST};
use grader::{Execution, GradeOptions, SuiteReport};

/// Index of the reference solution among an exercise's Rust implementations.
const REFERENCE: usize = 0;

fn main() {
    // `-- --default-budget-json`: only the suites at the default budget, as
    // JSON (`{ "lock": { "runs": 206, "ms": 18.4 }, … }`), for
    // bench/runner.bench.mjs to put beside the sandbox's figures.
    if std::env::args().any(|arg| arg == "--default-budget-json") {
        let entries: Vec<String> = default_budget()
            .iter()
            .map(|(name, runs, ms)| format!("\"{name}\":{{\"runs\":{runs},\"ms\":{ms:.3}}}"))
            .collect();
        println!("{{{}}}", entries.join(","));
        return;
    }
    let options = GradeOptions { seeds: 1_000, ..GradeOptions::default() };
    println!("native Rust, {} random seeds + named scenarios, the reference solutions:", options.seeds);
    for exercise in EXERCISE_LIST {
        throughput(*exercise, &options);
    }
    println!(
        "native Rust at the default budget ({} random seeds + named scenarios; best of 5):",
        GradeOptions::default().seeds
    );
    for (name, runs, ms) in default_budget() {
        println!("  {name:<8} {runs:>4} runs in {ms:>7.2} ms");
    }
}

/// Each suite at the default budget (the registry's seeds, what a learner's
/// "Run tests" and the CLI grade with), best of five: `(exercise, runs,
/// milliseconds)`, the native figures the runner benchmark's ratios use.
fn default_budget() -> Vec<(&'static str, u32, f64)> {
    let options = GradeOptions::default();
    EXERCISE_LIST
        .iter()
        .map(|exercise| {
            let mut best = f64::INFINITY;
            let mut runs = 0;
            for _ in 0..5 {
                let started = Instant::now();
                let report = exercise.grade_implementation(REFERENCE, &options);
                best = best.min(started.elapsed().as_secs_f64());
                assert_reference_passes(*exercise, &report);
                runs = report.tests.iter().map(|test| test.runs).sum::<u32>();
            }
            (exercise.info().name, runs, best * 1e3)
        })
        .collect()
}

/// One grading of the reference at `options`: runs (named scenarios and
/// random schedules, shrinking never happens on a pass) and store calls per
/// second. Sleeps, including every unit of leader work, are not store calls.
fn throughput(exercise: &dyn HostedExercise, options: &GradeOptions) {
    let mut runs = 0u64;
    let mut calls = 0u64;
    let mut count = |execution: &Execution| {
        runs += 1;
        calls += execution
            .trace
            .iter()
            .filter(
                |event| matches!(&event.happening, sim::Happening::Invoke { request, .. } if request.is_store_call()),
            )
            .count() as u64;
    };
    let started = Instant::now();
    let report = exercise.grade_implementation_seeing(REFERENCE, options, &mut count);
    let seconds = started.elapsed().as_secs_f64();
    assert_reference_passes(exercise, &report);
    println!(
        "  {:<8} {:>6} runs in {:>7.1} ms: {:>9.0} runs/s, {:>10.0} store calls/s (suite of {} tests)",
        exercise.info().name,
        runs,
        seconds * 1e3,
        runs as f64 / seconds,
        calls as f64 / seconds,
        report.tests.len()
    );
}

fn assert_reference_passes(exercise: &dyn HostedExercise, report: &SuiteReport) {
    let (name, buggy) = &exercise.implementation_names()[REFERENCE];
    assert!(!buggy, "{}: implementation {REFERENCE} ({name}) must be the reference", exercise.info().name);
    assert!(report.passed(), "{}: the reference must pass: {report:?}", exercise.info().name);
}
