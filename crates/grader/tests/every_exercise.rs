//! What must hold for every exercise alike, in one loop over the registry:
//! grading is deterministic byte for byte, and every failure's replay token
//! reproduces its run exactly (the same trace up to the violation, the same
//! violation), and a hand-made token under faults the test never plans is
//! refused by name. A new exercise is covered by registering it.

use grader::dynamic::EXERCISE_LIST;
use grader::{GradeOptions, Status};

#[test]
fn grading_is_deterministic_byte_for_byte_for_every_implementation_of_every_exercise() {
    let options = GradeOptions { seeds: 60, ..GradeOptions::default() };
    for exercise in EXERCISE_LIST {
        for (index, (name, _)) in exercise.implementation_names().into_iter().enumerate() {
            let first = serde_json::to_string(&exercise.grade_implementation(index, &options)).unwrap();
            let second = serde_json::to_string(&exercise.grade_implementation(index, &options)).unwrap();
            assert_eq!(first, second, "{} / {name}", exercise.info().name);
        }
    }
}

#[test]
fn every_replay_token_reproduces_its_shrunk_failure_exactly() {
    let options = GradeOptions::default();
    for exercise in EXERCISE_LIST {
        let exercise_name = exercise.info().name;
        for (index, (name, buggy)) in exercise.implementation_names().into_iter().enumerate() {
            let report = exercise.grade_implementation(index, &options);
            assert_eq!(
                report.passed(),
                !buggy,
                "{exercise_name} / {name}: the reference passes and every buggy variant fails"
            );
            for test in report.tests.iter().filter(|test| test.status == Status::Failed) {
                let counterexample = test.counterexample.as_ref().unwrap();
                let (execution, violation) =
                    exercise.replay_implementation(index, &counterexample.replay_token).unwrap();
                // No Rust implementation runs long enough for its report to leave events out, so the
                // comparison is of every event.
                assert_eq!(counterexample.omitted, None, "{exercise_name} / {name} / {}", test.name);
                // The report's trace ends at the violation; the replay goes on after it.
                assert_eq!(
                    execution.trace[..counterexample.trace.len()],
                    counterexample.trace[..],
                    "{exercise_name} / {name} / {}",
                    test.name
                );
                assert_eq!(
                    violation.as_ref(),
                    Some(&counterexample.violation),
                    "{exercise_name} / {name} / {}",
                    test.name
                );
            }
        }
    }
}

#[test]
fn a_token_under_faults_no_test_plans_is_refused_by_name() {
    for exercise in EXERCISE_LIST {
        let name = exercise.info().name;
        let version = grader::registry::GRADER_VERSION;
        // The plan is checked against the test's own before the workload is read.
        let refused = |scenario: &str, plan: &str| {
            grader::dynamic::case_json_from_token(name, &format!("{name}@{version}:{scenario}:-:{plan}"))
                .expect_err(plan)
        };
        let pause = refused("random", "v1.s5.n1.l1-20.r.P0@100+999999");
        assert!(pause.contains("`P0@100+999999` is not one this test plans"), "{name}: {pause}");
        let crashes = refused("random", "v1.s5.n1.l1-20.r.C0@1.C0@1");
        assert!(crashes.contains("cannot be one of the `random` test's runs"), "{name}: {crashes}");
        let slow = refused("random", "v1.s5.n1.l1-2000.r");
        assert!(slow.contains("latency range 1-2000 ms is not this test's"), "{name}: {slow}");
        let unknown = refused("no-such-test", "v1.s5.n1.l1-20.r");
        assert!(unknown.contains("names the test `no-such-test`, which the"), "{name}: {unknown}");
    }
}
