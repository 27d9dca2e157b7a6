//! Each test handed to the host as soon as it is finished (`grade_part_with`,
//! `dynamic::grade_json`'s `on_test`): once per test, in the report's order,
//! exactly the report's entries; a failing test announced once, before its
//! counterexample is shrunk; and a host that cannot take a test stops the
//! grading like any host failure.

use grader::dynamic::{grade_json, HostAnswer, HostCase};
use grader::lock::{run_rust, LockExercise, LockWorkload};
use grader::{grade_part_with, Case, GradeOptions, ScenarioPart, Status, TestEvent, TestReport};
use lock::LockVariant;

fn options() -> GradeOptions {
    GradeOptions { seeds: 40, ..GradeOptions::default() }
}

/// What `on_test` heard, in order: a failing test's name, or a finished test.
#[derive(Debug, PartialEq)]
enum Heard {
    Failing(String),
    Finished(TestReport),
}

/// Grades `variant` (or a part of it) and returns the report with what `on_test` heard.
fn heard(variant: LockVariant, part: ScenarioPart) -> (grader::SuiteReport, Vec<Heard>) {
    let mut heard = Vec::new();
    let report =
        grade_part_with(
            &LockExercise,
            &mut |case| run_rust(variant, case),
            &options(),
            part,
            &mut |event| match event {
                TestEvent::Failing { name } => heard.push(Heard::Failing(name.to_string())),
                TestEvent::Finished(test) => heard.push(Heard::Finished(test.clone())),
            },
        );
    (report, heard)
}

/// Grades `variant` (or a part of it) and returns the report with the tests `on_test` received.
fn graded(variant: LockVariant, part: ScenarioPart) -> (grader::SuiteReport, Vec<TestReport>) {
    let (report, heard) = heard(variant, part);
    let finished = heard
        .into_iter()
        .filter_map(|event| match event {
            Heard::Finished(test) => Some(test),
            Heard::Failing(_) => None,
        })
        .collect();
    (report, finished)
}

#[test]
fn a_failing_test_is_announced_once_before_it_is_shrunk_and_a_passing_one_never() {
    for variant in [LockVariant::Reference, LockVariant::UnlockWithoutVersion, LockVariant::NoTtl] {
        for part in [ScenarioPart::ALL, ScenarioPart { index: 0, count: 2 }, ScenarioPart { index: 1, count: 2 }] {
            let (report, heard) = heard(variant, part);
            // Each failed test: its name just before its entry; each passed test: its entry alone.
            let expected: Vec<Heard> = report
                .tests
                .iter()
                .flat_map(|test| {
                    let failing = (test.status == Status::Failed).then(|| Heard::Failing(test.name.clone()));
                    failing.into_iter().chain(std::iter::once(Heard::Finished(test.clone())))
                })
                .collect();
            assert_eq!(heard, expected, "{variant:?} {part:?}");
        }
    }
    let (report, heard) = heard(LockVariant::NoTtl, ScenarioPart::ALL);
    assert!(heard.iter().any(|event| matches!(event, Heard::Failing(_))), "{report:?}");
}

#[test]
fn on_test_receives_every_test_once_in_order_exactly_as_reported() {
    for variant in [LockVariant::Reference, LockVariant::UnlockWithoutVersion, LockVariant::NoTtl] {
        for part in [ScenarioPart::ALL, ScenarioPart { index: 0, count: 2 }, ScenarioPart { index: 1, count: 2 }] {
            let (report, received) = graded(variant, part);
            assert_eq!(received, report.tests, "{variant:?} {part:?}");
        }
    }
    let (report, _) = graded(LockVariant::UnlockWithoutVersion, ScenarioPart::ALL);
    assert!(
        report.tests.iter().any(|test| test.status == Status::Failed),
        "the buggy variant fails some test, so failures are streamed too"
    );
}

/// The host side of `grade_json` for the lock exercise: the Rust variant runs each case.
fn run_json(variant: LockVariant) -> impl FnMut(&dyn HostCase) -> Result<HostAnswer, String> {
    move |case| {
        let case: Case<LockWorkload> = serde_json::from_str(&case.json()?).map_err(|error| error.to_string())?;
        Ok(HostAnswer::Execution(run_rust(variant, &case)))
    }
}

#[test]
fn grade_json_hands_over_each_test_and_the_report_is_unchanged() {
    let mut received = Vec::new();
    let report = grade_json(
        "lock",
        &options(),
        ScenarioPart::ALL,
        &mut run_json(LockVariant::UnlockWithoutVersion),
        &mut |event| {
            if let TestEvent::Finished(test) = event {
                received.push(serde_json::to_string(test).unwrap());
            }
            Ok(())
        },
    )
    .unwrap();
    let entries: Vec<String> = report.tests.iter().map(|test| serde_json::to_string(test).unwrap()).collect();
    assert_eq!(received, entries);
}

#[test]
fn a_host_that_cannot_take_a_test_stops_the_grading_with_its_message() {
    let mut calls = 0;
    let outcome = grade_json("lock", &options(), ScenarioPart::ALL, &mut run_json(LockVariant::Reference), &mut |_| {
        calls += 1;
        Err("the page is gone".to_string())
    });
    assert_eq!(outcome.err().as_deref(), Some("the page is gone"));
    assert_eq!(calls, 1, "no test is handed over after the host failed");
}
