//! One run of the kernel as a sandboxed harness drives it: the step handed
//! out as the harness reads it (a delivery, see [`crate::delivery`]), and
//! what the code did until it waited again applied from the harness's
//! outbox. The engine's run loop and the JavaScript runner (`Simulation` in
//! crates/wasm) both go through here.

use sim::{Next, Sim};

/// What the sandbox must do next.
pub enum Step {
    /// Settle a call: the delivery text (`[call, process, "<clocks>", how, value]`).
    Deliver { process: u32, delivery: String },
    /// The process crashed.
    Crashed { process: u32 },
    /// The run is over.
    Done,
}

pub struct SimRun {
    sim: Sim,
    last_process: u32,
    /// Calls applied from the harness's outbox; the harness numbers them the same way.
    calls_made: u32,
}

impl SimRun {
    pub fn new(sim: Sim) -> SimRun {
        SimRun { sim, last_process: 0, calls_made: 0 }
    }

    pub fn processes(&self) -> u32 {
        self.sim.processes()
    }

    /// The process's own clock (what its `ctx.now()` returns).
    pub fn local_now(&self, process: u32) -> f64 {
        self.sim.local_now_ms(process) as f64
    }

    /// Every process's own clock, comma-separated (time stands still while code runs).
    pub fn local_now_all(&self) -> String {
        let mut text = String::new();
        self.push_local_nows(&mut text);
        text
    }

    /// The process the last delivery or crash was about.
    pub fn last_process(&self) -> u32 {
        self.last_process
    }

    /// Advances to the next step.
    pub fn next_step(&mut self) -> Step {
        match self.sim.next_step() {
            Next::Resume { process, call, reply } => {
                self.last_process = process;
                let delivery = crate::delivery::pack_with(call, process, |text| self.push_local_nows(text), &reply);
                Step::Deliver { process, delivery }
            }
            Next::Crashed { process } => {
                self.last_process = process;
                Step::Crashed { process }
            }
            Next::Done(_) => Step::Done,
        }
    }

    /// Applies the harness's outbox (see `harness.js`): one line per message,
    /// `c<process>|<call JSON>`, `n<process>|<note JSON>`, `f<process>|` or
    /// `s<process>|<reason>`, in the order the code produced them. Returns the
    /// reason of an `s` (the harness stopped the run; the rest is dropped:
    /// nothing the code did after that counts), or None.
    ///
    /// The outbox is written inside the sandbox, beside the learner's code, so
    /// it is read as untrusted: a line that cannot be read stops the run with
    /// a reason (the submission fails; the grader and the batch go on), never
    /// with a panic.
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

    /// The finished run as the grader reads it.
    pub fn execution(&mut self) -> grader::Execution {
        let ending = match self.sim.next_step() {
            Next::Done(ending) => ending,
            _ => sim::Ending::Stopped,
        };
        grader::Execution { ending, trace: self.sim.take_trace() }
    }

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
                let call =
                    crate::outbox::call(payload).map_err(|error| unreadable(&format!("a store call: {error}")))?;
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
                let note = crate::outbox::note(payload).map_err(|error| unreadable(&format!("a note: {error}")))?;
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
}
