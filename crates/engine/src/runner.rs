//! Runs grader cases with the learner's code. The simulation decides
//! every step; the sandbox
//! runs the harness and one instance of the learner's module per process.
//! One sandbox serves every run of a submission: each run starts from its
//! sealed arena, so runs cannot see one another, even after a stop.

use std::ffi::CStr;

use rquickjs_sys as q;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::js::{self, Value};
use crate::limits::Limits;
use crate::module::{load_module, ModuleError};
use crate::sandbox::{Clock, Sandbox};
use crate::sim_run::{SimRun, Step};

const HARNESS: &str = include_str!("../vm/harness.js");
const CAS_HARNESS: &str = include_str!("../vm/cas-harness.js");

/// What a runner needs to know of its exercise (from the grader's registry).
pub struct Exercise {
    pub name: &'static str,
    /// The module is a store the runner calls (cas), not simulated processes.
    pub drives_store: bool,
    pub key: &'static str,
    pub processes_max: u32,
    /// The functions the learner's module must export.
    pub exports: &'static [&'static str],
}

impl Exercise {
    /// The registry's entry for `name`.
    pub fn named(name: &str) -> Result<Exercise, String> {
        let hosted = grader::dynamic::exercise_named(name)?;
        let info = hosted.info();
        Ok(Exercise {
            name: info.name,
            drives_store: matches!(info.drive, grader::registry::Drive::Store),
            key: info.key.unwrap_or(""),
            processes_max: hosted.processes_max(),
            exports: info.exports,
        })
    }
}

/// The harness's handles in a sandbox: made before the seal and used by
/// every run, never freed (the arena goes whole).
pub(crate) struct Harness {
    pub(crate) main: q::JSValue,
    /// The simulated exercises' harness instance and its functions.
    pub(crate) instance: q::JSValue,
    pub(crate) begin: q::JSValue,
    pub(crate) start: q::JSValue,
    pub(crate) deliver: q::JSValue,
    pub(crate) crashed: q::JSValue,
    pub(crate) flush: q::JSValue,
}

/// A sandbox with its harness and the learner's module instances, sealed.
struct Ready {
    sandbox: Sandbox,
    harness: Harness,
    /// One namespace per process, from process 0 (fewer if evaluating one failed).
    modules: Vec<q::JSValue>,
}

pub struct CaseRunner<'a> {
    exercise: Exercise,
    source: &'a str,
    file: &'a str,
    limits: Limits,
    clock: Clock,
    ready: Option<Ready>,
    /// How many module instances a new sandbox evaluates before its seal.
    modules_wanted: u32,
}

/// A sandbox with the prelude and the harness (and for a simulated
/// exercise, its instance with each process's ctx), nothing of the learner's.
pub(crate) fn harness_sandbox(exercise: &Exercise, file: &str, limits: Limits, clock: Clock) -> (Sandbox, Harness) {
    let mut sandbox = Sandbox::new(limits, clock);
    sandbox.begin_run();
    let ctx = sandbox.context();
    // SAFETY: the sandbox's context is live; the harness is trusted code that
    // the prelude's realm runs as it is (any failure here is the engine's).
    unsafe {
        let source = if exercise.drives_store { CAS_HARNESS } else { HARNESS };
        let main = js::eval(ctx, source, "harness.js", q::JS_EVAL_TYPE_GLOBAL).ok().expect("the harness compiles");
        let undefined = js::UNDEFINED;
        if exercise.drives_store {
            let harness = Harness {
                main: main.leak(),
                instance: undefined,
                begin: undefined,
                start: undefined,
                deliver: undefined,
                crashed: undefined,
                flush: undefined,
            };
            return (sandbox, harness);
        }
        let text = |value: &str| js::string(ctx, value).ok().expect("a short string fits");
        let args = [text(exercise.name), text(file), text(exercise.key)];
        let raw = [args[0].raw(), args[1].raw(), args[2].raw(), sandbox.tools()];
        let instance = js::call(ctx, main.raw(), undefined, &raw).ok().expect("the harness starts");
        let get = |name: &CStr| js::get(ctx, &instance, name).ok().expect("the harness has its functions").leak();
        let prepare = js::get(ctx, &instance, c"prepare").ok().expect("the harness has prepare");
        js::call(ctx, prepare.raw(), instance.raw(), &[js::int(exercise.processes_max as i32)])
            .ok()
            .expect("the harness prepares");
        let harness = Harness {
            begin: get(c"begin"),
            start: get(c"start"),
            deliver: get(c"deliver"),
            crashed: get(c"crashed"),
            flush: get(c"flush"),
            main: main.leak(),
            instance: instance.leak(),
        };
        (sandbox, harness)
    }
}

