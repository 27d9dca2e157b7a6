//! The lease suite against the reference solution and the buggy corpus.

use grader::lease::{run_rust, LeaseExercise, FIRST_RENEWAL_CALL, LEASE_KEY};
use grader::timeline::render_counterexample;
use grader::{grade, Case, Exercise, GradeOptions, Status, SuiteReport};
use lease::LeaseVariant;
use sim::{Call, Happening, Note, Reply, TraceEvent};

fn grade_variant(variant: LeaseVariant, seeds: u32) -> SuiteReport {
    let options = GradeOptions { seeds, ..GradeOptions::default() };
    grade(&LeaseExercise, &mut |case| run_rust(variant, case), &options)
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

fn scenario(id: &str) -> (String, Case<lease_workload::LeaseWorkload>) {
    let found =
        LeaseExercise.scenarios().into_iter().find(|scenario| scenario.id == id).expect("a scenario with this id");
    (found.title.to_string(), found.case)
}

mod lease_workload {
    pub use grader::lease::workload::LeaseWorkload;
}

#[test]
fn the_reference_passes_every_test_on_1000_seeds() {
    let report = grade_variant(LeaseVariant::Reference, 1_000);
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
        (LeaseVariant::RenewAtFullTtl, "calm", "renew-on-time"),
        (LeaseVariant::WorkAfterFailedRenewal, "failed-renewal", "stop-after-failed-renewal"),
        (LeaseVariant::NoValidityCheck, "long-pause", "work-while-holder"),
        (LeaseVariant::ValidFromOnReply, "delayed-renew-reply", "work-within-validity"),
        (LeaseVariant::RenewBeforeEveryWork, "calm", "renew-not-too-often"),
        (LeaseVariant::StepDownAtRenewTime, "calm", "no-spurious-loss"),
        (LeaseVariant::CampaignPollsEveryTtl, "calm", "wait-by-watch"),
        (LeaseVariant::Starter, "calm", "wait-by-watch"),
        (LeaseVariant::ValueNotName, "calm", "value-is-name"),
        (LeaseVariant::NoRecheckAfterRenewal, "delayed-renew-reply", "work-within-validity"),
        (LeaseVariant::SkipsFirstCheck, "late-acquire-reply", "work-within-validity"),
    ];
    assert_eq!(expected.len(), LeaseVariant::BUGGY.len());
    for (variant, scenario_id, invariant) in expected {
        let report = grade_variant(variant, 200);
        let (title, _) = scenario(scenario_id);
        let test = report.tests.iter().find(|test| test.name == title).unwrap();
        let found = test.counterexample.as_ref().map(|ce| ce.violation.invariant.as_str());
        assert_eq!(found, Some(invariant), "{variant:?} in {scenario_id}\n{}", explain(&report));
    }
}

/// The mistakes that only some schedules expose pass the calm scenario:
/// the named scenarios, not luck, are what catch them.
#[test]
fn subtle_mistakes_pass_the_calm_scenario() {
    for variant in [
        LeaseVariant::WorkAfterFailedRenewal,
        LeaseVariant::NoValidityCheck,
        LeaseVariant::ValidFromOnReply,
        LeaseVariant::NoRecheckAfterRenewal,
        LeaseVariant::SkipsFirstCheck,
    ] {
        let report = grade_variant(variant, 1);
        let (title, _) = scenario("calm");
        let calm = report.tests.iter().find(|test| test.name == title).unwrap();
        assert_eq!(calm.status, Status::Passed, "{variant:?}: {}", calm.message);
    }
}

fn notes_of(trace: &[TraceEvent], process: u32) -> Vec<(u64, Note)> {
    trace
        .iter()
        .filter(|event| event.process == Some(process))
        .filter_map(|event| match &event.happening {
            Happening::Note { note } => Some((event.at_ms, note.clone())),
            _ => None,
        })
        .collect()
}

/// One call of a process, as the trace shows it.
struct CallSeen {
    request: Call,
    sent_ms: u64,
    /// When the reply reached the process, and what it was.
    answer: Option<(u64, Reply)>,
}

/// Every call of `process`, in order.
fn calls_of(trace: &[TraceEvent], process: u32) -> Vec<CallSeen> {
    trace
        .iter()
        .filter(|event| event.process == Some(process))
        .filter_map(|event| match &event.happening {
            Happening::Invoke { call, request } => {
                let answer = trace.iter().find_map(|answer| match &answer.happening {
                    Happening::Complete { call: done, reply } if done == call => Some((answer.at_ms, reply.clone())),
                    _ => None,
                });
                Some(CallSeen { request: request.clone(), sent_ms: event.at_ms, answer })
            }
            _ => None,
        })
        .collect()
}

fn is_renewal(request: &Call) -> bool {
    matches!(request, Call::Cas { key, current_value: Some(value), .. } if key == LEASE_KEY && value == "p1")
}

