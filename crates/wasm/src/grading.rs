//! Grading from JavaScript: the Rust grader runs the suite and calls back
//! into the JS runner for each case, so the browser gets exactly the native
//! verdicts, shrinking and replay tokens.

use wasm_bindgen::prelude::*;

use grader::dynamic::{HostAnswer, HostCase};
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

/// Grades a submission: `runCase(caseJson)` runs one case and answers with
/// its execution (or cas recording) as JSON, or with the ticket of a
/// `Simulation.handOff()`. The optional `onTest(testJson)` is called with
/// each test as soon as it is finished (its failure shrunk), in the report's
/// order, as the JSON of the very entry the report will hold; the optional
/// `onFailing(name)`, as soon as the next test has failed, before its
/// counterexample is shrunk (its verdict is final then; its `onTest`
/// follows). If either throws, grading stops and this throws its message.
/// Returns the suite report as JSON.
#[wasm_bindgen(js_name = gradeSubmission)]
pub fn grade_submission(
    exercise: &str,
    options: JsValue,
    run_case: &js_sys::Function,
    on_test: Option<js_sys::Function>,
    on_failing: Option<js_sys::Function>,
) -> Result<String, JsError> {
    let (options, part) = grade_options(options)?;
    let mut run = |case: &dyn HostCase| -> Result<HostAnswer, String> {
        let answer = run_case
            .call1(&JsValue::NULL, &JsValue::from_str(&case.json()?))
            .map_err(|error| describe_js_error(&error))?;
        if let Some(ticket) = answer.as_f64() {
            return crate::sim_handle::take_handed_off(ticket as u32).map(HostAnswer::Execution).ok_or_else(|| {
                format!("runCase answered with ticket {ticket}, which is not the latest Simulation.handOff()")
            });
        }
        answer
            .as_string()
            .map(HostAnswer::Json)
            .ok_or_else(|| "runCase must return the execution as a JSON string or a handOff() ticket".to_string())
    };
    let mut finished = test_events_to(on_test.as_ref(), on_failing.as_ref());
    let report = grader::dynamic::grade_json(exercise, &options, part, &mut run, &mut finished)
        .map_err(|message| JsError::new(&message))?;
    Ok(serde_json::to_string(&report).expect("reports serialize"))
}

/// `gradeSubmission`'s options as the grader's, and the part of the suite
/// they ask for.
pub(crate) fn grade_options(options: JsValue) -> Result<(GradeOptions, grader::ScenarioPart), JsError> {
    let js_options: JsGradeOptions = if options.is_undefined() || options.is_null() {
        JsGradeOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options).map_err(|error| {
            JsError::new(&format!(
                "gradeSubmission's options: {error}; pass {{ firstSeed, seeds, shrinkAttemptsMax, scenarioPart }}"
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
                "gradeSubmission's options: scenarioPart [{index}, {count}] must be [index, count] with index < count"
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

/// The Rust reference solution's execution of a case, as JSON (for the
/// test that holds the JavaScript harness to the Rust one).
#[wasm_bindgen(js_name = referenceExecution)]
pub fn reference_execution(exercise: &str, case_json: &str) -> Result<String, JsError> {
    grader::dynamic::reference_execution_json(exercise, case_json).map_err(|message| JsError::new(&message))
}

/// The execution the grader reads from the runner's answer for a case.
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
