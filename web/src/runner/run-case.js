// Runs one grader case with the learner's code: the simulation (Rust, in
// the leaselab wasm) decides every step; the sandbox (QuickJS) runs the
// harness and one instance of the learner's module per process.
//
// The loop is the JavaScript twin of `sim::host::run_processes`: start every
// process in order, then repeatedly ask the simulation for the next step and
// settle that call's promise inside the sandbox, running the learner's code
// until it waits again.
import { CAS_HARNESS_SOURCE, HARNESS_SOURCE } from "./harness.js";
import { createSandbox, describeEngineError, DEFAULT_LIMITS } from "./sandbox.js";

/** Evaluates the learner's module; returns its namespace handle or throws a readable message. */
export function loadModule(vm, source, fileName) {
  const result = vm.evalCode(source, fileName, { type: "module", strict: true });
  if (result.error) {
    const error = vm.dump(result.error);
    result.error.dispose();
    throw new ModuleError(describeModuleError(error, fileName));
  }
  const namespace = result.value;
  if (vm.typeof(namespace) !== "object") {
    // A promise: the module awaits at top level.
    namespace.dispose();
    throw new ModuleError(`${fileName} waits (await) at the top level of the module; move that code into your functions`);
  }
  return namespace;
}

/** A problem with the submission itself (syntax, exports, top-level code). */
export class ModuleError extends Error {
  constructor(message) {
    super(message);
    this.name = "ModuleError";
  }
}

/** "lock.js:3:14: SyntaxError: unexpected token in expression: ')'" */
export function describeModuleError(error, fileName) {
  if (typeof error !== "object" || error === null) return `${fileName}: its top-level code threw ${JSON.stringify(error)}`;
  const stack = typeof error.stack === "string" ? error.stack : "";
  const location = new RegExp(`${fileName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+)(?::(\\d+))?`).exec(stack);
  const where = location ? `${fileName}:${location[1]}${location[2] ? `:${location[2]}` : ""}` : fileName;
  const message = `${error.name ?? "Error"}: ${error.message ?? String(error)}`;
  if (/could not load module|module not found/i.test(message)) {
    return `${where}: ${message}. Your solution must be one file with no imports: everything it needs arrives through ctx.`;
  }
  return `${where}: ${message}`;
}

/** Runs after which a sandbox is replaced, so module records do not pile up. */
const RUNS_PER_SANDBOX = 64;

/**
 * A runner for one submission: `run(caseJson)` executes a grader case and
 * returns what the grader reads as JSON text: the execution `{ ending,
 * trace }` of the simulation, or for `cas` the recording `{ answers,
 * failure, console }` of the learner's store's answers. With `{ handOff:
 * true }` a simulated run answers with a `Simulation.handOff()` ticket
 * instead, which only `gradeSubmission` reads (it skips turning the trace
 * into JSON and back). Reuses one
 * sandbox for many runs; replaces it after a stop (the VM may be damaged by
 * an out-of-memory or an interrupted job) and every RUNS_PER_SANDBOX runs.
 */
export function createCaseRunner(engines, { exercise, source, fileName, limits = DEFAULT_LIMITS }) {
  let sandbox = null;
  let harnessMain = null;
  let runsInSandbox = 0;

  const retire = () => {
    if (harnessMain?.alive) harnessMain.dispose();
    sandbox?.abandon();
    sandbox = null;
    harnessMain = null;
  };


  const run = (caseJson, { handOff = false } = {}) => {
    if (sandbox === null || runsInSandbox >= RUNS_PER_SANDBOX) {
      retire();
      sandbox = createSandbox(engines.quickjs, { limits });
      const harnessSource = exercise === "cas" ? CAS_HARNESS_SOURCE : HARNESS_SOURCE;
      harnessMain = sandbox.vm.unwrapResult(sandbox.vm.evalCode(harnessSource, "harness.js"));
      runsInSandbox = 0;
    }
    runsInSandbox += 1;
    const runner = exercise === "cas" ? runCasOnce : runOnce;
    const result = runner(engines, sandbox, harnessMain, { exercise, source, fileName, caseJson, limits, handOff });
    if (sandbox.stopped) retire();
    return result;
  };
  return { run, dispose: retire };
}