/// The scenarios' faults hit what their titles promise, with the reference.
#[test]
fn the_scenarios_tell_their_stories() {
    let (_, case) = scenario("delayed-renew-reply");
    let trace = run_rust(LeaseVariant::Reference, &case).trace;
    let CallSeen { request, sent_ms, answer } = calls_of(&trace, 0).swap_remove(FIRST_RENEWAL_CALL as usize);
    assert!(is_renewal(&request), "call {FIRST_RENEWAL_CALL} is {request:?}");
    let (answered_ms, reply) = answer.unwrap();
    assert!(
        answered_ms - sent_ms >= 600 && matches!(reply, Reply::Cas { ok: true, .. }),
        "{reply:?} after {} ms",
        answered_ms - sent_ms
    );

    let (_, case) = scenario("failed-renewal");
    let trace = run_rust(LeaseVariant::Reference, &case).trace;
    let CallSeen { request, answer, .. } = calls_of(&trace, 0).swap_remove(FIRST_RENEWAL_CALL as usize);
    assert!(is_renewal(&request));
    let (answered_ms, reply) = answer.unwrap();
    assert!(matches!(reply, Reply::Cas { ok: false, .. }), "{reply:?}");
    assert!(
        notes_of(&trace, 0).contains(&(answered_ms, Note::Stepped { key: LEASE_KEY.into() })),
        "p1 steps down at once"
    );

    // The paused leader's lease passes to another replica during the pause.
    let (_, case) = scenario("long-pause");
    let trace = run_rust(LeaseVariant::Reference, &case).trace;
    let taken_over = trace.iter().any(|event| {
        event.at_ms < 1_800
            && event.process != Some(0)
            && matches!(&event.happening, Happening::Apply { result: Reply::Cas { ok: true, .. }, .. })
    });
    assert!(taken_over, "another replica acquires during p1's pause");
    assert!(notes_of(&trace, 0)
        .iter()
        .any(|(at_ms, note)| *at_ms >= 1_800 && *note == Note::Stepped { key: LEASE_KEY.into() }));

    // Calm and drifting clocks: p1 leads from start to horizon.
    for id in ["calm", "clock-drift"] {
        let (_, case) = scenario(id);
        let trace = run_rust(LeaseVariant::Reference, &case).trace;
        let renewals = calls_of(&trace, 0)
            .into_iter()
            .filter(|call| is_renewal(&call.request) && matches!(call.answer, Some((_, Reply::Cas { ok: true, .. }))));
        assert!(renewals.count() >= 8, "{id}: p1 renews all along");
        assert!(!trace.iter().any(|event| matches!(event.happening, Happening::Expire { .. })), "{id}");
    }
}

#[test]
fn the_long_pause_story_is_told_in_one_line() {
    let report = grade_variant(LeaseVariant::NoValidityCheck, 10);
    let (title, _) = scenario("long-pause");
    let test = report.tests.iter().find(|test| test.name == title).unwrap();
    assert!(test.message.starts_with("p1 did leader work at t="), "message: {}", test.message);
    assert!(test.message.contains("p1's lease expired at t="), "message: {}", test.message);
}

/// A random schedule fails after hundreds of events; the story the learner
/// sees is a few dozen, with one or two replicas.
#[test]
fn random_failures_shrink_to_a_short_story() {
    for variant in [LeaseVariant::RenewAtFullTtl, LeaseVariant::ValidFromOnReply, LeaseVariant::CampaignPollsEveryTtl] {
        let report = grade_variant(variant, 200);
        let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
        let counterexample = random.counterexample.as_ref().expect("the random schedules catch it");
        let story = render_counterexample(counterexample);
        assert!(
            counterexample.shrunk_from_events >= 100,
            "{variant:?} started from {} events",
            counterexample.shrunk_from_events
        );
        assert!(
            counterexample.trace.len() <= 50,
            "{variant:?} shrunk to {} events:\n{story}",
            counterexample.trace.len()
        );
        assert!(counterexample.processes <= 2, "{variant:?} kept {} replicas:\n{story}", counterexample.processes);
    }
}

/// A correct design other than the reference's: renewals that `lead` never
/// awaits. One of them can fail during the replica's next tenure; that says
/// nothing about the new tenure, and no rule may blame it.
#[test]
fn a_background_renewer_nobody_awaits_passes_on_1000_seeds() {
    let report = grade_variant(LeaseVariant::BackgroundRenewal, 1_000);
    assert!(report.passed(), "{}", explain(&report));
}

/// Each failure story names what the trace shows the code did: a window
/// counted from the reply, a check missing after the renewal's await, a check
/// missing before the first unit of work.
#[test]
fn window_stories_name_the_cause_the_trace_shows() {
    let cases = [
        (LeaseVariant::ValidFromOnReply, "delayed-renew-reply", "seems to count from when the reply arrived"),
        (LeaseVariant::NoRecheckAfterRenewal, "delayed-renew-reply", "as soon as its renewal's reply arrived"),
        (
            LeaseVariant::SkipsFirstCheck,
            "late-acquire-reply",
            "its first unit in lead(), as soon as campaign's reply arrived",
        ),
        (LeaseVariant::NoValidityCheck, "long-pause", "no window check ran before"),
    ];
    for (variant, scenario_id, phrase) in cases {
        let report = grade_variant(variant, 1);
        let (title, _) = scenario(scenario_id);
        let test = report.tests.iter().find(|test| test.name == title).unwrap();
        assert!(test.message.contains(phrase), "{variant:?} in {scenario_id}: {}", test.message);
    }
    // The reply-based window is not blamed on a missing check, nor the reverse.
    let report = grade_variant(LeaseVariant::NoRecheckAfterRenewal, 1);
    let (title, _) = scenario("delayed-renew-reply");
    let message = &report.tests.iter().find(|test| test.name == title).unwrap().message;
    assert!(!message.contains("from when the reply arrived"), "{message}");
    assert!(message.contains("no check ran before this unit"), "{message}");
}
