//! The engine's harness (`vm/harness.js`) is the Rust harness's twin:
//! running the lesson's `solution.js` in the engine must give byte for byte
//! the trace that the Rust reference solution gives under the same case.
//! This is what makes a learner's verdict the grader's own, and it catches
//! any drift in call order, notes or timing between the two harnesses.

use std::path::PathBuf;

use engine::{Limits, Submission};
use grader::dynamic::{HostAnswer, HostCase};
use grader::{GradeOptions, ScenarioPart};

fn clock() -> f64 {
    0.0
}

fn solution(exercise: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../exercises/ownership-election")
        .join(exercise)
        .join("solution.js");
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Every case a grading at `seeds` runs (named scenarios and random ones), as JSON.
fn cases_of(exercise: &str, seeds: u32) -> Vec<String> {
    let mut cases = Vec::new();
    let options = GradeOptions { seeds, ..GradeOptions::default() };
    let mut run = |case: &dyn HostCase| -> Result<HostAnswer, String> {
        let json = case.json()?;
        let reference = grader::dynamic::reference_execution_json(exercise, &json)?;
        cases.push(json);
        Ok(HostAnswer::Json(reference_answer(exercise, &reference)))
    };
    grader::dynamic::grade_json(exercise, &options, ScenarioPart::ALL, &mut run, &mut |_| Ok(()))
        .expect("the reference grades");
    cases
}

/// What a host answers for the reference: the execution, or for cas the
/// recording of the replies in it (the cas grader reads recordings).
fn reference_answer(exercise: &str, execution_json: &str) -> String {
    if exercise != "cas" {
        return execution_json.to_string();
    }
    let execution: serde_json::Value = serde_json::from_str(execution_json).expect("an execution");
    let answers: Vec<&serde_json::Value> = execution["trace"]
        .as_array()
        .expect("a trace")
        .iter()
        .filter(|event| event["happening"]["what"] == "complete")
        .map(|event| &event["happening"]["reply"])
        .collect();
    serde_json::json!({ "answers": answers, "failure": null, "console": [] }).to_string()
}

/// The cas contract leaves version numbers free (they must only grow and
/// never repeat), and solution.js numbers them differently from the Rust
/// reference; so cas traces are compared with each version replaced by its
/// rank of first appearance. Everything else must match exactly.
fn comparable(exercise: &str, execution_json: &str) -> serde_json::Value {
    let mut execution: serde_json::Value = serde_json::from_str(execution_json).expect("an execution");
    if exercise == "cas" {
        let mut ranks: Vec<u64> = Vec::new();
        rank_versions(&mut execution, &mut ranks);
    }
    execution
}

fn rank_versions(value: &mut serde_json::Value, ranks: &mut Vec<u64>) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match field.as_u64() {
                    Some(version) if key == "version" => {
                        let rank = ranks.iter().position(|&seen| seen == version).unwrap_or_else(|| {
                            ranks.push(version);
                            ranks.len() - 1
                        });
                        *field = serde_json::Value::from(rank + 1);
                    }
                    _ => rank_versions(field, ranks),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|item| rank_versions(item, ranks)),
        _ => {}
    }
}

#[test]
fn every_solution_in_the_engine_traces_exactly_like_the_rust_reference() {
    for exercise in grader::registry::names() {
        let source = solution(exercise);
        let file = grader::registry::info(exercise).expect("registered").file;
        let submission = Submission { exercise, source: &source, file, limits: Limits::default() };
        let cases = cases_of(exercise, 40);
        assert!(cases.len() >= 40, "{exercise}: {} cases", cases.len());
        for case in &cases {
            let answer = engine::run_case(&submission, case, clock).expect("the case runs");
            let from_engine =
                grader::dynamic::execution_json_from_answer(exercise, case, &answer).expect("an execution");
            let from_rust = grader::dynamic::reference_execution_json(exercise, case).expect("the reference runs");
            let (engine, rust) = (comparable(exercise, &from_engine), comparable(exercise, &from_rust));
            if engine != rust {
                let (engine, rust) = (&engine["trace"], &rust["trace"]);
                let at = (0..).find(|&index| engine.get(index) != rust.get(index)).expect("they differ");
                let scenario: serde_json::Value = serde_json::from_str(case).expect("a case");
                panic!(
                    "{exercise}: case {} differs at event {at}:\n engine: {}\n Rust:   {}",
                    scenario["scenario"],
                    engine.get(at).map_or("(none)".to_string(), ToString::to_string),
                    rust.get(at).map_or("(none)".to_string(), ToString::to_string)
                );
            }
        }
    }
}
