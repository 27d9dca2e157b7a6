// Runs one grader case with the learner's code: the simulation (Rust, in
// the leaselab wasm) decides every step; the sandbox (QuickJS) runs the
// harness and one instance of the learner's module per process.
//
// The loop is the JavaScript twin of `sim::host::run_processes`: start every
// process in order, then repeatedly ask the simulation for the next step and
// settle that call's promise inside the sandbox, running the learner's code
// until it waits again.
import { CAS_HARNESS_SOURCE, HARNESS_SOURCE } from "./harness.js";
import { registryOf } from "./registry.js";
import { createSandbox, DEFAULT_LIMITS, STOP_REASONS } from "./sandbox.js";

/**
 * Evaluates the learner's module in the sandbox; returns its namespace
 * handle, or throws a ModuleError that says in the learner's terms what went
 * wrong (a syntax error with its line, top-level code that threw, never
 * finished, waited, or ran out of memory).
 */
export function loadModule(sandbox, source, fileName) {
  const { vm } = sandbox;
  const result = sandbox.guard(() => vm.evalCode(source, fileName, { type: "module", strict: true }));
  if (result === null) throw new ModuleError(`${fileName}: its top-level code ${sandbox.stopped}`);
  if (result.error) {
    const info = sandbox.describeThrown(result.error);
    result.error.dispose();
    throw new ModuleError(describeModuleError(info, fileName, sandbox.stopped));
  }
  // A module with a top-level `await` evaluates to a promise of its
  // namespace: it may finish within the jobs it queues (awaiting something
  // already settled), or never.
  const evaluated = result.value;
  const state = sandbox.guard(() => vm.getPromiseState(evaluated));
  if (state !== null && state.notAPromise) return evaluated;
  if (state?.value?.alive) state.value.dispose();
  if (state?.error?.alive) state.error.dispose();
  sandbox.drainJobs();
  const settled = sandbox.stopped ? null : sandbox.guard(() => vm.getPromiseState(evaluated));
  if (!sandbox.broken) evaluated.dispose();
  if (settled?.type === "fulfilled") return settled.value;
  if (settled?.type === "rejected") {
    const info = sandbox.describeThrown(settled.error);
    settled.error.dispose();
    throw new ModuleError(describeModuleError(info, fileName, null));
  }
  if (sandbox.stopped) throw new ModuleError(`${fileName}: its top-level code never finished: it ${sandbox.stopped}`);
  throw new ModuleError(`${fileName} waits (await) at the top level of the module for something that never happens, so its top-level code never finished; move that code into your functions`);
}

/** A problem with the submission itself (syntax, exports, top-level code). */
export class ModuleError extends Error {
  constructor(message) {
    super(message);
    this.name = "ModuleError";
  }
}

/**
 * "lock.js:3:14: SyntaxError: unexpected token in expression: ')'", from what
 * `sandbox.describeThrown` said about the thrown value; `stopped` is the
 * sandbox's reason when a limit ended the top-level code.
 */
export function describeModuleError(info, fileName, stopped = null) {
  if (stopped) return `${fileName}: its top-level code never finished: it ${stopped}`;
  if (info.limit) return `${fileName}: its top-level code ${info.limit}`;
  if (!info.error) return `${fileName}: its top-level code threw ${info.text}, which is not an Error; throw new Error("…") so the message and the line can be shown`;
  const location = new RegExp(`${fileName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+)(?::(\\d+))?`).exec(info.stack);
  const where = location ? `${fileName}:${location[1]}${location[2] ? `:${location[2]}` : ""}` : fileName;
  const message = `${info.name}: ${info.message}`;
  if (/cannot load module|could not load module|module not found/i.test(message)) {
    return `${where}: ${message.replace(/ \(cannot load module\)/, "")}. Your solution must be one file with no imports.`;
  }
  return `${where}: ${message}`;
}


/**
 * A runner for one submission: `run(caseJson)` executes a grader case and
 * returns what the grader reads as JSON text: the execution `{ ending,
 * trace }` of the simulation, or for `cas` the recording `{ answers,
 * failure, console }` of the learner's store's answers. With `{ handOff:
 * true }` a simulated run answers with a `Simulation.handOff()` ticket
 * instead, which only `gradeSubmission` reads (it skips turning the trace
 * into JSON and back). One sandbox serves every run of the submission:
 * each run starts from the sandbox's sealed memory (see `sandbox.seal`), so
 * runs cannot see one another, even after a stop; a sandbox whose engine
 * broke down is replaced.
 */