impl<'a> CaseRunner<'a> {
    pub fn new(exercise: Exercise, source: &'a str, file: &'a str, limits: Limits, clock: Clock) -> CaseRunner<'a> {
        let modules_wanted = if exercise.drives_store { 1 } else { exercise.processes_max };
        CaseRunner { exercise, source, file, limits, clock, ready: None, modules_wanted }
    }

    /// The sandbox, made on the first run: the harness and `modules_wanted`
    /// instances of the learner's module, sealed, so each run starts from
    /// them as they were. The module's top-level code runs under a fresh
    /// budget per instance; should an instance fail to evaluate, the sandbox
    /// is made again with only the instances before it, and runs evaluate
    /// the rest themselves, failing as the module does.
    fn ready(&mut self) -> &mut Ready {
        if self.ready.is_none() {
            loop {
                let (mut sandbox, harness) = harness_sandbox(&self.exercise, self.file, self.limits, self.clock);
                let mut modules = Vec::new();
                while (modules.len() as u32) < self.modules_wanted {
                    sandbox.begin_run();
                    match load_module(&mut sandbox, self.source, self.file) {
                        Ok(namespace) if sandbox.stopped().is_none() => modules.push(namespace.leak()),
                        _ => break,
                    }
                }
                if (modules.len() as u32) < self.modules_wanted {
                    self.modules_wanted = modules.len() as u32;
                    continue;
                }
                sandbox.seal();
                self.ready = Some(Ready { sandbox, harness, modules });
                break;
            }
        }
        self.ready.as_mut().expect("made above")
    }

    /// Runs a simulated case, the simulation made of its plan and limits,
    /// the harness handed its workload (JSON): its execution.
    pub fn run_simulated(&mut self, sim: sim::Sim, workload_json: &str) -> grader::Execution {
        let (source, file) = (self.source, self.file);
        let ready = self.ready();
        run_once(ready, SimRun::new(sim), workload_json, source, file)
    }

    /// Runs a cas case (its workload as JSON, `{ "ops": [...] }`): the
    /// recording of the learner's store's answers, as JSON.
    pub fn run_cas(&mut self, workload_json: &str) -> Result<String, String> {
        #[derive(Deserialize)]
        struct Workload<'c> {
            #[serde(borrow)]
            ops: &'c RawValue,
        }
        let workload: Workload =
            serde_json::from_str(workload_json).map_err(|error| format!("a malformed case: {error}"))?;
        let (source, file) = (self.source, self.file);
        let ready = self.ready();
        Ok(run_cas_once(ready, workload.ops.get(), source, file))
    }
}

/// "stopped the test: TypeError: …" for a value the harness's call threw.
fn stop_reason_of(sandbox: &mut Sandbox, thrown: &Value) -> String {
    let info = sandbox.describe_thrown(thrown);
    info.limit.clone().unwrap_or_else(|| {
        let what = if info.error { format!("{}: {}", info.name, info.message) } else { info.text.clone() };
        format!("stopped the test: {what}")
    })
}

