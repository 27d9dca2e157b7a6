//! The cas suite against the reference store, a second correct store with
//! other version numbers, and the buggy corpus; plus the checker's verdicts
//! on hand-made answers and the runner contract's JSON shapes.

use expect_test::expect;
use grader::cas::check::{
    ANSWER_SHAPE, DELETE_ANSWER, EXPECT_ABSENT, FAILED_CAS_CHANGES_NOTHING, KEY_VERSION, MISSING_KEY_VALUE, NO_ERRORS,
    READ_STATE, READ_VERSION, TTL_CLEARED, TTL_EXPIRY, VALUE_COMPARE, VERSIONED_DELETE, VERSION_COMPARE,
    VERSION_INCREASES, VERSION_UNIQUE,
};
use grader::cas::{
    check_answers, execution, record, run_rust, CasExercise, CasRecording, CasVariant, CasWorkload, Clock, ConsoleLine,
};
use grader::grade::{minimize, WorkloadText};
use grader::timeline::render_counterexample;
use grader::{case_from_token, grade, Case, Exercise, GradeOptions, Status, SuiteReport};
use sim::{Happening, Note, Record, Reply};

fn grade_variant(variant: CasVariant, seeds: u32) -> SuiteReport {
    let options = GradeOptions { seeds, ..GradeOptions::default() };
    grade(&CasExercise, &mut |case| run_rust(variant, case), &options)
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

fn failed_invariants(report: &SuiteReport) -> Vec<&str> {
    report
        .tests
        .iter()
        .filter_map(|test| test.counterexample.as_ref().map(|ce| ce.violation.invariant.as_str()))
        .collect()
}

#[test]
fn correct_stores_pass_every_test_on_1000_seeds() {
    // The reference numbers versions 1, 2, 3 …; the other from 100 in steps
    // of 3, spending numbers on deletes and failed writes; kv from 2.
    for variant in CasVariant::CORRECT {
        let report = grade_variant(variant, 1_000);
        assert!(report.passed(), "{variant:?}:\n{}", explain(&report));
        assert_eq!(report.score, report.max_score);
        let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
        assert_eq!(random.runs, 1_000);
    }
}

/// Each classic mistake fails, and every test it fails names the same
/// invariant: the learner gets one clear story per bug. The random
/// sequences alone catch every bug too.
#[test]
fn every_buggy_variant_fails_on_its_own_invariant() {
    let expected = [
        (CasVariant::MissingKeyMatchesValue, MISSING_KEY_VALUE),
        (CasVariant::PerKeyVersions, VERSION_UNIQUE),
        (CasVariant::RewriteKeepsTtl, TTL_CLEARED),
        (CasVariant::ExpiryOffByOne, TTL_EXPIRY),
        (CasVariant::FailedCasBumpsVersion, FAILED_CAS_CHANGES_NOTHING),
        (CasVariant::DeleteIgnoresVersion, VERSIONED_DELETE),
        (CasVariant::KeyVersionNeverRestarts, KEY_VERSION),
        (CasVariant::CasIgnoresExpiry, TTL_EXPIRY),
        (CasVariant::CreateOverwrites, EXPECT_ABSENT),
        (CasVariant::VersionCompareIgnored, VERSION_COMPARE),
    ];
    assert_eq!(expected.len() + 1, CasVariant::BUGGY.len(), "every buggy variant but the starter is listed");
    for (variant, invariant) in expected {
        let report = grade_variant(variant, 200);
        let failed = failed_invariants(&report);
        assert!(!failed.is_empty(), "{variant:?} passed");
        assert!(
            failed.iter().all(|found| *found == invariant),
            "{variant:?} failed {failed:?}, expected only {invariant}\n{}",
            explain(&report)
        );
        let random = report.tests.iter().find(|test| test.name == "random schedules").unwrap();
        assert_eq!(random.status, Status::Failed, "{variant:?} passed 200 random sequences");
    }
    // The starter code has several bugs; the first ones a learner meets.
    let report = grade_variant(CasVariant::Starter, 200);
    let failed = failed_invariants(&report);
    for invariant in [VERSION_UNIQUE, TTL_EXPIRY, VERSIONED_DELETE, VERSION_COMPARE] {
        assert!(failed.contains(&invariant), "the starter failed {failed:?}, not {invariant}");
    }
}

fn message_of(variant: CasVariant, test_name: &str) -> String {
    let report = grade_variant(variant, 10);
    let test = report.tests.iter().find(|test| test.name == test_name).unwrap();
    assert_eq!(test.status, Status::Failed, "{variant:?} passed {test_name}");
    test.message.clone()
}

/// One line each: the call, when, what it returned, what it must return and why.
#[test]
fn the_messages_tell_the_story_in_one_line() {
    expect![[r#"get("a") at t=1000 ms returned { value: "p1", version: 1, keyVersion: 1 } but the key expired at t=1000 ms (written at t=0 ms by compareAndSwap("a", "p1", null, { ttlMs: 1000 })); from its deadline on it reads as absent, for every method: it must return null"#]]
        .assert_eq(&message_of(CasVariant::ExpiryOffByOne, "versions never repeat, across keys and after expiry"));
    expect![[r#"compareAndSwap("a", "p2", null) at t=1000 ms returned { ok: true, version: 1 } but version 1 was already handed out at t=0 ms, to compareAndSwap("a", "p1", null, { ttlMs: 1000 }); every successful write needs a new version, greater than every one before, for any key, even after a key expires or is deleted and is created again"#]]
        .assert_eq(&message_of(CasVariant::PerKeyVersions, "versions never repeat, across keys and after expiry"));
    expect![[r#"get("a") at t=1200 ms returned null but compareAndSwap("a", "y", "x") at t=600 ms rewrote the key without ttlMs, which clears the TTL it had (ttlMs 1000 from t=0 ms, due at t=1000 ms); the key never expires now: it must return { value: "y", version: 2, keyVersion: 2 }"#]]
        .assert_eq(&message_of(CasVariant::RewriteKeepsTtl, "a rewrite without ttlMs clears the TTL"));
    expect![[r#"compareAndSwap("a", "y", "x") at t=0 ms returned { ok: true, version: 1 } but the key is absent (it was never written); a compare on a value always fails on a missing key: it must return { ok: false, current: null }"#]]
        .assert_eq(&message_of(CasVariant::MissingKeyMatchesValue, "a value compare on a missing key fails"));
    expect![[r#"delete("a", { version: 1 }) at t=0 ms returned { ok: true } but the key's version is 2, not 1 (written at t=0 ms by compareAndSwap("a", "y", "x")); a delete with another version must change nothing: it must return { ok: false }"#]]
        .assert_eq(&message_of(CasVariant::DeleteIgnoresVersion, "versioned delete removes only that version"));
    expect![[r#"compareAndSwap("a", "y", "z") at t=0 ms returned { ok: false, current: { value: "x", version: 2, keyVersion: 2 } } but this compareAndSwap failed, and a failed compareAndSwap changes nothing: the key is still { value: "x", version: 1, keyVersion: 1 } (written at t=0 ms by compareAndSwap("a", "x", null)); it must return { ok: false, current: { value: "x", version: 1, keyVersion: 1 } }"#]]
        .assert_eq(&message_of(CasVariant::FailedCasBumpsVersion, "a failed compareAndSwap changes nothing"));
}

/// The learner's view of a failure: the shrunk story, ending at the broken answer.
#[test]
fn a_counterexample_reads_as_a_timeline() {
    let report = grade_variant(CasVariant::CasIgnoresExpiry, 10);
    let test = report.tests.iter().find(|test| test.name == "a TTL runs out exactly at its deadline").unwrap();
    expect![[r#"
        violated: compareAndSwap("a", "y", null) at t=1000 ms returned { ok: false, current: { value: "x", version: 1, keyVersion: 1 } } but the key expired at t=1000 ms (written at t=0 ms by compareAndSwap("a", "x", null, { ttlMs: 1000 })); from its deadline on it reads as absent, for every method: it must return { ok: true, version: <a new version, greater than every one before> } (ttl-expiry)
          t(ms)  who    local  what
              0  p1         0  calls compareAndSwap("a", "x", null, { ttlMs: 1000 })
              0  p1         0  gets { ok: true, version: 1 } from compareAndSwap("a", "x", null, { ttlMs: 1000 })
           1000  p1      1000  calls compareAndSwap("a", "y", null)
        >> 1000  p1      1000  gets { ok: false, current: { value: "x", version: 1, keyVersion: 1 } } from compareAndSwap("a", "y", null)
        replay: cas@0.1.0:ttl-deadline:ca=x/~+1000,t1000,ca=y/~:v1.s4.n1.l1-20.r
    "#]]
    .assert_eq(&render_counterexample(test.counterexample.as_ref().unwrap()));
}

/// A random sequence that breaks only after dozens of operations shrinks
/// to the handful that tell the story.
#[test]
fn a_long_failing_random_sequence_shrinks_to_a_handful_of_operations() {
    let exercise = CasExercise;
    let options = GradeOptions::default();
    for variant in [CasVariant::RewriteKeepsTtl, CasVariant::ExpiryOffByOne, CasVariant::VersionCompareIgnored] {
        // The first seed whose first broken answer comes at operation 30 or later.
        let (case, execution, violation) = (1..2_000)
            .map(|seed| exercise.random_case(seed))
            .find_map(|case| {
                let execution = run_rust(variant, &case);
                let violation = exercise.check(&case, &execution)?;
                let completions = execution.trace[..=violation.trace_index?]
                    .iter()
                    .filter(|event| matches!(event.happening, Happening::Complete { .. }))
                    .count();
                (completions >= 30).then_some((case, execution, violation))
            })
            .unwrap_or_else(|| panic!("{variant:?}: no random sequence fails late"));
        let ops_before = case.workload.ops.len();
        let invariant = violation.invariant.clone();
        let counterexample =
            minimize(&exercise, &mut |case| run_rust(variant, case), &options, case, execution, violation);
        let shrunk = case_from_token(&exercise, &counterexample.replay_token).unwrap();
        assert_eq!(counterexample.violation.invariant, invariant);
        assert!(
            shrunk.workload.ops.len() <= 6,
            "{variant:?}: {ops_before} operations shrank only to {}:\n{}",
            shrunk.workload.ops.len(),
            render_counterexample(&counterexample)
        );
        println!(
            "{variant:?}: {ops_before} operations ({} events) shrank to {}: {}",
            counterexample.shrunk_from_events,
            shrunk.workload.ops.len(),
            counterexample.replay_token
        );
        assert!(
            counterexample.shrunk_from_events >= 60,
            "{variant:?} started from {} events",
            counterexample.shrunk_from_events
        );
    }
}

/// The reference's answers to `ops`, with answer `index` replaced, checked.
fn verdict(ops: &str, index: usize, answer: Reply) -> (&'static str, String) {
    let workload = CasWorkload::decode(ops).unwrap();
    let clock = Clock::new();
    let mut recording = record(&workload, &mut CasVariant::Reference.create(clock.clone()), &clock);
    assert_eq!(check_answers(&workload, &recording.answers, None), None, "the reference passes {ops}");
    recording.answers[index] = answer;
    let finding =
        check_answers(&workload, &recording.answers, None).unwrap_or_else(|| panic!("{ops}: answer {index} passed"));
    assert_eq!(finding.op, index);
    (finding.invariant, finding.message)
}

fn record_of(value: &str, version: u64, key_version: u64) -> Option<Record> {
    Some(Record { value: value.into(), version, key_version })
}

/// Answers no Rust variant gives, checked one by one.
#[test]
fn hand_made_answers_get_their_own_verdicts() {
    let cases: [(&str, usize, Reply, &str); 12] = [
        ("ca=x/~,ga", 1, Reply::Get { record: record_of("x", 7, 1) }, READ_VERSION),
        ("ca=x/~,ga", 1, Reply::Get { record: record_of("y", 1, 1) }, READ_STATE),
        ("ca=x/~,da,ga", 2, Reply::Get { record: record_of("x", 1, 1) }, READ_STATE),
        ("ca=x/~,ga", 1, Reply::Delete { ok: true }, ANSWER_SHAPE),
        ("ca=x/~", 0, Reply::Cas { ok: true, version: None, current: None }, ANSWER_SHAPE),
        ("ca=x/~,cb=y/~", 1, Reply::Cas { ok: true, version: Some(0), current: None }, VERSION_INCREASES),
        ("ca=x/~", 0, Reply::Cas { ok: false, version: None, current: None }, EXPECT_ABSENT),
        ("ca=x/~,ca=y/x", 1, Reply::Cas { ok: false, version: None, current: record_of("x", 1, 1) }, VALUE_COMPARE),
        ("ca=x/~,ca=y/x@0", 1, Reply::Cas { ok: false, version: None, current: record_of("x", 1, 1) }, VERSION_COMPARE),
        ("ca=x/~,cb=y/~@0", 1, Reply::Cas { ok: true, version: Some(2), current: None }, VERSION_COMPARE),
        ("ca=x/~,da", 1, Reply::Delete { ok: false }, DELETE_ANSWER),
        ("da", 0, Reply::Delete { ok: true }, DELETE_ANSWER),
    ];
    for (ops, index, answer, invariant) in cases {
        let (found, message) = verdict(ops, index, answer);
        assert_eq!(found, invariant, "{ops} / answer {index}: {message}");
    }
    let (_, message) = verdict("ca=x/~,cb=y/~@0", 1, Reply::Cas { ok: true, version: Some(2), current: None });
    assert_eq!(
        message,
        r#"compareAndSwap("b", "y", null, { version: 1 }) at t=0 ms returned { ok: true, version: 2 } but the key is absent (it was never written), and a version compare holds only on a key that exists: it must return { ok: false, current: null }"#
    );
}

/// A store that throws (as the JavaScript runner reports it) fails with the
/// call it threw in, and the counterexample points at the failure.
#[test]
fn a_store_that_throws_fails_on_no_errors() {
    let case = Case { workload: CasWorkload::decode("ca=x/~,t10,ga").unwrap(), ..CasExercise.random_case(1) };
    let recording = CasRecording {
        answers: vec![Reply::Cas { ok: true, version: Some(1), current: None }, Reply::Slept],
        failure: Some("TypeError: records.get is not a function".into()),
        console: vec![ConsoleLine { op: 2, text: "get a".into() }],
    };
    let execution = execution(&case.workload, &recording);
    let violation = CasExercise.check(&case, &execution).unwrap();
    assert_eq!(violation.invariant, NO_ERRORS);
    assert_eq!(
        violation.message,
        r#"get("a") at t=10 ms failed: TypeError: records.get is not a function; the store must answer every call"#
    );
    let at = &execution.trace[violation.trace_index.unwrap()];
    assert!(matches!(at.happening, Happening::Note { note: Note::Failed { .. } }));
    // A run that stops without saying why is not a pass either.
    let stopped = CasRecording { failure: None, ..recording };
    let violation = CasExercise.check(&case, &execution_of(&case.workload, &stopped)).unwrap();
    assert_eq!(violation.invariant, NO_ERRORS);
    assert!(violation.message.starts_with(r#"the run stopped before get("a") at t=10 ms"#), "{}", violation.message);
}

fn execution_of(workload: &CasWorkload, recording: &CasRecording) -> grader::Execution {
    execution(workload, recording)
}

/// The shapes the JavaScript runner reads and writes.
#[test]
fn the_runner_contract_in_json() {
    let workload = CasWorkload::decode("ca=x/~+1000,ga,ca=y/x@1,da@2,t5").unwrap();
    expect![[r#"[{"op":"cas","key":"a","nextValue":"x","currentValue":null,"versionOf":null,"ttlMs":1000},{"op":"get","key":"a"},{"op":"cas","key":"a","nextValue":"y","currentValue":"x","versionOf":1,"ttlMs":null},{"op":"delete","key":"a","versionOf":2},{"op":"advance","ms":5}]"#]]
        .assert_eq(&serde_json::to_string(&workload.ops).unwrap());
    let clock = Clock::new();
    let recording = record(&workload, &mut CasVariant::Reference.create(clock.clone()), &clock);
    expect![[r#"{"answers":[{"reply":"cas","ok":true,"version":1,"current":null},{"reply":"get","record":{"value":"x","version":1,"keyVersion":1}},{"reply":"cas","ok":true,"version":2,"current":null},{"reply":"delete","ok":true},{"reply":"slept"}],"failure":null,"console":[]}"#]]
        .assert_eq(&serde_json::to_string(&recording).unwrap());
    let read_back: CasRecording = serde_json::from_str(&serde_json::to_string(&recording).unwrap()).unwrap();
    assert_eq!(read_back, recording);
}

#[test]
fn every_scenario_is_small_and_passes_alone() {
    for scenario in CasExercise.scenarios() {
        assert!(scenario.case.workload.ops.len() <= 12, "{} is long", scenario.id);
        let execution = run_rust(CasVariant::Reference, &scenario.case);
        assert_eq!(CasExercise.check(&scenario.case, &execution), None, "{}", scenario.id);
        assert_eq!(CasWorkload::decode(&scenario.case.workload.encode()).as_ref(), Ok(&scenario.case.workload));
    }
}
