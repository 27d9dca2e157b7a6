//! One run of the kernel as a sandboxed harness drives it: the step handed
//! out as the harness reads it (a delivery, see [`crate::delivery`]), and
//! what the code did until it waited again applied from the harness's
//! outbox.

use sim::{Next, Sim};

use crate::outbox::Message;

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

    /// Applies the harness's outbox (`crate::outbox::messages`), in the
    /// order the code produced it. Returns why the run stops: the harness
    /// stopped it (the rest is dropped: nothing the code did after that
    /// counts), or a line could not be read; else None.
    pub fn apply_outbox(&mut self, outbox: &str) -> Option<String> {
        for message in crate::outbox::messages(outbox) {
            if let Err(problem) = message.and_then(|message| self.apply(message)) {
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

    /// One outbox message; `Err` is the reason the run stops.
    fn apply(&mut self, message: Message) -> Result<(), String> {
        match message {
            Message::Call { process, call } => {
                let id = self.sim.call(process, call).ok();
                if id != Some(self.calls_made) {
                    return Err(crate::outbox::unreadable(&format!(
                        "a call numbered {} by the harness, {id:?} by the simulation",
                        self.calls_made
                    )));
                }
                self.calls_made += 1;
            }
            Message::Note { process, note } => {
                let _ = self.sim.note(process, note);
            }
            Message::Finished { process } => {
                let _ = self.sim.finish(process);
            }
            Message::Stopped { reason } => return Err(reason),
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
