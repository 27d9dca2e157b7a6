// The limit for JavaScript: the same learner code, the same harness (the
// runner's own `harness.js`, twin of the Rust one) and the same simulation
// (the grader's wasm, `gradeSubmission`), with no sandbox: the learner's
// code runs directly in V8, in a `node:vm` context whose promise jobs run
// as soon as each call into it returns (`microtaskMode: "afterEvaluate"`),
// which is what `drainJobs` does for QuickJS. Each process of each run gets
// a fresh instance of the learner's module, as in the sandbox; the module's
// `export` keywords are dropped and its exports returned as an object (the
// lesson's solutions are plain functions, so nothing else changes).
//
// There are no limits here (no step, job, memory or stack budgets, no
// sealed realm, no restore, no describers that survive hostile values): it
// is for measuring well-behaved code only, never for grading. The reports
// it gives are compared with the sandbox's by the benchmark.
import vm from "node:vm";
import { CAS_HARNESS_SOURCE, HARNESS_SOURCE } from "../runner/harness.js";
import { registryOf } from "../runner/registry.js";

/** Plain tools for the harness (the sandbox's are total describers; these only need to work for good code). */
const TOOLS_SOURCE = `(() => {
  // The harness deep-freezes what it hands out, and stops at what is frozen already, as the built-ins are in the sandbox.
  for (const proto of [Object.prototype, Function.prototype, Object.getPrototypeOf(async function () {})]) Object.freeze(proto);
  let sink = () => {};
  const log = (...values) => sink(values.map(String).join(" "));
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  const describe = (value) => { try { return typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value)); } catch { return String(value); } };
  return {
    setConsoleSink: (next) => { sink = next; },
    describe,
    describeThrown: (what, error) => what + " threw " + (error instanceof Error ? error.name + ": " + error.message : describe(error)),
    read: (value, key) => { try { return { value: value[key], failed: false }; } catch { return { value: undefined, failed: true }; } },
    safeText: (text) => String(text),
    isWellFormed: (text) => text.isWellFormed(),
    halt: () => {},
    isStopped: () => false,
    consoleLinesMax: 300,
  };
})()`;

/** The module as a script that returns a fresh namespace object each time it runs. */
function moduleAsScript(source, exports) {
  const body = source.replace(/^export\s+(?=(async\s+)?function|const|let|class)/gm, "");
  return new vm.Script(`(() => {\n${body}\nreturn { ${exports.join(", ")} };\n})()`, { filename: "learner.js" });
}

/**
 * `gradeUnsandboxed(leaselab, { exercise, source, options })`: the suite
 * report, as `gradeSource` gives it (without `problems`).
 */
export function gradeUnsandboxed(leaselab, { exercise, source, options }) {
  const spec = registryOf(leaselab).exercise(exercise);
  const context = vm.createContext({}, { microtaskMode: "afterEvaluate" });
  context.tools = vm.runInContext(TOOLS_SOURCE, context);
  context.harnessMain = vm.runInContext(spec.drive === "store" ? CAS_HARNESS_SOURCE : HARNESS_SOURCE, context);
  const learner = moduleAsScript(source, spec.exports);
  const call = new vm.Script("result = fn(...args)");
  /** Calls `fn(...args)` in the context; its promise jobs run before this returns. */
  const inContext = (fn, ...args) => {
    context.fn = fn;
    context.args = args;
    call.runInContext(context);
    return context.result;
  };
  const run =
    spec.drive === "store"
      ? (caseJson) => {
          const ops = JSON.stringify(JSON.parse(caseJson).workload.ops);
          return inContext(context.harnessMain, learner.runInContext(context), ops, context.tools);
        }
      : (caseJson) => {
          const sim = new leaselab.Simulation(caseJson);
          try {
            const workload = JSON.stringify(JSON.parse(caseJson).workload);
            // No sealed memory here: a fresh harness per run, as fresh as the sandbox's.
            const harness = inContext(context.harnessMain, exercise, spec.file, spec.key, context.tools);
            inContext(harness.begin, workload);
            let stop = null;
            const flush = () => {
              const text = inContext(harness.flush);
              if (text) stop ??= sim.applyOutbox(text) ?? null;
            };
            for (let process = 0; process < sim.processes && stop === null; process += 1) {
              inContext(harness.start, process, learner.runInContext(context), sim.localNowAll());
              flush();
            }
            while (stop === null) {
              const delivery = sim.nextDelivery();
              if (delivery === "") break;
              if (delivery[0] === "!") {
                inContext(harness.crashed, sim.lastProcess);
                continue;
              }
              inContext(harness.deliver, delivery);
              flush();
            }
            return sim.handOff();
          } finally {
            sim.free();
          }
        };
  return JSON.parse(leaselab.gradeSubmission(exercise, options, run));
}