/// Calls a harness function on `this`; a throw (a limit hit inside) stops the run.
pub(crate) fn call_harness(
    sandbox: &mut Sandbox,
    function: q::JSValue,
    this: q::JSValue,
    args: &[q::JSValue],
) -> Option<Value> {
    let ctx = sandbox.context();
    // SAFETY: the handles are the sandbox's, live until it is dropped.
    let result = unsafe { js::call(ctx, function, this, args) };
    match result {
        Ok(value) => Some(value),
        Err(thrown) => {
            let reason = stop_reason_of(sandbox, &thrown);
            sandbox.stop(reason);
            None
        }
    }
}

fn run_once(ready: &mut Ready, mut run: SimRun, workload: &str, source: &str, file: &str) -> grader::Execution {
    let Ready { sandbox, harness, modules } = ready;
    sandbox.begin_run();
    let ctx = sandbox.context();
    let string = |text: &str| unsafe { js::string(ctx, text) };
    // Why the run stops, in the learner's terms (the harness's reason, or a limit's).
    let mut stop_reason: Option<String> = None;
    // The process whose code ran last: a stop is blamed on it, whether or
    // not its workload had finished (code can run on after its last call).
    let mut current = 0u32;

    // Hands the harness's outbox to the simulation, in order; remembers a stop.
    let flush_outbox = |sandbox: &mut Sandbox, run: &mut SimRun, stop_reason: &mut Option<String>| {
        let Some(value) = call_harness(sandbox, harness.flush, harness.instance, &[]) else { return };
        // The run ends at a stop: nothing the code did after it counts.
        if stop_reason.is_some() {
            return;
        }
        // SAFETY: a live value of the sandbox's context.
        if let Some(Some(reason)) = unsafe { js::with_text(ctx, value.raw(), |text| run.apply_outbox(text)) } {
            *stop_reason = Some(reason);
        }
    };

    match string(workload) {
        Ok(workload) => drop(call_harness(sandbox, harness.begin, harness.instance, &[workload.raw()])),
        Err(_) => sandbox.stop(crate::limits::reasons::memory()),
    }
    let mut process = 0;
    while process < run.processes() && sandbox.stopped().is_none() && stop_reason.is_none() {
        current = process;
        // The instance evaluated before the seal (fresh in every run), else one evaluated now.
        let namespace = match modules.get(process as usize) {
            Some(&namespace) => namespace,
            None => match load_module(sandbox, source, file) {
                Ok(namespace) => namespace.leak(),
                Err(ModuleError(message)) => {
                    run.fail(process, shared_heap_told(message, process, run.processes()));
                    return run.execution();
                }
            },
        };
        sandbox.begin_step();
        match string(&run.local_now_all()) {
            Ok(clocks) => drop(call_harness(
                sandbox,
                harness.start,
                harness.instance,
                &[js::int(process as i32), namespace, clocks.raw()],
            )),
            Err(_) => sandbox.stop(crate::limits::reasons::memory()),
        }
        sandbox.drain_jobs();
        flush_outbox(sandbox, &mut run, &mut stop_reason);
        process += 1;
    }
    while sandbox.stopped().is_none() && stop_reason.is_none() {
        match run.next_step() {
            Step::Done => break,
            Step::Crashed { process } => {
                current = process;
                sandbox.begin_step();
                drop(call_harness(sandbox, harness.crashed, harness.instance, &[js::int(process as i32)]));
            }
            Step::Deliver { process, delivery } => {
                current = process;
                sandbox.begin_step();
                match string(&delivery) {
                    Ok(delivery) => drop(call_harness(sandbox, harness.deliver, harness.instance, &[delivery.raw()])),
                    Err(_) => sandbox.stop(crate::limits::reasons::memory()),
                }
                sandbox.drain_jobs();
                flush_outbox(sandbox, &mut run, &mut stop_reason);
            }
        }
    }
    // What the code did before a limit stopped it still counts (its notes say where it was).
    if sandbox.stopped().is_some() && stop_reason.is_none() {
        flush_outbox(sandbox, &mut run, &mut stop_reason);
    }
    let stop_reason = stop_reason.or_else(|| sandbox.stopped().map(str::to_string));
    if let Some(reason) = stop_reason {
        run.fail(current, format!("{file} {reason}"));
    }
    run.execution()
}

