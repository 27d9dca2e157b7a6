//! `Simulation` in JavaScript: one run of the kernel, driven by the JS
//! runner exactly as `sim::host` drives it for Rust processes (the same
//! `engine::SimRun` the engine's own run loop drives).
//!
//! The runner's loop crosses this boundary twice per step and both crossings
//! carry one string: `nextDelivery()` hands out the step, packed the way the
//! sandboxed harness reads it, and `applyOutbox()` takes everything the code
//! did until it waited again (calls, notes, finishes), as the harness wrote
//! it. Nothing is reshaped in JavaScript on the way.

use std::cell::RefCell;

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use engine::{SimRun, Step};
use sim::{Plan, Sim, SimLimits};

/// The parts of a grader case the kernel needs.
#[derive(Deserialize)]
struct CasePlan {
    plan: Plan,
    limits: SimLimits,
}

#[wasm_bindgen(js_name = Simulation)]
pub struct SimHandle {
    run: SimRun,
}

#[wasm_bindgen(js_class = Simulation)]
impl SimHandle {
    /// A run of `caseJson` (a grader case: `{ plan, limits, … }`).
    #[wasm_bindgen(constructor)]
    pub fn new(case_json: &str) -> Result<SimHandle, JsError> {
        let case: CasePlan = serde_json::from_str(case_json)
            .map_err(|error| JsError::new(&format!("Simulation: malformed case: {error}")))?;
        Ok(SimHandle { run: SimRun::new(Sim::new(case.plan, case.limits)) })
    }

    #[wasm_bindgen(getter)]
    pub fn processes(&self) -> u32 {
        self.run.processes()
    }

    /// The process's own clock (what its `ctx.now()` returns).
    #[wasm_bindgen(js_name = localNow)]
    pub fn local_now(&self, process: u32) -> f64 {
        self.run.local_now(process)
    }

    /// Every process's own clock, comma-separated (the runner hands these to
    /// the sandbox with each step, since time stands still while code runs).
    #[wasm_bindgen(js_name = localNowAll)]
    pub fn local_now_all(&self) -> String {
        self.run.local_now_all()
    }

    /// Advances to the next step and says what the sandbox must do, as one
    /// string (one crossing per step, passed to the harness untouched): a
    /// delivery that settles a call (`engine::delivery`: `[call, process,
    /// "<local clocks>", how, value]`); `"!<process>"` when that process
    /// crashed; `""` when the run is over.
    #[wasm_bindgen(js_name = nextDelivery)]
    pub fn next_delivery(&mut self) -> String {
        match self.run.next_step() {
            Step::Deliver { delivery, .. } => delivery,
            Step::Crashed { process } => format!("!{process}"),
            Step::Done => String::new(),
        }
    }

    /// The process the last delivery or crash was about.
    #[wasm_bindgen(getter, js_name = lastProcess)]
    pub fn last_process(&self) -> u32 {
        self.run.last_process()
    }

    /// Applies the harness's outbox (see `engine::SimRun::apply_outbox`):
    /// returns the reason the run stops (the harness stopped it, or a line
    /// could not be read), or undefined.
    #[wasm_bindgen(js_name = applyOutbox)]
    pub fn apply_outbox(&mut self, outbox: &str) -> Option<String> {
        self.run.apply_outbox(outbox)
    }

    /// Records that the process's code failed, whatever its state, and ends
    /// the run (see `Sim::fail`: a failure is never dropped).
    pub fn fail(&mut self, process: u32, message: String) {
        self.run.fail(process, message);
    }

    /// The finished run as the grader reads it: `{ ending, trace }` JSON.
    /// Call when `nextDelivery()` returned "".
    #[wasm_bindgen(js_name = executionJson)]
    pub fn execution_json(&mut self) -> String {
        serde_json::to_string(&self.run.execution()).expect("executions serialize")
    }

    /// Hands the finished run to `gradeSubmission` without JSON: the run is
    /// kept here and a ticket (a number) is returned, which the runner gives
    /// back as its answer. Only the latest hand-off is kept: the grader takes
    /// each one as soon as the case returns. Call when `nextDelivery()` returned "".
    #[wasm_bindgen(js_name = handOff)]
    pub fn hand_off(&mut self) -> u32 {
        let execution = self.run.execution();
        HANDED_OFF.with(|handed| {
            let mut handed = handed.borrow_mut();
            handed.last_ticket = handed.last_ticket.wrapping_add(1);
            handed.held = Some((handed.last_ticket, execution));
            handed.last_ticket
        })
    }
}

/// Executions handed off by `Simulation.handOff()`: the latest one, under a
/// ticket that is never reused, so a stale ticket cannot fetch a newer run.
struct HandedOff {
    last_ticket: u32,
    held: Option<(u32, grader::Execution)>,
}

thread_local! {
    static HANDED_OFF: RefCell<HandedOff> = const { RefCell::new(HandedOff { last_ticket: 0, held: None }) };
}

/// Takes the execution handed off under `ticket`; None if it is not the one
/// held (the runner answered with a stale or made-up number).
pub(crate) fn take_handed_off(ticket: u32) -> Option<grader::Execution> {
    HANDED_OFF.with(|handed| {
        let mut handed = handed.borrow_mut();
        match handed.held.take() {
            Some((held, execution)) if held == ticket => Some(execution),
            other => {
                handed.held = other;
                None
            }
        }
    })
}
