//! The lock suite against the reference solution and the buggy corpus.

use grader::lock::{run_rust, LockExercise};
use grader::timeline::render_counterexample;
use grader::{grade, Exercise, GradeOptions, Status, SuiteReport};
use lock::LockVariant;

fn grade_variant(variant: LockVariant, seeds: u32) -> SuiteReport {
    let options = GradeOptions { seeds, ..GradeOptions::default() };
    grade(&LockExercise, &mut |case| run_rust(variant, case), &options)
}

fn explain(report: &SuiteReport) -> String {
    report
        .tests
        .iter()
        .filter_map(|test| {
            test.counterexample.as_ref().map(|ce| format!("{}:\n{}", test.name, render_counterexample(ce)))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_reference_passes_every_test_on_1000_seeds() {
    let report = grade_variant(LockVariant::Reference, 1_000);
    assert!(report.passed(), "{}", explain(&report));
    assert_eq!(report.score, report.max_score);
    let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
    assert_eq!(random.runs, 1_000);
}

/// Each classic mistake fails, on the invariant that names it.
#[test]
fn every_buggy_variant_fails_on_its_own_invariant() {
    let expected = [
        (LockVariant::UnlockWithoutVersion, "unlock-only-own"),
        (LockVariant::NoTtl, "lock-has-ttl"),
        (LockVariant::SleepPolling, "wait-by-watch"),
        (LockVariant::WatchFromZero, "wait-by-watch"),
        (LockVariant::TryLockClaimsHeldLock, "acquire-is-real"),
        (LockVariant::UnlockAlwaysTrue, "unlock-answer"),
        (LockVariant::LockOverwrites, "no-overwrite"),
        (LockVariant::UnlockWithKeyVersion, "unlock-answer"),
        (LockVariant::TryLockWaits, "try-lock-once"),
        (LockVariant::TryLockRetries, "try-lock-once"),
        (LockVariant::ValueNotName, "value-is-name"),
        (LockVariant::UnlockOverwritesWithEmpty, "unlock-deletes"),
        (LockVariant::HugeTtl, "lock-has-ttl"),
    ];
    assert_eq!(expected.len(), LockVariant::BUGGY.len());
    for (variant, invariant) in expected {
        let report = grade_variant(variant, 200);
        assert!(!report.passed(), "{variant:?} passed");
        let invariants: Vec<&str> = report
            .tests
            .iter()
            .filter_map(|test| test.counterexample.as_ref().map(|ce| ce.violation.invariant.as_str()))
            .collect();
        assert!(
            invariants.contains(&invariant),
            "{variant:?} failed {invariants:?}, expected {invariant}\n{}",
            explain(&report)
        );
    }
}

#[test]
fn the_ttl_unlock_bug_story_is_told_in_one_line() {
    let report = grade_variant(LockVariant::UnlockWithoutVersion, 10);
    let test = report.tests.iter().find(|test| test.name.starts_with("the TTL unlock bug")).unwrap();
    assert_eq!(test.status, Status::Failed);
    assert!(test.message.starts_with("p1 unlocked a lock that p2 held since t="), "message: {}", test.message);
    assert!(test.message.contains("its own lock had expired at t="), "message: {}", test.message);
}

#[test]
fn random_failures_shrink_to_a_handful_of_events() {
    // Polling shows up in random schedules too; its first failing run is long.
    let options = GradeOptions { seeds: 200, ..GradeOptions::default() };
    let exercise = LockExercise;
    let report = grade(&exercise, &mut |case| run_rust(LockVariant::WatchFromZero, case), &options);
    let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
    let counterexample = random.counterexample.as_ref().expect("the random schedules catch it");
    assert!(counterexample.shrunk_from_events >= 40, "started from {} events", counterexample.shrunk_from_events);
    assert!(
        counterexample.trace.len() <= 40,
        "shrunk to {} events:\n{}",
        counterexample.trace.len(),
        render_counterexample(counterexample)
    );
}

#[test]
fn a_stopped_run_with_no_broken_rule_never_passes() {
    // A host that stops a run must say why; if no rule explains the stop, the
    // run fails anyway, whoever the stop was blamed on.
    let case = LockExercise.random_case(1);
    let stopped = grader::Execution { ending: sim::Ending::Stopped, trace: Vec::new() };
    let violation = grader::grade::verdict(&LockExercise, &case, &stopped).expect("a stopped run fails");
    assert_eq!(violation.invariant, grader::grade::RUN_STOPPED);
    let finished = grader::Execution { ending: sim::Ending::AllFinished, trace: Vec::new() };
    assert_eq!(grader::grade::verdict(&LockExercise, &case, &finished), None);
}

/// A run that reaches its time limit ends at the limit, and a waiter's story
/// says what the trace shows: the holder's lock, written with a TTL far
/// beyond the run, would only expire after it.
#[test]
fn a_lock_outliving_the_run_is_told_by_its_expiry() {
    use grader::lock::{LockStep, LockWorkload};
    use grader::Case;
    use sim::{Fault, Plan, SimLimits};
    let ttl_ms = 3_600_000;
    let case = Case {
        scenario: "holder-crash".into(),
        plan: Plan { faults: vec![Fault::Crash { process: 0, at_ms: 200 }], ..Plan::calm(14, 2) },
        workload: LockWorkload {
            scripts: vec![
                vec![LockStep::Lock { ttl_ms }, LockStep::Hold { ms: 5_000 }, LockStep::Unlock],
                vec![LockStep::Sleep { ms: 50 }, LockStep::Lock { ttl_ms }, LockStep::Unlock],
            ],
        },
        limits: SimLimits { time_ms_max: 60_000, ..SimLimits::default() },
    };
    let execution = run_rust(LockVariant::Reference, &case);
    let violation = LockExercise.check(&case, &execution).expect("p2 waits forever");
    assert_eq!(violation.invariant, "liveness", "{}", violation.message);
    assert!(
        violation.message.contains("when the run ended at t=60000 ms (its time limit of 60000 ms)"),
        "{}",
        violation.message
    );
    assert!(
        violation.message.contains("with ttlMs 3600000, so it would expire only at t=36000"),
        "{}",
        violation.message
    );
}
