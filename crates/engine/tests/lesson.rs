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
    graded_within(exercise, source, Limits::default())
}

fn graded_within(exercise: &str, source: &str, limits: Limits) -> Graded {
    let file = grader::registry::info(exercise).expect("a registered exercise").file;
    let submission = Submission { exercise, source, file, limits };
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
    assert!(
        text.contains("kept running without waiting for the store (more than 3000000 operations since it last waited)"),
        "{text}"
    );
    let source = "let keep = []; export function tryLock() {} export function unlock() {} export async function lock() { for (;;) keep.push(new Array(100000).fill(1)); }";
    let Graded::Report(report) = graded("lock", source) else { panic!("problems") };
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("used more than 32 MiB of memory"), "{text}");
}

/// The lease's solution with some work before each unit of work: `steps`
/// loop iterations, each about one of QuickJS's operations.
fn lease_working_between_waits(steps: u32) -> String {
    lesson_file("lease", "solution.js")
        .replace("    await ctx.work();", &format!("    busy({steps});\n    await ctx.work();"))
        + "\nfunction busy(count) { let total = 0; for (let i = 0; i < count; i += 1) total += i; return total; }\n"
}

#[test]
fn bounded_work_between_waits_passes_however_many_steps_a_run_has() {
    // 20,000 loop turns a step, under a step budget made small for the test
    // (100,000), dozens of steps a run: far more than one step's budget in
    // all, less in any one step.
    let limits = Limits { step_budget: 10, ..Limits::default() };
    let Graded::Report(report) = graded_within("lease", &lease_working_between_waits(20_000), limits) else {
        panic!("problems")
    };
    assert_eq!(report.score, report.max_score, "{}", serde_json::to_string(&report).unwrap());
}

#[test]
fn a_run_that_works_too_long_in_all_meets_the_run_budget() {
    // Each step within the step budget (3,000,000), the run's total past a
    // run budget made small for the test (6,000,000).
    let limits = Limits { run_budget: 600, ..Limits::default() };
    let Graded::Report(report) = graded_within("lease", &lease_working_between_waits(1_000_000), limits) else {
        panic!("problems")
    };
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains("ran more than 6000000 operations in one test run"), "{text}");
}

/// The lock's solution calling `work` at the start of every `lock()`,
/// which `definition` defines (a function's memory is freed when it returns).
fn lock_calling(work: &str, definition: &str) -> String {
    lesson_file("lock", "solution.js").replacen(
        "export async function lock(ctx, key, ttlMs) {",
        &format!("{definition}\nexport async function lock(ctx, key, ttlMs) {{\n  {work};"),
        1,
    )
}

#[test]
fn correct_code_gets_the_memory_the_docs_state() {
    // One block of 28 MiB: the 32 MiB heap less what the runtime, the
    // harness and the module's instances take.
    let source = lock_calling(
        "touch(28 * 1024 * 1024)",
        "function touch(bytes) { const big = new Uint8Array(bytes); big[bytes - 1] = 1; return big[0]; }",
    );
    assert!(source.contains("touch(28"), "the lock solution starts as this test expects");
    let Graded::Report(report) = graded("lock", &source) else { panic!("problems") };
    assert_eq!(report.score, report.max_score, "{}", serde_json::to_string(&report).unwrap());
    // An array grown one element at a time to 1 Mi numbers: 16 MiB here,
    // where a value takes 16 bytes (8 in wasm), which an allocator that
    // rounds blocks up to a power of two cannot hold with its last copy.
    let source = lock_calling(
        "grow(1024 * 1024)",
        "function grow(count) { const grown = []; for (let i = 0; i < count; i += 1) grown.push(i); return grown.length; }",
    );
    let limits = Limits { step_budget: 3_000, run_budget: 100_000, ..Limits::default() };
    let Graded::Report(report) = graded_within("lock", &source, limits) else { panic!("problems") };
    assert_eq!(report.score, report.max_score, "{}", serde_json::to_string(&report).unwrap());
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
