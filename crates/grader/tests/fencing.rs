//! The fencing suite against the reference solution and the buggy corpus.

use grader::fencing::{run_rust, FencingExercise, FencingWorkload};
use grader::timeline::render_counterexample;
use grader::{case_from_token, grade, Case, Exercise, GradeOptions, Status, SuiteReport};
use lease::FencingVariant;
use sim::{Happening, Note, TraceEvent};

fn grade_variant(variant: FencingVariant, seeds: u32) -> SuiteReport {
    let options = GradeOptions { seeds, ..GradeOptions::default() };
    grade(&FencingExercise, &mut |case| run_rust(variant, case), &options)
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

fn scenario(id: &str) -> (String, Case<FencingWorkload>) {
    let found =
        FencingExercise.scenarios().into_iter().find(|scenario| scenario.id == id).expect("a scenario with this id");
    (found.title.to_string(), found.case)
}

#[test]
fn the_reference_passes_every_test_on_1000_seeds() {
    let report = grade_variant(FencingVariant::Reference, 1_000);
    assert!(report.passed(), "{}", explain(&report));
    assert_eq!(report.score, report.max_score);
    let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
    assert_eq!(random.runs, 1_000);
}

/// Each classic mistake fails the scenario written for it, on the invariant
/// that names it.
#[test]
fn every_buggy_variant_fails_on_its_own_invariant() {
    let expected = [
        (FencingVariant::KeyVersion, "stale-tenure", "fence-current"),
        (FencingVariant::NoDedup, "duplicate-delivery", "at-most-once"),
        (FencingVariant::ClaimAfterAwait, "duplicate-delivery", "at-most-once"),
        (FencingVariant::OwnerOnly, "stale-tenure", "fence-current"),
        (FencingVariant::AcceptAll, "paused-leader", "fence-current"),
        (FencingVariant::RejectAll, "current-owner", "accept-current"),
    ];
    assert_eq!(expected.len(), FencingVariant::BUGGY.len());
    for (variant, scenario_id, invariant) in expected {
        let report = grade_variant(variant, 200);
        let (title, _) = scenario(scenario_id);
        let test = report.tests.iter().find(|test| test.name == title).unwrap();
        let found = test.counterexample.as_ref().map(|ce| ce.violation.invariant.as_str());
        assert_eq!(found, Some(invariant), "{variant:?} in {scenario_id}\n{}", explain(&report));
        // The random schedules catch every one of them too.
        assert!(
            !report.passed() && report.tests.last().unwrap().status == Status::Failed,
            "{variant:?} passed the random schedules"
        );
    }
}

/// What the worker answered, in order: (request id, accepted).
fn answers(trace: &[TraceEvent]) -> Vec<(String, bool)> {
    trace
        .iter()
        .filter_map(|event| match &event.happening {
            Happening::Note { note: Note::Handled { request_id, accepted, .. } } => {
                Some((request_id.clone(), *accepted))
            }
            _ => None,
        })
        .collect()
}

fn sent(trace: &[TraceEvent]) -> Vec<(String, String, u64)> {
    trace
        .iter()
        .filter_map(|event| match &event.happening {
            Happening::Note { note: Note::Sent { request_id, owner, version } } => {
                Some((request_id.clone(), owner.clone(), *version))
            }
            _ => None,
        })
        .collect()
}

/// The scenarios stage what their titles promise, with the reference.
#[test]
fn the_scenarios_tell_their_stories() {
    let answers_of = |id: &str| {
        let (_, case) = scenario(id);
        let trace = run_rust(FencingVariant::Reference, &case).trace;
        (answers(&trace), sent(&trace))
    };
    let yes = |id: &str| (id.to_string(), true);
    let no = |id: &str| (id.to_string(), false);

    let (answered, _) = answers_of("current-owner");
    assert_eq!(answered, vec![yes("r1"), yes("r2")]);

    // r1 carries A's first tenure's version, 2, which is also the keyVersion
    // of A's second tenure (created, then renewed once) when it arrives.
    let (answered, sent_requests) = answers_of("stale-tenure");
    assert_eq!(answered, vec![no("r1"), yes("r2")]);
    assert_eq!(sent_requests[0], ("r1".to_string(), "p1".to_string(), 2));
    assert_eq!(sent_requests[1].1, "p1");

    // The two deliveries of r1 at once: one applies it; the late r2 repeat is refused.
    let (answered, _) = answers_of("duplicate-delivery");
    assert_eq!(answered, vec![no("r1"), yes("r1"), yes("r2"), no("r2")]);

    // p1 sends r1 after its pause, with the version of a lease that expired during it.
    let (answered, sent_requests) = answers_of("paused-leader");
    assert_eq!(answered, vec![no("r1"), yes("r2")]);
    assert_eq!(
        sent_requests.iter().map(|(id, owner, _)| (id.as_str(), owner.as_str())).collect::<Vec<_>>(),
        vec![("r2", "p2"), ("r1", "p1")]
    );
}

#[test]
fn the_stale_tenure_story_names_the_key_version_mistake() {
    let report = grade_variant(FencingVariant::KeyVersion, 10);
    let (title, _) = scenario("stale-tenure");
    let test = report.tests.iter().find(|test| test.name == title).unwrap();
    assert!(test.message.starts_with("the worker (p"), "message: {}", test.message);
    assert!(test.message.contains("accepted r1 (from p1, version 2)"), "message: {}", test.message);
    assert!(test.message.contains("compare version, not keyVersion"), "message: {}", test.message);
}

#[test]
fn random_failures_shrink_to_a_handful_of_events() {
    for variant in [FencingVariant::ClaimAfterAwait, FencingVariant::OwnerOnly, FencingVariant::KeyVersion] {
        let report = grade_variant(variant, 200);
        let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
        let counterexample = random.counterexample.as_ref().expect("the random schedules catch it");
        let story = render_counterexample(counterexample);
        assert!(
            counterexample.shrunk_from_events >= 80,
            "{variant:?} started from {} events",
            counterexample.shrunk_from_events
        );
        assert!(
            counterexample.trace.len() <= 30,
            "{variant:?} shrunk to {} events:\n{story}",
            counterexample.trace.len()
        );
        let case = case_from_token(&FencingExercise, &counterexample.replay_token).unwrap();
        assert!(
            case.workload.deliveries.len() <= 2,
            "{variant:?} kept {} deliveries:\n{story}",
            case.workload.deliveries.len()
        );
    }
}

/// A worker whose call never returns gets a verdict, not a hang: the run
/// of the reference is cut before its first answer, as if it were stuck.
#[test]
fn a_call_that_never_returns_is_reported() {
    let (_, case) = scenario("current-owner");
    let execution = grader::Execution {
        ending: sim::Ending::Stuck { waiting: vec![1] },
        trace: run_rust(FencingVariant::Reference, &case)
            .trace
            .into_iter()
            .take_while(|event| !matches!(event.happening, Happening::Note { note: Note::Handled { .. } }))
            .collect(),
    };
    let violation = FencingExercise.check(&case, &execution).expect("an open call at the end");
    assert_eq!(violation.invariant, "answers");
    assert!(violation.message.starts_with("handleRequest for r1, called at t="), "{}", violation.message);
}
