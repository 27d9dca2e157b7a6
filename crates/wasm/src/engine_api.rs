//! The grading engine (crates/engine) for JavaScript: a whole submission
//! graded, or one case run, inside this module, QuickJS included, so the
//! runner's loop never crosses into JavaScript.

use wasm_bindgen::prelude::*;

use crate::grading::{describe_js_error, grade_options, test_events_to};

/// The real clock for the engine's wall-clock backstop.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn limits_of(limits: JsValue) -> Result<engine::Limits, JsError> {
    if limits.is_undefined() || limits.is_null() {
        return Ok(engine::Limits::default());
    }
    serde_wasm_bindgen::from_value(limits).map_err(|error| {
        JsError::new(&format!(
            "the engine's limits: {error}; pass any of {{ stepBudget, runBudget, runAllocationBytes, stackBytes, wallMs, jobBudget, consoleLinesMax, consoleLineCharsMax }}"
        ))
    })
}

/// The engine's default limits and the words of each stop, as JSON
/// (`{ defaults, memoryBytes, reasons: { steps, run, allocation, jobs, wall, memory, stack } }`),
/// for hosts that state them (the CLI's help, tests of the docs).
#[wasm_bindgen(js_name = engineLimits)]
pub fn engine_limits() -> String {
    use engine::limits::reasons;
    let defaults = engine::Limits::default();
    serde_json::json!({
        "defaults": defaults,
        "memoryBytes": engine::limits::MEMORY_BYTES,
        "reasons": {
            "steps": reasons::steps(&defaults),
            "run": reasons::run(&defaults),
            "allocation": reasons::allocation(&defaults),
            "jobs": reasons::jobs(&defaults),
            "wall": reasons::wall(&defaults),
            "memory": reasons::memory(),
            "stack": reasons::stack(),
        },
    })
    .to_string()
}

/// Grades `source` as `fileName` for `exercise` in the engine: the
/// preflight, then the suite. `options`: `{ firstSeed, seeds,
/// shrinkAttemptsMax, scenarioPart }`, each optional (`scenarioPart`,
/// `[index, count]`, grades one part of a suite split across workers, see
/// `grader::ScenarioPart`); `limits`: the engine's, each optional.
/// `onTest(testJson)` hears each test as soon as it is finished (its
/// failure shrunk), in the report's order, as the JSON of the very entry
/// the report holds; `onFailing(name)` as soon as the next test has failed,
/// before its counterexample is shrunk; `onRun()` before each run. If a
/// callback throws, grading stops and this throws its message. Returns the
/// suite report as JSON, or `{"problems":[…]}` when the submission cannot
/// be run at all (one sentence each).
#[wasm_bindgen(js_name = gradeInEngine)]
pub fn grade_in_engine(
    exercise: &str,
    source: &str,
    file_name: &str,
    options: JsValue,
    limits: JsValue,
    on_test: Option<js_sys::Function>,
    on_failing: Option<js_sys::Function>,
    on_run: Option<js_sys::Function>,
) -> Result<String, JsError> {
    let (options, part) = grade_options(options)?;
    let submission = engine::Submission { exercise, source, file: file_name, limits: limits_of(limits)? };
    let mut on_test = test_events_to(on_test.as_ref(), on_failing.as_ref());
    let mut on_run = || match &on_run {
        Some(callback) => callback
            .call0(&JsValue::NULL)
            .map(|_| ())
            .map_err(|error| format!("onRun failed: {}", describe_js_error(&error))),
        None => Ok(()),
    };
    let listener = engine::Listener { on_run: &mut on_run, on_test: &mut on_test };
    match engine::grade(&submission, &options, part, listener, now_ms).map_err(|message| JsError::new(&message))? {
        engine::Graded::Problems(problems) => Ok(serde_json::json!({ "problems": problems }).to_string()),
        engine::Graded::Report(report) => Ok(serde_json::to_string(&report).expect("reports serialize")),
    }
}

/// Runs one case (`caseJson`, e.g. from `caseFromToken`) with `source` in
/// the engine: the answer as the grader reads it (for `executionFromAnswer`
/// and `checkAnswer`).
#[wasm_bindgen(js_name = runCaseInEngine)]
pub fn run_case_in_engine(
    exercise: &str,
    source: &str,
    file_name: &str,
    case_json: &str,
    limits: JsValue,
) -> Result<String, JsError> {
    let submission = engine::Submission { exercise, source, file: file_name, limits: limits_of(limits)? };
    engine::run_case(&submission, case_json, now_ms).map_err(|message| JsError::new(&message))
}
