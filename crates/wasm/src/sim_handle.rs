//! `Simulation` in JavaScript: one run of the kernel, driven by the JS
//! runner exactly as `sim::host` drives it for Rust processes.
//!
//! The runner's loop crosses this boundary twice per step and both crossings
//! carry one string: `nextDelivery()` hands out the step, packed the way the
//! sandboxed harness reads it, and `applyOutbox()` takes everything the code
//! did until it waited again (calls, notes, finishes), as the harness wrote
//! it. Nothing is reshaped in JavaScript on the way.

use std::cell::RefCell;

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use sim::{Call, Next, Note, Plan, Sim, SimLimits};

/// The parts of a grader case the kernel needs.
#[derive(Deserialize)]
struct CasePlan {
    plan: Plan,
    limits: SimLimits,
}

#[wasm_bindgen(js_name = Simulation)]
pub struct SimHandle {
    sim: Sim,
    last_process: u32,
    /// Calls applied from the harness's outbox; the harness numbers them the same way.
    calls_made: u32,
}

#[wasm_bindgen(js_class = Simulation)]
impl SimHandle {
    /// A run of `caseJson` (a grader case: `{ plan, limits, … }`).
    #[wasm_bindgen(constructor)]
    pub fn new(case_json: &str) -> Result<SimHandle, JsError> {
        let case: CasePlan = serde_json::from_str(case_json)
            .map_err(|error| JsError::new(&format!("Simulation: malformed case: {error}")))?;
        Ok(SimHandle { sim: Sim::new(case.plan, case.limits), last_process: 0, calls_made: 0 })
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
        let mut text = String::new();
        self.push_local_nows(&mut text);
        text
    }

    /// Advances to the next step and says what the sandbox must do, as one
    /// string (one crossing per step, passed to the harness untouched): a
    /// delivery that settles a call (`crate::delivery`: `[call, process,
    /// "<local clocks>", how, value]`); `"!<process>"` when that process
    /// crashed; `""` when the run is over.
    #[wasm_bindgen(js_name = nextDelivery)]
    pub fn next_delivery(&mut self) -> String {
        match self.sim.next_step() {
            Next::Resume { process, call, reply } => {
                self.last_process = process;
                let mut clocks = String::new();
                self.push_local_nows(&mut clocks);
                crate::delivery::pack(call, process, &clocks, &reply)
            }
            Next::Crashed { process } => {
                self.last_process = process;
                format!("!{process}")
            }
            Next::Done(_) => String::new(),
        }
    }

    /// The process the last delivery or crash was about.
    #[wasm_bindgen(getter, js_name = lastProcess)]
    pub fn last_process(&self) -> u32 {
        self.last_process
    }

    /// Applies the harness's outbox (see `harness.js`): one line per message,
    /// `c<process>|<call JSON>`, `n<process>|<note JSON>`, `f<process>|` or
    /// `s<process>|<reason>`, in the order the code produced them. Returns the
    /// reason of an `s` (the harness stopped the run; the rest is dropped:
    /// nothing the code did after that counts), or undefined.
    ///
    /// The outbox is written inside the sandbox, beside the learner's code, so
    /// it is read as untrusted: a line that cannot be read stops the run with
    /// a reason (the submission fails; the grader and the batch go on), never
    /// with an exception.
    #[wasm_bindgen(js_name = applyOutbox)]
    pub fn apply_outbox(&mut self, outbox: &str) -> Option<String> {
        for line in outbox.split('\n').filter(|line| !line.is_empty()) {
            if let Err(problem) = self.apply_line(line) {
                return Some(problem);
            }
        }
        None
    }

    /// Records that the process's code failed, whatever its state, and ends
    /// the run (see `Sim::fail`: a failure is never dropped).
    pub fn fail(&mut self, process: u32, message: String) {
        self.sim.fail(process, message);
    }

    /// The finished run as the grader reads it: `{ ending, trace }` JSON.
    /// Call when `nextDelivery()` returned "".
    #[wasm_bindgen(js_name = executionJson)]
    pub fn execution_json(&mut self) -> String {
        serde_json::to_string(&self.execution()).expect("executions serialize")
    }

    /// Hands the finished run to `gradeSubmission` without JSON: the run is
    /// kept here and a ticket (a number) is returned, which the runner gives
    /// back as its answer. Only the latest hand-off is kept: the grader takes
    /// each one as soon as the case returns. Call when `nextDelivery()` returned "".
    #[wasm_bindgen(js_name = handOff)]
    pub fn hand_off(&mut self) -> u32 {
        let execution = self.execution();
        HANDED_OFF.with(|handed| {
            let mut handed = handed.borrow_mut();
            handed.last_ticket = handed.last_ticket.wrapping_add(1);
            handed.held = Some((handed.last_ticket, execution));
            handed.last_ticket
        })
    }
}

impl SimHandle {
    /// One outbox line; `Err` is the reason the run stops (an `s` line, or a
    /// line that cannot be read).
    fn apply_line(&mut self, line: &str) -> Result<(), String> {
        let unreadable = |what: &str| {
            format!("did something the grader could not record ({what}); if your code only used ctx as documented, please report this")
        };
        let (head, payload) = line.split_once('|').ok_or_else(|| unreadable("an outbox line without a separator"))?;
        let kind = head.bytes().next().ok_or_else(|| unreadable("an outbox line that names no kind"))?;
        let process: u32 = head
            .get(1..)
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(|| unreadable("an outbox line without a process"))?;
        match kind {
            b'c' => {
                let call: Call =
                    serde_json::from_str(payload).map_err(|error| unreadable(&format!("a store call: {error}")))?;
                let id = self.sim.call(process, call).ok();
                if id != Some(self.calls_made) {
                    return Err(unreadable(&format!(
                        "a call numbered {} by the harness, {id:?} by the simulation",
                        self.calls_made
                    )));
                }
                self.calls_made += 1;
            }
            b'n' => {
                let note: Note =
                    serde_json::from_str(payload).map_err(|error| unreadable(&format!("a note: {error}")))?;
                let _ = self.sim.note(process, note);
            }
            b'f' => {
                let _ = self.sim.finish(process);
            }
            b's' => return Err(payload.to_string()),
            _ => return Err(unreadable("an outbox line of an unknown kind")),
        }
        Ok(())
    }

    fn push_local_nows(&self, text: &mut String) {
        use std::fmt::Write;
        for process in 0..self.sim.processes() {
            if process > 0 {
                text.push(',');
            }
            let _ = write!(text, "{}", self.sim.local_now_ms(process));
        }
    }

    fn execution(&mut self) -> grader::Execution {
        let ending = match self.sim.next_step() {
            Next::Done(ending) => ending,
            _ => sim::Ending::Stopped,
        };
        grader::Execution { ending, trace: self.sim.take_trace() }
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
