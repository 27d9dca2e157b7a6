//! The election suite against its Rust variants, beyond what every exercise
//! shares (`every_exercise.rs`) and the unit tests beside the suite
//! (`src/election/mod.rs`): the random schedules run every seed they are
//! given, and a failing random run shrinks to a story short enough to read.

use grader::election::{run_rust, ElectionExercise};
use grader::timeline::render_counterexample;
use grader::{grade, GradeOptions, SuiteReport};
use lease::ElectionVariant;

const RANDOM_TEST: &str = "random schedules";

fn grade_variant(variant: ElectionVariant, seeds: u32) -> SuiteReport {
    grade(&ElectionExercise, &mut |case| run_rust(variant, case), &GradeOptions { seeds, ..GradeOptions::default() })
}

#[test]
fn the_random_schedules_run_every_seed_they_are_given() {
    let report = grade_variant(ElectionVariant::Reference, 1_000);
    assert!(report.passed());
    let random = report.tests.iter().find(|test| test.name == RANDOM_TEST).unwrap();
    assert_eq!(random.runs, 1_000);
}

#[test]
fn every_variants_random_failure_shrinks_to_a_short_story() {
    // Measured 2026-12-05 at the default budget: the first failing random
    // runs have 85-154 events and shrink to 12-43.
    for variant in ElectionVariant::BUGGY {
        let report = grade_variant(variant, GradeOptions::default().seeds);
        let random = report.tests.iter().find(|test| test.name == RANDOM_TEST).unwrap();
        let counterexample =
            random.counterexample.as_ref().unwrap_or_else(|| panic!("{variant:?}: the random schedules miss it"));
        let story = || render_counterexample(counterexample);
        assert!(
            counterexample.shrunk_from_events >= 2 * counterexample.trace.len(),
            "{variant:?}: {} events shrunk only to {}:\n{}",
            counterexample.shrunk_from_events,
            counterexample.trace.len(),
            story()
        );
        assert!(
            counterexample.trace.len() <= 45,
            "{variant:?}: shrunk to {} events:\n{}",
            counterexample.trace.len(),
            story()
        );
    }
}
