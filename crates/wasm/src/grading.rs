//! The grader for JavaScript: grading options, test events, replay tokens,
//! the answers of the Rust reference and the grader's words, for the page,
//! the CLI and lab mode (the engine itself is `engine_api`).

use wasm_bindgen::prelude::*;

use grader::GradeOptions;

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsGradeOptions {
    first_seed: Option<f64>,
    seeds: Option<u32>,
    shrink_attempts_max: Option<u32>,
    /// One part of a grading split across workers: `[index, count]` (see `grader::ScenarioPart`).
    scenario_part: Option<(u32, u32)>,
}

/// `gradeInEngine`'s options as the grader's, and the part of the suite
/// they ask for.
pub(crate) fn grade_options(options: JsValue) -> Result<(GradeOptions, grader::ScenarioPart), JsError> {
    let js_options: JsGradeOptions = if options.is_undefined() || options.is_null() {
        JsGradeOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options).map_err(|error| {
            JsError::new(&format!(
                "the grading options: {error}; pass any of {{ firstSeed, seeds, shrinkAttemptsMax, scenarioPart }}"
            ))
        })?
    };
    let defaults = GradeOptions::default();
    let options = GradeOptions {
        first_seed: js_options.first_seed.map_or(defaults.first_seed, |seed| seed as u64),
        seeds: js_options.seeds.unwrap_or(defaults.seeds),
        shrink_attempts_max: js_options.shrink_attempts_max.unwrap_or(defaults.shrink_attempts_max),
    };
    let part = match js_options.scenario_part {
        Some((index, count)) if count > 0 && index < count => grader::ScenarioPart { index, count },
        Some((index, count)) => {
            return Err(JsError::new(&format!(
                "the grading options: scenarioPart [{index}, {count}] must be [index, count] with index < count"
            )))
        }
        None => grader::ScenarioPart::ALL,
    };
    Ok((options, part))
}

/// Hands each test event to the host's optional callbacks: `onFailing(name)`
/// when a test is found failing, `onTest(testJson)` when it is finished.
pub(crate) fn test_events_to<'a>(
    on_test: Option<&'a js_sys::Function>,
    on_failing: Option<&'a js_sys::Function>,
) -> impl FnMut(grader::TestEvent<'_>) -> Result<(), String> + 'a {
    move |event| match event {
        grader::TestEvent::Failing { name } => tell_host(on_failing, "onFailing", || name.to_string()),
        grader::TestEvent::Finished(test) => {
            tell_host(on_test, "onTest", || serde_json::to_string(test).expect("reports serialize"))
        }
    }
}

/// Calls the host's optional `callback` (named `what` in errors) with one
/// string, made only when there is a callback to hear it.
fn tell_host(callback: Option<&js_sys::Function>, what: &str, text: impl FnOnce() -> String) -> Result<(), String> {
    let Some(callback) = callback else { return Ok(()) };
    callback
        .call1(&JsValue::NULL, &JsValue::from_str(&text()))
        .map(|_| ())
        .map_err(|error| format!("{what} failed: {}", describe_js_error(&error)))
}

pub(crate) fn describe_js_error(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}

/// The case a replay token stands for, as JSON (for "copy link" and replays).
#[wasm_bindgen(js_name = caseFromToken)]
pub fn case_from_token(exercise: &str, token: &str) -> Result<String, JsError> {
    grader::dynamic::case_json_from_token(exercise, token).map_err(|message| JsError::new(&message))
}

/// A counterexample (JSON) as readable text: its violation, timeline and token.
#[wasm_bindgen(js_name = renderCounterexample)]
pub fn render_counterexample(counterexample_json: &str) -> Result<String, JsError> {
    let counterexample: grader::Counterexample = serde_json::from_str(counterexample_json)
        .map_err(|error| JsError::new(&format!("malformed counterexample: {error}")))?;
    Ok(grader::timeline::render_counterexample(&counterexample))
}

#[wasm_bindgen(js_name = executionFromAnswer)]
pub fn execution_from_answer(exercise: &str, case_json: &str, answer_json: &str) -> Result<String, JsError> {
    grader::dynamic::execution_json_from_answer(exercise, case_json, answer_json)
        .map_err(|message| JsError::new(&message))
}

/// Checks the runner's answer for one case: the violation as JSON, or "null".
#[wasm_bindgen(js_name = checkAnswer)]
pub fn check_answer(exercise: &str, case_json: &str, answer_json: &str) -> Result<String, JsError> {
    let violation =
        grader::dynamic::check_json(exercise, case_json, answer_json).map_err(|message| JsError::new(&message))?;
    Ok(serde_json::to_string(&violation).expect("violations serialize"))
}

/// The most points a submission of the exercise can score.
#[wasm_bindgen(js_name = maxScore)]
pub fn max_score(exercise: &str) -> Result<u32, JsError> {
    grader::dynamic::max_score(exercise).map_err(|message| JsError::new(&message))
}

/// The exercise registry as JSON: the grader's version, the default budget,
/// and every exercise (file, exports, how it runs, its key, its lab run, its
/// rules and tests). Every JavaScript host reads its exercises from here.
#[wasm_bindgen(js_name = exerciseRegistry)]
pub fn exercise_registry() -> String {
    grader::registry::registry_json().to_string()
}

/// A trace (JSON) in words: `[{ text, call? }]`, one per event, exactly as
/// every timeline says it (for replays, whose execution comes without them).
#[wasm_bindgen(js_name = describeTrace)]
pub fn describe_trace(trace_json: &str) -> Result<String, JsError> {
    let trace: Vec<sim::TraceEvent> =
        serde_json::from_str(trace_json).map_err(|error| JsError::new(&format!("malformed trace: {error}")))?;
    Ok(serde_json::to_string(&grader::timeline::event_words(&trace)).expect("words serialize"))
}

/// A call (JSON, as the harness sends it) in words, e.g. `get("locks/bar")`: for lab mode.
#[wasm_bindgen(js_name = describeCall)]
pub fn describe_call(call_json: &str) -> Result<String, JsError> {
    let call: sim::Call =
        serde_json::from_str(call_json).map_err(|error| JsError::new(&format!("malformed call: {error}")))?;
    Ok(call.describe())
}

/// A reply (JSON) in words, e.g. `{ ok: true, version: 7 }`: for lab mode.
#[wasm_bindgen(js_name = describeReply)]
pub fn describe_reply(reply_json: &str) -> Result<String, JsError> {
    let reply: sim::Reply =
        serde_json::from_str(reply_json).map_err(|error| JsError::new(&format!("malformed reply: {error}")))?;
    Ok(reply.describe())
}

/// A note (JSON, as the harness records it) in words: for lab mode.
#[wasm_bindgen(js_name = describeNote)]
pub fn describe_note(note_json: &str) -> Result<String, JsError> {
    let note: sim::Note =
        serde_json::from_str(note_json).map_err(|error| JsError::new(&format!("malformed note: {error}")))?;
    Ok(grader::timeline::describe_note(&note))
}