/// A module that ran out of memory while a later process's instance was
/// made: the instances share the sandbox's one heap, which the sentence
/// alone would not say.
fn shared_heap_told(message: String, process: u32, processes: u32) -> String {
    if process == 0 || !message.contains(&crate::limits::reasons::memory()) {
        return message;
    }
    format!(
        "{message} Each of the test's {processes} processes runs the module's top-level code, and all of them share one heap of {} MiB: keep big tables out of the top level, or make them smaller",
        crate::limits::MEMORY_BYTES / (1024 * 1024)
    )
}

/// A cas run's answer when the code could not run: no answers, the failure.
fn failed_recording(failure: &str) -> String {
    serde_json::json!({ "answers": [], "failure": failure, "console": [] }).to_string()
}

fn run_cas_once(ready: &mut Ready, ops: &str, source: &str, file: &str) -> String {
    let Ready { sandbox, harness, modules } = ready;
    sandbox.begin_run();
    let ctx = sandbox.context();
    let namespace = match modules.first() {
        Some(&namespace) => namespace,
        None => match load_module(sandbox, source, file) {
            Ok(namespace) => namespace.leak(),
            Err(ModuleError(message)) => return failed_recording(&message),
        },
    };
    // SAFETY: the sandbox's context is live.
    let Ok(ops) = (unsafe { js::string(ctx, ops) }) else {
        return failed_recording(&format!("{file} {}", crate::limits::reasons::memory()));
    };
    let result = unsafe { js::call(ctx, harness.main, js::UNDEFINED, &[namespace, ops.raw(), sandbox.tools()]) };
    let recording = match result {
        Ok(value) => unsafe { js::text(ctx, value.raw()) },
        Err(thrown) => {
            // Interrupted or out of memory: the recording is lost with the stack, so
            // report the stop at the first operation; the message says what happened.
            let info = sandbox.describe_thrown(&thrown);
            let why = match (sandbox.stopped(), &info.limit) {
                (Some(stopped), _) => stopped.to_string(),
                (None, Some(limit)) => limit.clone(),
                (None, None) => {
                    let what = if info.error { format!("{}: {}", info.name, info.message) } else { info.text.clone() };
                    format!("stopped the test: {what}")
                }
            };
            return failed_recording(&format!("{file} {why}"));
        }
    };
    let Some(recording) = recording else {
        return failed_recording(&format!("{file} {}", sandbox.stopped().unwrap_or("stopped the test")));
    };
    let Some(stopped) = sandbox.stopped() else { return recording };
    // A limit stopped the code inside an operation: the answers before it
    // stand, and the stop, not what the interrupted code made of it, is the failure.
    match serde_json::from_str::<serde_json::Value>(&recording) {
        Ok(mut parsed) => {
            parsed["failure"] = serde_json::Value::String(format!("{file} {stopped}"));
            parsed.to_string()
        }
        Err(_) => failed_recording(&format!("{file} {stopped}")),
    }
}

#[cfg(test)]
mod tests {
    /// The harness refuses a text the store could never take before it is
    /// recorded (vm/harness.js, TEXT_CHARS_MAX): its bound must be the
    /// store's largest, or a text the store takes would be refused.
    #[test]
    fn the_harness_refuses_exactly_the_texts_longer_than_the_store_takes() {
        let limits = kv::Limits::default();
        let largest = limits.value_bytes_max.max(limits.key_bytes_max);
        let line = format!("const TEXT_CHARS_MAX = {largest};");
        assert!(super::HARNESS.contains(&line), "crates/engine/vm/harness.js must say `{line}`");
    }
}
