//! The engine grades the lesson's own files natively as the page and the
//! CLI do in wasm: every solution passes, every starter fails.

use std::path::PathBuf;
use std::time::Instant;

use engine::{grade, Graded, Limits, Listener, Submission};
use grader::{GradeOptions, ScenarioPart};

fn clock() -> f64 {
    thread_local!(static START: Instant = Instant::now());
    START.with(|start| start.elapsed().as_secs_f64() * 1000.0)
}

fn lesson_file(exercise: &str, name: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../exercises/ownership-election").join(exercise).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn graded(exercise: &str, source: &str) -> Graded {
    let file = grader::registry::info(exercise).expect("a registered exercise").file;
    let submission = Submission { exercise, source, file, limits: Limits::default() };
    let options = GradeOptions { seeds: 20, ..GradeOptions::default() };
    grade(
        &submission,
        &options,
        ScenarioPart::ALL,
        Listener { on_run: &mut || Ok(()), on_test: &mut |_| Ok(()) },
        clock,
    )
    .expect("the grading runs")
}

#[test]
fn every_solution_passes_and_every_starter_fails() {
    for exercise in grader::registry::names() {
        match graded(exercise, &lesson_file(exercise, "solution.js")) {
            Graded::Report(report) => assert_eq!(report.score, report.max_score, "{exercise}: {report:?}"),
            Graded::Problems(problems) => panic!("{exercise}'s solution: {problems:?}"),
        }
        match graded(exercise, &lesson_file(exercise, "starter.js")) {
            Graded::Report(report) => assert!(report.score < report.max_score, "{exercise}'s starter passed"),
            Graded::Problems(problems) => panic!("{exercise}'s starter: {problems:?}"),
        }
    }
}

#[test]
fn a_file_that_cannot_run_gets_sentences_not_a_report() {
    let Graded::Problems(problems) = graded("lock", "export function lock( {") else { panic!("graded") };
    assert_eq!(problems.len(), 1);
    assert!(problems[0].starts_with("lock.js:1:"), "{problems:?}");
    let Graded::Problems(problems) = graded("lock", "export function trylock() {}") else { panic!("graded") };
    assert!(problems.iter().any(|problem| problem.contains("must export `tryLock`; found `trylock`")), "{problems:?}");
    let Graded::Problems(problems) = graded("lock", "import x from 'fs'; export function lock() {}") else {
        panic!("graded")
    };
    assert!(problems[0].contains("Your solution must be one file with no imports."), "{problems:?}");
}

#[test]
fn limits_stop_runaway_code_with_their_words() {
    let source =
        lesson_file("lock", "solution.js").replacen("export async function lock(", "export async function lock_(", 1)
            + "\nexport async function lock(ctx, ...rest) { for (;;) {} }\n";
    let Graded::Report(report) = graded("lock", &source) else { panic!("problems") };
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("kept running without waiting for the store (more than 3000000 steps in one go)"), "{text}");
    let source = "let keep = []; export function tryLock() {} export function unlock() {} export async function lock() { for (;;) keep.push(new Array(100000).fill(1)); }";
    let Graded::Report(report) = graded("lock", source) else { panic!("problems") };
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("used more than 32 MiB of memory"), "{text}");
}

/// A thread's sandboxes are spares of the ones before (put back as new):
/// a grading after others, hostile ones included, is the grading a fresh
/// thread gives, byte for byte, starters (whose failures carry traces) and
/// solutions alike.
#[test]
fn a_grading_is_the_same_in_a_fresh_thread_and_after_other_gradings() {
    let report = |exercise: &str, source: &str| match graded(exercise, source) {
        Graded::Report(report) => serde_json::to_string(&report).unwrap(),
        Graded::Problems(problems) => panic!("{exercise}: {problems:?}"),
    };
    let bomb = "let keep = []; export function tryLock() {} export function unlock() {} export async function lock() { for (;;) keep.push(new Array(100000).fill(1)); }";
    for exercise in grader::registry::names() {
        for name in ["starter.js", "solution.js"] {
            let source = lesson_file(exercise, name);
            let fresh = {
                let (exercise, source) = (exercise.to_string(), source.clone());
                std::thread::spawn(move || report(&exercise, &source)).join().expect("the fresh thread")
            };
            graded("lock", bomb);
            graded("cas", &lesson_file("cas", "solution.js"));
            assert_eq!(report(exercise, &source), fresh, "{exercise}'s {name}");
        }
    }
}
