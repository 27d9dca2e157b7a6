//! The grading engine (crates/engine) for JavaScript: a whole submission
//! graded, or one case run, inside this module, QuickJS included, so the
//! runner's loop never crosses into JavaScript.

use std::cell::Cell;

use wasm_bindgen::prelude::*;

use crate::grading::{describe_js_error, grade_options, test_events_to};

thread_local! {
    /// Set while a call into the engine is under way. A call that returns
    /// (an `Err` included) clears it; one that V8 stopped half-way (its
    /// native stack ran out, or a trap) leaves it set, because nothing in
    /// this module runs after such a stop.
    static ENGINE_CALL_UNDER_WAY: Cell<bool> = const { Cell::new(false) };
}

/// Marks a call into the engine as under way until it is dropped.
struct EngineCall;

impl EngineCall {
    fn begin() -> EngineCall {
        ENGINE_CALL_UNDER_WAY.with(|flag| flag.set(true));
        EngineCall
    }
}

impl Drop for EngineCall {
    fn drop(&mut self) {
        ENGINE_CALL_UNDER_WAY.with(|flag| flag.set(false));
    }
}

/// True when a call into the engine (`gradeInEngine`, `runCaseInEngine`)
/// never returned: V8 stopped it half-way, so this instance's state (its
/// stack pointer, its arenas, the grading under way) is left as it was at
/// that moment. The engine must not be called again in this instance; the
/// caller grades the submission another way (runner/grade.js).
#[wasm_bindgen(js_name = engineBrokeDown)]
pub fn engine_broke_down() -> bool {
    ENGINE_CALL_UNDER_WAY.with(Cell::get)
}

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
            "the engine's limits: {error}; pass {{ stepBudget, stackBytes, wallMs, jobBudget, consoleLinesMax, consoleLineCharsMax }}"
        ))
    })
}

/// The engine's default limits and the words of each stop, as JSON
/// (`{ defaults, reasons: { steps, jobs, wall, memory, stack } }`): the
/// JavaScript runner's sandbox states the same (`DEFAULT_LIMITS`,
/// `STOP_REASONS`), and a test holds the two to it.
#[wasm_bindgen(js_name = engineLimits)]
pub fn engine_limits() -> String {
    use engine::limits::reasons;
    let defaults = engine::Limits::default();
    serde_json::json!({
        "defaults": defaults,
        "reasons": {
            "steps": reasons::steps(&defaults),
            "jobs": reasons::jobs(&defaults),
            "wall": reasons::wall(&defaults),
            "memory": reasons::memory(),
            "stack": reasons::stack(),
        },
    })
    .to_string()
}

/// Grades `source` as `fileName` for `exercise` in the engine: the
/// preflight, then the suite (options as for `gradeSubmission`), with
/// `onTest` and `onFailing` as there, and `onRun()` before each run. If a
/// callback throws, grading stops and this throws its message. Returns the suite report as JSON, or
/// `{"problems":[…]}` when the submission cannot be run at all (one
/// sentence each).
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
    let _call = EngineCall::begin();
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
    let _call = EngineCall::begin();
    let submission = engine::Submission { exercise, source, file: file_name, limits: limits_of(limits)? };
    engine::run_case(&submission, case_json, now_ms).map_err(|message| JsError::new(&message))
}

/// The problems with a module's exports, in the engine's words, for the
/// JavaScript runner's preflight (runner/grade-in-sandbox.js), so that both
/// preflights say the same: `namesJson` is the module's export names (a JSON
/// array of strings, well formed), `kindsJson` the `typeof` of each export
/// the exercise needs that is among them (a JSON object). A JSON array of
/// sentences, empty when the exports are right.
#[wasm_bindgen(js_name = exportProblems)]
pub fn export_problems(exercise: &str, file_name: &str, names_json: &str, kinds_json: &str) -> Result<String, JsError> {
    let exercise = engine::runner::Exercise::named(exercise).map_err(|message| JsError::new(&message))?;
    let names: Vec<String> = serde_json::from_str(names_json)
        .map_err(|error| JsError::new(&format!("exportProblems: the names: {error}")))?;
    let kinds: std::collections::HashMap<String, String> = serde_json::from_str(kinds_json)
        .map_err(|error| JsError::new(&format!("exportProblems: the kinds: {error}")))?;
    let problems = engine::preflight::export_problems(file_name, exercise.exports, &names, |wanted| {
        kinds.get(wanted).cloned().unwrap_or_else(|| "value that cannot be read".to_string())
    });
    Ok(serde_json::to_string(&problems).expect("sentences serialize"))
}