export function createCaseRunner(engines, { exercise, source, fileName, limits = DEFAULT_LIMITS }) {
  const spec = registryOf(engines.leaselab).exercise(exercise);
  // The cas exercise's module is a store the runner calls; the others run as simulated processes.
  const drivesStore = spec.drive === "store";
  let sandbox = null;
  /** The harness's main function: `harnessMain`, or the cas exercise's `casHarnessMain`. */
  let harnessMain = null;
  /** The harness instance of a simulated exercise (`startHarness`), made once per sandbox. */
  let harness = null;
  /** Instances of the learner's module evaluated before the seal: one per process, from process 0. */
  let modules = [];
  /** How many instances a new sandbox evaluates before its seal (fewer if evaluating them fails). */
  let modulesWanted = drivesStore ? 1 : spec.processesMax;

  const handlesOfSandbox = () => [...harnessHandles({ harnessMain, harness }), ...modules].filter((handle) => handle?.alive);
  const retire = () => {
    sandbox?.release(handlesOfSandbox());
    sandbox = null;
    harnessMain = null;
    harness = null;
    modules = [];
  };

  /**
   * A sandbox with the harness (its instance and each process's ctx, for a
   * simulated exercise) and `modulesWanted` instances of the learner's
   * module, sealed: each run starts from them as they were, without making
   * them again (the runs' main fixed cost). The module's top-level code runs
   * under a fresh budget per instance, before any run, as in the preflight
   * that already evaluated it once; a run's budget is for the run's own
   * code. Should an instance fail to evaluate (memory), the sandbox is made
   * again with only the instances before it, and runs evaluate the rest
   * themselves, failing as the module does.
   */
  const makeSandbox = () => {
    for (;;) {
      ({ sandbox, harnessMain, harness } = makeHarnessSandbox(engines, { exercise, fileName, limits }));
      modules = [];
      while (modules.length < modulesWanted) {
        sandbox.beginRun();
        let namespace = null;
        try {
          namespace = loadModule(sandbox, source, fileName);
        } catch (error) {
          if (!(error instanceof ModuleError)) throw error;
        }
        if (namespace === null || sandbox.stopped) break;
        modules.push(namespace);
      }
      if (modules.length < modulesWanted) {
        modulesWanted = modules.length;
        sandbox.release(handlesOfSandbox());
        continue;
      }
      sandbox.seal();
      return;
    }
  };

  /** Why the last sandbox stopped: the verdict if no sandbox can be made any more. */
  let lastStop = null;

  /** The run's answer when the code cannot even start: it failed with `reason`. */
  const failedAnswer = (caseJson, reason, handOff) => {
    if (drivesStore) return JSON.stringify({ answers: [], failure: `${fileName} ${reason}`, console: [] });
    const sim = new engines.leaselab.Simulation(caseJson);
    try {
      sim.fail(0, `${fileName} ${reason}`);
      return handOff ? sim.handOff() : sim.executionJson();
    } finally {
      sim.free();
    }
  };

  const run = (caseJson, { handOff = false } = {}) => {
    if (sandbox === null) {
      try {
        makeSandbox();
      } catch {
        // Every QuickJS instance made for this submission broke down under it.
        sandbox = null;
        return failedAnswer(caseJson, lastStop ?? STOP_REASONS.memory(), handOff);
      }
    }
    const result = drivesStore
      ? runCasOnce(engines, sandbox, harnessMain, { source, fileName, caseJson, modules })
      : runOnce(engines, sandbox, harness, { source, fileName, caseJson, handOff, modules });
    // A run leaves nothing behind in a sealed sandbox, even a stopped one
    // (the next run starts from its sealed memory); a sandbox that does not
    // restore (its harness and module instances were used) or that broke
    // down is replaced.
    if (sandbox.stopped) lastStop = sandbox.stopped;
    if (sandbox.broken || !sandbox.restores) retire();
    return result;
  };
  return { run, dispose: retire };
}

