//! Lab mode for JavaScript: the engine's `LabRun` behind an opaque handle.
//! The page sends each call to etcd and hands the reply back; the engine
//! runs the learner's code until it waits again and says what it did, in
//! the grader's words.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use engine::lab::LabRun;
use engine::outbox::Message;

#[wasm_bindgen(js_name = LabRun)]
pub struct LabHandle {
    run: LabRun,
    processes: u32,
    /// Calls handed out so far: each call's number, by which its reply comes back.
    calls: u32,
    /// What the code did before it first waited, until `firstEvents` takes it.
    first: Option<String>,
}

/// The messages as JSON events for the page, each call numbered in order.
fn events_json(messages: Vec<Message>, calls: &mut u32) -> String {
    let events: Vec<Value> = messages
        .into_iter()
        .map(|message| match message {
            Message::Call { process, call } => {
                *calls += 1;
                json!({ "kind": "call", "id": *calls - 1, "process": process, "words": call.describe(), "call": call })
            }
            Message::Note { process, note } => {
                json!({ "kind": "note", "process": process, "words": grader::timeline::describe_note(&note), "note": note })
            }
            Message::Finished { process } => json!({ "kind": "finished", "process": process }),
            Message::Stopped { reason } => json!({ "kind": "stopped", "reason": reason }),
        })
        .collect();
    Value::Array(events).to_string()
}

/// Every process's clock: time in a lab is the page's, the same for all.
fn clocks(processes: u32, now_ms: f64) -> String {
    let now = now_ms.max(0.0).round() as u64;
    vec![now.to_string(); processes as usize].join(",")
}

#[wasm_bindgen(js_class = LabRun)]
impl LabHandle {
    /// Starts `exercise`'s lab (its processes and workload from the
    /// registry) with `source` as `fileName`, at `nowMs` on the page's clock.
    /// Throws the module's problem (a syntax error, a top-level throw) in
    /// the learner's terms, or that the exercise has no lab.
    #[wasm_bindgen(constructor)]
    pub fn new(exercise: &str, source: &str, file_name: &str, now_ms: f64) -> Result<LabHandle, JsError> {
        let hosted = grader::dynamic::exercise_named(exercise).map_err(|message| JsError::new(&message))?;
        let lab = hosted.lab_run_json();
        let (Some(processes), Some(workload)) = (lab["processes"].as_u64(), lab.get("workload")) else {
            return Err(JsError::new(&format!("{exercise} has no lab run")));
        };
        let processes = processes as u32;
        let (run, messages) = LabRun::start(
            exercise,
            source,
            file_name,
            processes,
            &workload.to_string(),
            &clocks(processes, now_ms),
            engine::Limits::default(),
            js_sys::Date::now,
        )
        .map_err(|message| JsError::new(&message))?;
        let mut calls = 0;
        let first = Some(events_json(messages, &mut calls));
        Ok(LabHandle { run, processes, calls, first })
    }

    /// What the code did before it first waited, as a JSON array of events
    /// (`{ kind: "call", id, process, words, call }`, `{ kind: "note",
    /// process, words, note }`, `{ kind: "finished", process }`, `{ kind:
    /// "stopped", reason }`); `[]` after the first time.
    #[wasm_bindgen(js_name = firstEvents)]
    pub fn first_events(&mut self) -> String {
        self.first.take().unwrap_or_else(|| "[]".to_string())
    }

    /// Settles call `id` of `process` with `replyJson` (in the simulation's
    /// reply shape, `{ reply: "cas", … }`) at `nowMs`: the events of the
    /// step it starts, as for `firstEvents`.
    pub fn deliver(&mut self, id: u32, process: u32, now_ms: f64, reply_json: &str) -> Result<String, JsError> {
        let reply: sim::Reply = serde_json::from_str(reply_json)
            .map_err(|error| JsError::new(&format!("LabRun.deliver: not a reply: {error}")))?;
        let messages = self.run.deliver(id, process, &clocks(self.processes, now_ms), &reply);
        Ok(events_json(messages, &mut self.calls))
    }
}
