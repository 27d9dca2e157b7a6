//! Prints how fast each suite grades the reference solution: schedules per
//! second and store calls per second. `cargo bench -p grader`; the figures
//! go in BENCHMARKS.md. Not a test: nothing here passes or fails on a clock.

use std::time::Instant;

use grader::lock::{run_rust, LockExercise};
use grader::{grade, Exercise, GradeOptions};
use lock::LockVariant;

fn main() {
    let options = GradeOptions { seeds: 1_000, ..GradeOptions::default() };
    bench_lock(&options);
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
            calls += execution.trace.iter().filter(|event| matches!(event.happening, sim::Happening::Invoke { .. })).count() as u64;
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
