//! The registry is the one list of exercises: every host reads it.

use grader::dynamic::exercise_named;
use grader::lock::LockExercise;
use grader::registry::{self, GRADER_VERSION};
use grader::{replay_token, Exercise};

#[test]
fn the_registry_lists_each_exercise_once_in_the_lessons_order() {
    assert_eq!(registry::names(), ["cas", "lock", "lease", "fencing", "election"]);
    for name in registry::names() {
        let info = registry::info(name).expect("every name has an entry");
        assert_eq!(info.name, name);
        assert_eq!(info.file, format!("{name}.js"), "the learner's file is named after the exercise");
        assert!(!info.exports.is_empty());
    }
    assert!(registry::info("locks").is_none());
    let message = exercise_named("locks").err().expect("an unknown name is refused");
    assert!(message.contains("cas, lock, lease, fencing, election"), "{message}");
}

#[test]
fn every_rule_table_has_unique_ids_and_ends_with_no_errors() {
    for name in registry::names() {
        let rules = registry::info(name).unwrap().rules;
        let mut ids: Vec<&str> = rules.iter().map(|rule| rule.id).collect();
        assert_eq!(ids.last(), Some(&"no-errors"), "{name}");
        ids.sort_unstable();
        let count = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), count, "{name} has a rule id twice");
        for rule in rules {
            assert!(rule.statement.ends_with('.') && rule.why.ends_with('.'), "{name}/{}: one sentence each", rule.id);
        }
    }
}

#[test]
fn the_json_registry_carries_version_budget_tests_and_lab_runs() {
    let json = registry::registry_json();
    assert_eq!(json["graderVersion"], GRADER_VERSION);
    assert_eq!(json["defaults"]["seeds"], registry::defaults().seeds);
    let exercises = json["exercises"].as_array().unwrap();
    assert_eq!(exercises.len(), registry::names().len());
    for exercise in exercises {
        let tests = exercise["tests"].as_array().unwrap();
        let points: u64 = tests.iter().map(|test| test["points"].as_u64().unwrap()).sum();
        assert_eq!(exercise["maxScore"].as_u64(), Some(points));
        assert_eq!(tests.last().unwrap()["id"], "random");
        assert_eq!(exercise["labRun"].is_null(), exercise["lab"].is_null(), "{}", exercise["name"]);
    }
    let lock = &exercises[1];
    assert_eq!(lock["labRun"]["workload"]["scripts"].as_array().unwrap().len(), 2);
}

#[test]
fn a_token_from_another_grader_version_is_refused_by_name() {
    let lock = exercise_named("lock").unwrap();
    let token = replay_token(&LockExercise, &LockExercise.random_case(7));
    assert!(token.starts_with(&format!("lock@{GRADER_VERSION}:random:")), "{token}");
    let case_json = lock.case_json_from_token(&token).expect("this version's own token replays");
    assert_eq!(lock.token_of_case_json(&case_json).unwrap(), token);
    let old = lock.case_json_from_token("lock@0.0.1:random:L1000,U:s1").unwrap_err();
    assert!(old.contains("grader 0.0.1") && old.contains(&format!("grader {GRADER_VERSION}")), "{old}");
    let unversioned = lock.case_json_from_token("lock:random:L1000,U:s1").unwrap_err();
    assert!(unversioned.contains("carries no version"), "{unversioned}");
}