/** Runs one cas case: the operations against the learner's store, no simulation. */
function runCasOnce(engines, sandbox, casMain, { source, fileName, caseJson, limits }) {
  const opsJson = JSON.stringify(JSON.parse(caseJson).workload.ops);
  sandbox.beginRun();
  const { vm } = sandbox;
  let namespace;
  try {
    namespace = loadModule(vm, source, fileName);
  } catch (error) {
    return JSON.stringify({ answers: [], failure: error.message, console: [] });
  }
  const ops = vm.newString(opsJson);
  const consoleLinesMax = vm.newNumber(limits.consoleLinesMax);
  const result = vm.callFunction(casMain, vm.undefined, namespace, ops, sandbox.setConsoleSink, consoleLinesMax, sandbox.halt);
  for (const handle of [namespace, ops, consoleLinesMax]) handle.dispose();
  if (result.error) {
    const error = vm.dump(result.error);
    result.error.dispose();
    // Interrupted or out of memory: the recording is lost with the stack, so
    // report the stop at the first operation; the message says what happened.
    return JSON.stringify({ answers: [], failure: `${fileName} ${sandbox.stopped ?? describeEngineError(error)}`, console: [] });
  }
  return result.value.consume((text) => vm.getString(text));
}

/** Runs one case (see `createCaseRunner`) in a ready sandbox. */
function runOnce(engines, sandbox, harnessMain, { exercise, source, fileName, caseJson, limits, handOff }) {
  const { leaselab } = engines;
  const workloadJson = JSON.stringify(JSON.parse(caseJson).workload);
  const sim = new leaselab.Simulation(caseJson);
  sandbox.beginRun();
  const { vm } = sandbox;
  const handles = [];
  const keep = (handle) => {
    handles.push(handle);
    return handle;
  };
  let stoppedByHarness = null;
  try {
    const owned = [vm.newString(exercise), vm.newString(workloadJson), vm.newString(fileName)];
    const consoleLinesMax = vm.newNumber(limits.consoleLinesMax);
    const harness = keep(vm.unwrapResult(vm.callFunction(harnessMain, vm.undefined, ...owned, sandbox.setConsoleSink, consoleLinesMax, sandbox.halt)));
    for (const arg of [...owned, consoleLinesMax]) arg.dispose();
    const start = keep(vm.getProp(harness, "start"));
    const deliver = keep(vm.getProp(harness, "deliver"));
    const crashed = keep(vm.getProp(harness, "crashed"));
    const flush = keep(vm.getProp(harness, "flush"));

    const callHarness = (fn, ...values) => {
      const result = vm.callFunction(fn, harness, ...values);
      for (const value of values) if (value.alive) value.dispose();
      if (result.error) {
        const error = vm.dump(result.error);
        result.error.dispose();
        sandbox.stop(describeEngineError(error));
        return null;
      }
      return result.value;
    };

    /** Hands the harness's outbox to the simulation, in order; remembers a stop. */
    const flushOutbox = () => {
      const text = callHarness(flush)?.consume((value) => vm.getString(value));
      if (!text) return;
      // The run ends at a stop: nothing the code did after it counts.
      stoppedByHarness ??= sim.applyOutbox(text) ?? null;
    };

    const stopWith = (process, message) => {
      sim.note(process, JSON.stringify({ note: "failed", message }));
      sim.stop();
    };

    // The process whose code ran last (a stop is attributed to it).
    let current = 0;
    for (let process = 0; process < sim.processes && !sandbox.stopped; process += 1) {
      current = process;
      let namespace;
      try {
        namespace = loadModule(vm, source, fileName);
      } catch (error) {
        stopWith(process, error.message);
        break;
      }
      callHarness(start, vm.newNumber(process), namespace, vm.newString(sim.localNowAll()))?.dispose();
      sandbox.drainJobs();
      flushOutbox();
    }
    let stepped = false;
    while (!sandbox.stopped && stoppedByHarness === null) {
      const delivery = sim.nextDelivery();
      if (delivery === "") break;
      stepped = true;
      if (delivery[0] === "!") {
        callHarness(crashed, vm.newNumber(sim.lastProcess))?.dispose();
        continue;
      }
      callHarness(deliver, vm.newString(delivery))?.dispose();
      sandbox.drainJobs();
      flushOutbox();
    }
    if (stepped) current = sim.lastProcess;
    if (sandbox.stopped && stoppedByHarness === null) flushOutbox();
    if (stoppedByHarness !== null) stopWith(current, `${fileName} ${stoppedByHarness}`);
    else if (sandbox.stopped) stopWith(current, `${fileName} ${sandbox.stopped}`);
    return handOff ? sim.handOff() : sim.executionJson();
  } finally {
    for (const handle of handles) if (handle.alive) handle.dispose();
    sim.free();
  }
}