/**
 * A runner's sandbox before any of the learner's code is in it: a fresh
 * QuickJS instance, the sealed realm, the harness (and, for a simulated
 * exercise, its instance with each process's ctx). `{ sandbox, harnessMain,
 * harness }`.
 */
function makeHarnessSandbox(engines, { exercise, fileName, limits = DEFAULT_LIMITS }) {
  const spec = registryOf(engines.leaselab).exercise(exercise);
  const drivesStore = spec.drive === "store";
  const sandbox = createSandbox(engines.quickjs, { limits, fresh: true });
  const harnessMain = sandbox.vm.unwrapResult(sandbox.vm.evalCode(drivesStore ? CAS_HARNESS_SOURCE : HARNESS_SOURCE, "harness.js"));
  const harness = drivesStore ? null : startHarness(sandbox, harnessMain, { exercise, fileName, storeKey: spec.key, processes: spec.processesMax });
  return { sandbox, harnessMain, harness };
}

/** The handles a sandbox from `makeHarnessSandbox` holds: its harness's. */
function harnessHandles({ harnessMain, harness }) {
  return [harnessMain, ...(harness === null ? [] : Object.values(harness))];
}

/** Runs one cas case: the operations against the learner's store, no simulation. */
function runCasOnce(engines, sandbox, casMain, options) {
  try {
    return runCasInSandbox(sandbox, casMain, options);
  } catch (error) {
    // As in `runOnce`: the instance broke down outside a guard.
    sandbox.breakDown(error);
    return JSON.stringify({ answers: [], failure: `${options.fileName} ${sandbox.stopped}`, console: [] });
  }
}

function runCasInSandbox(sandbox, casMain, { source, fileName, caseJson, modules }) {
  const opsJson = JSON.stringify(JSON.parse(caseJson).workload.ops);
  sandbox.beginRun();
  const { vm } = sandbox;
  const failed = (failure) => JSON.stringify({ answers: [], failure, console: [] });
  let namespace = modules[0] ?? null;
  const ownNamespace = namespace === null;
  if (ownNamespace) {
    try {
      namespace = loadModule(sandbox, source, fileName);
    } catch (error) {
      if (error instanceof ModuleError) return failed(error.message);
      throw error;
    }
  }
  const ops = sandbox.newString(opsJson);
  const result = sandbox.guard(() => sandbox.call(casMain, vm.undefined, [namespace, ops, sandbox.tools]));
  if (!sandbox.broken) for (const handle of ownNamespace ? [namespace, ops] : [ops]) handle.dispose();
  if (result === null) return failed(`${fileName} ${sandbox.stopped}`);
  if (result.error) {
    const info = sandbox.describeThrown(result.error);
    result.error.dispose();
    // Interrupted or out of memory: the recording is lost with the stack, so
    // report the stop at the first operation; the message says what happened.
    return failed(`${fileName} ${sandbox.stopped ?? info.limit ?? `stopped the test: ${info.error ? `${info.name}: ${info.message}` : info.text}`}`);
  }
  const recording = sandbox.guard(() => result.value.consume((text) => vm.getString(text)));
  if (recording === null) return failed(`${fileName} ${sandbox.stopped}`);
  if (!sandbox.stopped) return recording;
  // A limit stopped the code inside an operation: the answers before it
  // stand, and the stop, not what the interrupted code made of it, is the failure.
  const stoppedRecording = JSON.parse(recording);
  stoppedRecording.failure = `${fileName} ${sandbox.stopped}`;
  return JSON.stringify(stoppedRecording);
}

/**
 * Makes the harness instance of a simulated exercise in a sandbox not yet
 * sealed, with the ctxs of `processes` processes: `{ instance, begin, start,
 * deliver, crashed, flush }`, handles that every run of the sandbox uses.
 */
