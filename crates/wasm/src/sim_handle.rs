//! `Simulation` in JavaScript: one run of the kernel, driven by the JS
//! runner exactly as `sim::host` drives it for Rust processes.
//!
//! The runner's loop crosses this boundary once per step, so the calls are
//! lean: calls and notes come in as JSON text (made by the sandboxed harness,
//! passed through untouched), and a step's answer is read through small
//! getters instead of an object per step.

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use sim::{Call, Next, Note, Plan, Sim, SimLimits};

/// The parts of a grader case the kernel needs.
#[derive(Deserialize)]
struct CasePlan {
    plan: Plan,
    limits: SimLimits,
}

/// What the last `nextStep()` produced.
const STEP_RESUME: u8 = 1;
const STEP_CRASHED: u8 = 2;
const STEP_DONE: u8 = 3;

#[wasm_bindgen(js_name = Simulation)]
pub struct SimHandle {
    sim: Sim,
    last_process: u32,
    last_call: u32,
    last_reply_json: String,
}

#[wasm_bindgen(js_class = Simulation)]
impl SimHandle {
    /// A run of `caseJson` (a grader case: `{ plan, limits, … }`).
    #[wasm_bindgen(constructor)]
    pub fn new(case_json: &str) -> Result<SimHandle, JsError> {
        let case: CasePlan =
            serde_json::from_str(case_json).map_err(|error| JsError::new(&format!("Simulation: malformed case: {error}")))?;
        Ok(SimHandle { sim: Sim::new(case.plan, case.limits), last_process: 0, last_call: 0, last_reply_json: String::new() })
    }

    #[wasm_bindgen(getter)]
    pub fn processes(&self) -> u32 {
        self.sim.processes()
    }

    /// The process's own clock (what its `ctx.now()` returns).
    #[wasm_bindgen(js_name = localNow)]
    pub fn local_now(&self, process: u32) -> f64 {
        self.sim.local_now_ms(process) as f64
    }

    /// Every process's own clock, comma-separated (the runner hands these to
    /// the sandbox with each step, since time stands still while code runs).
    #[wasm_bindgen(js_name = localNowAll)]
    pub fn local_now_all(&self) -> String {
        (0..self.sim.processes()).map(|process| self.sim.local_now_ms(process).to_string()).collect::<Vec<_>>().join(",")
    }

    /// Starts a call; returns its id, or -1 if the process no longer runs.
    pub fn call(&mut self, process: u32, call_json: &str) -> Result<i32, JsError> {
        let call: Call = serde_json::from_str(call_json).map_err(|error| JsError::new(&format!("malformed call {call_json}: {error}")))?;
        Ok(self.sim.call(process, call).map_or(-1, |id| id as i32))
    }

    /// Records a note for the process (ignored if it no longer runs).
    pub fn note(&mut self, process: u32, note_json: &str) -> Result<(), JsError> {
        let note: Note = serde_json::from_str(note_json).map_err(|error| JsError::new(&format!("malformed note {note_json}: {error}")))?;
        let _ = self.sim.note(process, note);
        Ok(())
    }

    pub fn finish(&mut self, process: u32) {
        let _ = self.sim.finish(process);
    }

    /// Ends the run now (the runner stopped it: a limit or a broken submission).
    pub fn stop(&mut self) {
        self.sim.stop(sim::Ending::Stopped);
    }

    /// Advances to the next step: 1 = resume `lastProcess` with `lastReplyJson`
    /// for `lastCall`, 2 = `lastProcess` crashed, 3 = the run is over.
    #[wasm_bindgen(js_name = nextStep)]
    pub fn next_step(&mut self) -> u8 {
        match self.sim.next_step() {
            Next::Resume { process, call, reply } => {
                self.last_process = process;
                self.last_call = call;
                self.last_reply_json = serde_json::to_string(&reply).expect("replies serialize");
                STEP_RESUME
            }
            Next::Crashed { process } => {
                self.last_process = process;
                STEP_CRASHED
            }
            Next::Done(_) => STEP_DONE,
        }
    }

    #[wasm_bindgen(getter, js_name = lastProcess)]
    pub fn last_process(&self) -> u32 {
        self.last_process
    }

    #[wasm_bindgen(getter, js_name = lastCall)]
    pub fn last_call(&self) -> u32 {
        self.last_call
    }

    #[wasm_bindgen(getter, js_name = lastReplyJson)]
    pub fn last_reply_json(&self) -> String {
        self.last_reply_json.clone()
    }

    /// The finished run as the grader reads it: `{ ending, trace }` JSON.
    /// Call after `nextStep()` returned 3.
    #[wasm_bindgen(js_name = executionJson)]
    pub fn execution_json(&mut self) -> String {
        let ending = match self.sim.next_step() {
            Next::Done(ending) => ending,
            _ => sim::Ending::Stopped,
        };
        serde_json::to_string(&grader::Execution { ending, trace: self.sim.trace().to_vec() }).expect("executions serialize")
    }
}
