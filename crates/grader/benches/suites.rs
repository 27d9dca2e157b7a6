//! Prints how fast each suite grades the reference solution: schedules per
//! second and store calls per second. `cargo bench -p grader`; the figures
//! go in BENCHMARKS.md. Not a test: nothing here passes or fails on a clock.

use std::time::Instant;

use grader::lock::{run_rust, LockExercise};
use grader::{grade, Exercise, GradeOptions};
use lock::LockVariant;

fn main() {
    // `-- --default-budget-json`: only the suites at the default budget, as
    // JSON (`{ "lock": { "runs": 206, "ms": 18.4 }, … }`), for
    // bench/runner.bench.mjs to put beside the sandbox's figures.
    if std::env::args().any(|arg| arg == "--default-budget-json") {
        let figures = default_budget();
        let entries: Vec<String> =
            figures.iter().map(|(name, runs, ms)| format!("\"{name}\":{{\"runs\":{runs},\"ms\":{ms:.3}}}")).collect();
        println!("{{{}}}", entries.join(","));
        return;
    }
    let options = GradeOptions { seeds: 1_000, ..GradeOptions::default() };
    bench_lock(&options);
    bench_cas(&options);
    bench_traced(
        &grader::lease::LeaseExercise,
        &mut |case| grader::lease::run_rust(lease::LeaseVariant::Reference, case),
        &options,
    );
    bench_traced(
        &grader::fencing::FencingExercise,
        &mut |case| grader::fencing::run_rust(lease::FencingVariant::Reference, case),
        &options,
    );
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
    let runs_of = |report: &grader::SuiteReport| report.tests.iter().map(|test| test.runs).sum::<u32>();
    let mut figures = Vec::new();
    let mut measure = |name: &'static str, grade_once: &mut dyn FnMut() -> grader::SuiteReport| {
        let mut best = f64::INFINITY;
        let mut runs = 0;
        for _ in 0..5 {
            let started = Instant::now();
            let report = grade_once();
            best = best.min(started.elapsed().as_secs_f64());
            assert!(report.passed(), "the reference must pass: {report:?}");
            runs = runs_of(&report);
        }
        figures.push((name, runs, best * 1e3));
    };
    type Grading = Box<dyn Fn(&GradeOptions) -> grader::SuiteReport>;
    let suites: [(&'static str, Grading); 5] = [
        (
            "cas",
            Box::new(|options| {
                grade(
                    &grader::cas::CasExercise,
                    &mut |case| grader::cas::run_rust(grader::cas::CasVariant::Reference, case),
                    options,
                )
            }),
        ),
        ("lock", Box::new(|options| grade(&LockExercise, &mut |case| run_rust(LockVariant::Reference, case), options))),
        (
            "lease",
            Box::new(|options| {
                grade(
                    &grader::lease::LeaseExercise,
                    &mut |case| grader::lease::run_rust(lease::LeaseVariant::Reference, case),
                    options,
                )
            }),
        ),
        (
            "fencing",
            Box::new(|options| {
                grade(
                    &grader::fencing::FencingExercise,
                    &mut |case| grader::fencing::run_rust(lease::FencingVariant::Reference, case),
                    options,
                )
            }),
        ),
        (
            "election",
            Box::new(|options| {
                grade(
                    &grader::election::ElectionExercise,
                    &mut |case| grader::election::run_rust(lease::ElectionVariant::Reference, case),
                    options,
                )
            }),
        ),
    ];
    for (name, grade_once) in &suites {
        measure(name, &mut || grade_once(&options));
    }
    figures
}

fn bench_lock(options: &GradeOptions) {
    let exercise = LockExercise;
    let mut runs = 0u64;
    let mut calls = 0u64;
    let started = Instant::now();
    let report = grade(
        &exercise,
        &mut |case| {
            let execution = run_rust(LockVariant::Reference, case);
            runs += 1;
            calls +=
                execution.trace.iter().filter(|event| matches!(event.happening, sim::Happening::Invoke { .. })).count()
                    as u64;
            execution
        },
        options,
    );
    let seconds = started.elapsed().as_secs_f64();
    assert!(report.passed(), "the reference must pass: {report:?}");
    println!(
        "{:<8} {:>6} schedules in {:>7.1} ms: {:>9.0} schedules/s, {:>10.0} store calls/s (suite of {} tests)",
        exercise.name(),
        runs,
        seconds * 1e3,
        runs as f64 / seconds,
        calls as f64 / seconds,
        report.tests.len()
    );
}

/// The cas suite: sequences (scenarios and random) per second, and store
/// operations per second, each graded against kv (the bulk of the cost).
fn bench_cas(options: &GradeOptions) {
    let exercise = grader::cas::CasExercise;
    let mut sequences = 0u64;
    let mut operations = 0u64;
    let started = Instant::now();
    let report = grade(
        &exercise,
        &mut |case| {
            sequences += 1;
            operations += case.workload.store_ops() as u64;
            grader::cas::run_rust(grader::cas::CasVariant::Reference, case)
        },
        options,
    );
    let seconds = started.elapsed().as_secs_f64();
    assert!(report.passed(), "the reference must pass: {report:?}");
    println!(
        "{:<8} {:>6} sequences in {:>7.1} ms: {:>9.0} sequences/s, {:>10.0} store ops/s (suite of {} tests)",
        exercise.name(),
        sequences,
        seconds * 1e3,
        sequences as f64 / seconds,
        operations as f64 / seconds,
        report.tests.len()
    );
}

/// A suite whose runs go through the kernel (lease, fencing): schedules per
/// second and store calls per second. Sleeps (including every unit of
/// leader work) are not store calls and are not counted.
fn bench_traced<E: Exercise>(
    exercise: &E,
    run: &mut dyn FnMut(&grader::Case<E::Workload>) -> grader::Execution,
    options: &GradeOptions,
) {
    let mut runs = 0u64;
    let mut calls = 0u64;
    let started = Instant::now();
    let report = grade(
        exercise,
        &mut |case| {
            let execution = run(case);
            runs += 1;
            calls += execution
                .trace
                .iter()
                .filter(|event| matches!(&event.happening, sim::Happening::Invoke { request, .. } if request.is_store_call()))
                .count() as u64;
            execution
        },
        options,
    );
    let seconds = started.elapsed().as_secs_f64();
    assert!(report.passed(), "the reference must pass: {report:?}");
    println!(
        "{:<8} {:>6} schedules in {:>7.1} ms: {:>9.0} schedules/s, {:>10.0} store calls/s (suite of {} tests)",
        exercise.name(),
        runs,
        seconds * 1e3,
        runs as f64 / seconds,
        calls as f64 / seconds,
        report.tests.len()
    );
}