function startHarness(sandbox, harnessMain, { exercise, fileName, storeKey, processes }) {
  const { vm } = sandbox;
  const owned = [vm.newString(exercise), vm.newString(fileName), vm.newString(storeKey)];
  const instance = vm.unwrapResult(vm.callFunction(harnessMain, vm.undefined, ...owned, sandbox.tools));
  for (const arg of owned) arg.dispose();
  const harness = { instance };
  for (const name of ["begin", "start", "deliver", "crashed", "flush"]) harness[name] = vm.getProp(instance, name);
  const prepare = vm.getProp(instance, "prepare");
  const count = vm.newNumber(processes);
  vm.unwrapResult(vm.callFunction(prepare, instance, count)).dispose();
  for (const handle of [prepare, count]) handle.dispose();
  return harness;
}

/** Runs one case (see `createCaseRunner`) in a ready sandbox. */
function runOnce(engines, sandbox, harness, { source, fileName, caseJson, handOff, modules }) {
  const { leaselab } = engines;
  const workloadJson = JSON.stringify(JSON.parse(caseJson).workload);
  const sim = new leaselab.Simulation(caseJson);
  sandbox.beginRun();
  const { vm } = sandbox;
  const { instance, begin, start, deliver, crashed, flush } = harness;
  /** Why the run stops, in the learner's terms (the harness's reason, or a limit's). */
  let stopReason = null;
  // The process whose code ran last: a stop is blamed on it, whether or not
  // its workload had finished (code can run on after its last call).
  let current = 0;
  try {
    /**
     * Calls a harness function with `values`, which it frees (except the
     * module instances sealed with the sandbox: every run uses them again);
     * a throw out of it (a limit hit inside) stops the run.
     */
    const callHarness = (fn, ...values) => {
      const result = sandbox.guard(() => sandbox.call(fn, instance, values));
      for (const value of values) if (value.alive && !modules.includes(value)) value.dispose();
      if (result === null) return null;
      if (result.error) {
        const info = sandbox.describeThrown(result.error);
        result.error.dispose();
        sandbox.stop(info.limit ?? `stopped the test: ${info.error ? `${info.name}: ${info.message}` : info.text}`);
        return null;
      }
      return result.value;
    };

    /** Hands the harness's outbox to the simulation, in order; remembers a stop. */
    const flushOutbox = () => {
      const text = callHarness(flush)?.consume((value) => sandbox.guard(() => vm.getString(value)));
      if (!text) return;
      // The run ends at a stop: nothing the code did after it counts.
      stopReason ??= sim.applyOutbox(text) ?? null;
    };

    callHarness(begin, sandbox.newString(workloadJson))?.dispose();
    for (let process = 0; process < sim.processes && !sandbox.stopped && stopReason === null; process += 1) {
      current = process;
      // The instance evaluated before the seal (fresh in every run), else one evaluated now.
      let namespace = modules[process] ?? null;
      if (namespace === null) {
        try {
          namespace = loadModule(sandbox, source, fileName);
        } catch (error) {
          if (!(error instanceof ModuleError)) throw error;
          sim.fail(process, error.message);
          return handOff ? sim.handOff() : sim.executionJson();
        }
      }
      callHarness(start, vm.newNumber(process), namespace, sandbox.newString(sim.localNowAll()))?.dispose();
      sandbox.drainJobs();
      flushOutbox();
    }
    while (!sandbox.stopped && stopReason === null) {
      const delivery = sim.nextDelivery();
      if (delivery === "") break;
      current = sim.lastProcess;
      if (delivery[0] === "!") {
        callHarness(crashed, vm.newNumber(current))?.dispose();
        continue;
      }
      callHarness(deliver, sandbox.newString(delivery))?.dispose();
      sandbox.drainJobs();
      flushOutbox();
    }
    // What the code did before a limit stopped it still counts (its notes say where it was).
    if (sandbox.stopped && stopReason === null && !sandbox.broken) flushOutbox();
    stopReason ??= sandbox.stopped;
    if (stopReason !== null) sim.fail(current, `${fileName} ${stopReason}`);
    return handOff ? sim.handOff() : sim.executionJson();
  } catch (error) {
    // A call into the QuickJS instance failed outside a guard (it had
    // already broken down, e.g. out of memory mid-call): the submission's
    // failure, never the grader's.
    sandbox.breakDown(error);
    sim.fail(current, `${fileName} ${stopReason ?? sandbox.stopped}`);
    return handOff ? sim.handOff() : sim.executionJson();
  } finally {
    sim.free();
  }
}
