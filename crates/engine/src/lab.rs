//! Lab mode's run: the learner's code against a real store, in real time.
//!
//! The same sandbox, harness and module instances as grading; only the
//! host differs. Instead of the simulation deciding when each call
//! completes, the host sends each call the code makes to the store and
//! hands the reply back when it arrives (`deliver`): the engine runs the
//! code until it waits again and says what it did. Nothing is graded.

use sim::{CallId, Reply};

use crate::js;
use crate::limits::Limits;
use crate::module::{load_module, ModuleError};
use crate::outbox::Message;
use crate::runner::{call_harness, harness_sandbox, Exercise, Harness};
use crate::sandbox::{Clock, Sandbox};

/// A lab's run. What the code does in a step comes back as the outbox's
/// messages, in order; the host numbers the calls among them 0, 1, 2, … in
/// the order they come, as the harness does, and delivers each reply by
/// that number.
pub struct LabRun {
    sandbox: Sandbox,
    harness: Harness,
    file: String,
    stopped: bool,
}

impl LabRun {
    /// Starts `processes` processes of `source` (as `file`) on `workload`
    /// (the exercise's workload as JSON), each with its own instance of the
    /// module: the run, and what each process did before it first waited.
    /// `clocks` is every process's clock in milliseconds, comma-separated.
    /// An `Err` is the module's own problem (a syntax error, a top-level
    /// throw), in the learner's terms.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        exercise: &str,
        source: &str,
        file: &str,
        processes: u32,
        workload: &str,
        clocks: &str,
        limits: Limits,
        clock: Clock,
    ) -> Result<(LabRun, Vec<Message>), String> {
        let exercise = Exercise::named(exercise)?;
        if exercise.drives_store {
            return Err(format!("lab mode runs processes against a store; {} is a store itself", exercise.name));
        }
        if processes == 0 || processes > exercise.processes_max {
            return Err(format!(
                "{}'s lab runs 1 to {} processes, not {processes}",
                exercise.name, exercise.processes_max
            ));
        }
        let (mut sandbox, harness) = harness_sandbox(&exercise, file, limits, clock);
        sandbox.begin_run();
        let mut lab = LabRun { sandbox, harness, file: file.to_string(), stopped: false };
        let mut events = Vec::new();
        let workload = lab.text(workload);
        if let Some(workload) = workload {
            let (begin, instance) = (lab.harness.begin, lab.harness.instance);
            drop(call_harness(&mut lab.sandbox, begin, instance, &[workload.raw()]));
        }
        for process in 0..processes {
            if lab.stopped {
                break;
            }
            lab.sandbox.begin_step();
            let namespace = load_module(&mut lab.sandbox, source, file).map_err(|ModuleError(message)| message)?;
            if let Some(clocks) = lab.text(clocks) {
                let (start, instance) = (lab.harness.start, lab.harness.instance);
                let args = [js::int(process as i32), namespace.raw(), clocks.raw()];
                drop(call_harness(&mut lab.sandbox, start, instance, &args));
            }
            events.extend(lab.run_jobs());
        }
        Ok((lab, events))
    }

    /// Settles call `call` of `process` with `reply` (clocks as for
    /// `start`): what the code did until it waited again. Nothing, once
    /// the run has stopped.
    pub fn deliver(&mut self, call: CallId, process: u32, clocks: &str, reply: &Reply) -> Vec<Message> {
        if self.stopped {
            return Vec::new();
        }
        self.sandbox.begin_step();
        self.sandbox.restart_clock();
        let delivery = crate::delivery::pack(call, process, clocks, reply);
        if let Some(delivery) = self.text(&delivery) {
            let (deliver, instance) = (self.harness.deliver, self.harness.instance);
            drop(call_harness(&mut self.sandbox, deliver, instance, &[delivery.raw()]));
        }
        self.run_jobs()
    }

    /// A string in the sandbox, or None (and the run stopped) when it has no room for it.
    fn text(&mut self, text: &str) -> Option<js::Value> {
        // SAFETY: the sandbox's context is live.
        match unsafe { js::string(self.sandbox.context(), text) } {
            Ok(value) => Some(value),
            Err(_) => {
                self.sandbox.stop(crate::limits::reasons::memory());
                None
            }
        }
    }

    /// Runs the code's promise jobs, then reads what it did from the outbox.
    fn run_jobs(&mut self) -> Vec<Message> {
        self.sandbox.drain_jobs();
        let mut messages = Vec::new();
        let (flush, instance) = (self.harness.flush, self.harness.instance);
        if let Some(outbox) = call_harness(&mut self.sandbox, flush, instance, &[]) {
            // SAFETY: a live value of the sandbox's context.
            let text = unsafe { js::text(self.sandbox.context(), outbox.raw()) }.unwrap_or_default();
            for message in crate::outbox::messages(&text) {
                match message {
                    Ok(Message::Stopped { reason }) | Err(reason) => {
                        self.stop(&mut messages, reason);
                        return messages;
                    }
                    Ok(message) => messages.push(message),
                }
            }
        }
        if let Some(reason) = self.sandbox.stopped().map(str::to_string) {
            self.stop(&mut messages, reason);
        }
        messages
    }

    fn stop(&mut self, messages: &mut Vec<Message>, reason: String) {
        self.stopped = true;
        self.sandbox.stop(reason.clone());
        messages.push(Message::Stopped { reason: format!("{} {reason}", self.file) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::Note;

    fn clock() -> f64 {
        0.0
    }

    fn lesson_file(exercise: &str, name: &str) -> String {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../exercises/ownership-election")
            .join(exercise)
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
    }

    fn lab_workload(exercise: &str) -> (u32, String) {
        let registry = grader::registry::registry_json();
        let entry = registry["exercises"].as_array().unwrap().iter().find(|entry| entry["name"] == exercise).unwrap();
        let lab = &entry["labRun"];
        (lab["processes"].as_u64().unwrap() as u32, lab["workload"].to_string())
    }

    /// The simulation's kernel as the lab's host, in place of a real
    /// etcd: each call the lab hands out goes to it, each reply comes back
    /// through `deliver`, until every process is done.
    #[test]
    fn the_lock_solution_takes_and_releases_a_lock_against_a_host_that_answers() {
        let (processes, workload) = lab_workload("lock");
        let source = lesson_file("lock", "solution.js");
        let mut host = sim::Sim::new(sim::Plan::calm(7, processes), sim::SimLimits::default());
        let (mut lab, mut messages) =
            LabRun::start("lock", &source, "lock.js", processes, &workload, "0,0", Limits::default(), clock)
                .expect("the solution starts");
        let (mut finished, mut acquired, mut released, mut calls) = (0, 0, 0, 0);
        loop {
            for message in std::mem::take(&mut messages) {
                match message {
                    Message::Call { process, call } => {
                        assert_eq!(
                            host.call(process, call).ok(),
                            Some(calls),
                            "calls are numbered in the order they come"
                        );
                        calls += 1;
                    }
                    Message::Note { note: Note::Acquired { .. }, .. } => acquired += 1,
                    Message::Note { note: Note::Released { ok: true, .. }, .. } => released += 1,
                    Message::Note { .. } => {}
                    Message::Finished { process } => {
                        finished += 1;
                        host.finish(process).expect("a running process finishes");
                    }
                    Message::Stopped { reason } => panic!("stopped: {reason}"),
                }
            }
            match host.next_step() {
                sim::Next::Resume { process, call, reply } => messages = lab.deliver(call, process, "0,0", &reply),
                sim::Next::Crashed { .. } => panic!("a calm plan crashes nothing"),
                sim::Next::Done(_) => break,
            }
        }
        assert_eq!(finished, processes, "every process finished");
        assert!(acquired >= 2 && released >= 2, "both processes took and released the lock: {acquired}, {released}");
    }

    #[test]
    fn a_module_that_cannot_load_is_the_labs_error_and_a_loop_stops_it_by_name() {
        let (processes, workload) = lab_workload("lock");
        let error = LabRun::start(
            "lock",
            "export function lock( {",
            "lock.js",
            processes,
            &workload,
            "0,0",
            Limits::default(),
            clock,
        )
        .err()
        .expect("a syntax error");
        assert!(error.starts_with("lock.js:1:"), "{error}");
        let source = "export async function tryLock() { for (;;) {} } export async function lock() { for (;;) {} } export async function unlock() { return true; }";
        let (_, messages) =
            LabRun::start("lock", source, "lock.js", processes, &workload, "0,0", Limits::default(), clock)
                .expect("it loads");
        assert!(
            matches!(messages.last(), Some(Message::Stopped { reason }) if reason.starts_with("lock.js kept running without waiting")),
            "{messages:?}"
        );
    }
}
