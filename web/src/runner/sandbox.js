import { QUICKJS_MEMORY_MAXIMUM_BYTES } from "./engine.js";

// The sandbox: a fresh QuickJS runtime per run, with limits, and a global
// environment that holds nothing the learner's code may use to escape or to
// be non-deterministic.
//
// - No Date (the context is created without it), Math.random throws, and
//   there is no setTimeout, fetch, process, require, file system or DOM:
//   QuickJS simply has none of them.
// - The built-in prototypes and globals are frozen before the learner's
//   code runs, so it cannot tamper with what the harness relies on.
// - A deterministic step budget (QuickJS calls the interrupt handler every
//   few thousand operations; we count the calls), a memory limit (the QuickJS
//   instance's fixed-size memory, see engine.js) and a stack limit end
//   runaway code with a named verdict; a wall-clock deadline is the backstop.

/** The limits of one run. `stepBudget` is in interrupt-handler calls
 * (QuickJS calls the handler about every 10,000 operations). */
export const DEFAULT_LIMITS = Object.freeze({
  stepBudget: 300,
  stackBytes: 128 * 1024,
  wallMs: 5_000,
  consoleLinesMax: 300,
  consoleLineCharsMax: 500,
});

// Runs in the VM before anything else: console, Math.random, frozen
// built-ins. It returns the function that points console output at the
// harness of the current run; the host keeps it, the learner cannot reach it.
const PRELUDE_SOURCE = `(function prelude() {
  "use strict";
  const format = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return value.name + ": " + value.message;
    if (typeof value === "function") return "[function " + (value.name || "anonymous") + "]";
    if (typeof value === "bigint") return value + "n";
    try { const text = JSON.stringify(value); return text === undefined ? String(value) : text; } catch { return String(value); }
  };
  // The harness of each run sets where console lines go.
  let sink = () => {};
  const log = (...values) => { sink(values.map(format).join(" ")); };
  Object.defineProperty(globalThis, "console", {
    value: Object.freeze({ log, info: log, warn: log, error: log, debug: log }),
    writable: false, enumerable: false, configurable: false,
  });
  Math.random = () => { throw new Error("Math.random() is not available: the simulation must be deterministic. Use the values the test gives you."); };
  // Freeze every built-in reachable from the global object, and the global itself.
  const seen = new Set();
  const freezeDeep = (value) => {
    if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) return;
    seen.add(value);
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor && "value" in descriptor) freezeDeep(descriptor.value);
      if (descriptor && descriptor.get) freezeDeep(descriptor.get);
      if (descriptor && descriptor.set) freezeDeep(descriptor.set);
    }
    freezeDeep(Object.getPrototypeOf(value));
  };
  for (const key of Reflect.ownKeys(globalThis)) {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
    if (descriptor && "value" in descriptor) freezeDeep(descriptor.value);
  }
  freezeDeep((async function () {}).constructor);
  freezeDeep((function* () {}).constructor);
  freezeDeep((async function* () {}).constructor);
  Object.freeze(globalThis);
  return (next) => { sink = next; };
})`;

/** Why a run was stopped by the sandbox rather than by the simulation. */
export class SandboxStop extends Error {
  constructor(message) {
    super(message);
    this.name = "SandboxStop";
  }
}

/**
 * A sandbox. Setting one up (freezing every built-in) costs a few
 * milliseconds, so the runner reuses it for many runs of one submission:
 * `beginRun()` resets the step budget, the deadline and the stop reason.
 * Each run still gets fresh instances of the learner's module, and since
 * the globals are frozen, no state can leak from one run to the next.
 * Call `abandon()` when done: the sandbox's QuickJS instance is dropped,
 * never freed piecemeal (see engine.js for why).
 */
export function createSandbox(pool, { limits = DEFAULT_LIMITS, realNow = () => performance.now() } = {}) {
  // Console line limits are counted by the harness, in the outbox's order.
  // Memory is bounded by the QuickJS instance's own wasm memory (engine.js).
  const runtime = pool.take().newRuntime();
  runtime.setMaxStackSize(limits.stackBytes);
  let interrupts = 0;
  let stopped = null;
  let deadline = realNow() + limits.wallMs;
  runtime.setInterruptHandler(() => {
    interrupts += 1;
    if (stopped) return true;
    if (interrupts > limits.stepBudget) {
      stopped = `ran for more than ${limits.stepBudget * 10_000} steps without waiting for the store (an infinite loop?)`;
      return true;
    }
    // The backstop: never used by well-behaved runs, so it cannot change a verdict that the budget decides.
    if ((interrupts & 15) === 0 && realNow() > deadline) {
      stopped = `ran for more than ${limits.wallMs / 1000} s of real time`;
      return true;
    }
    return false;
  });
  const vm = runtime.newContext({ intrinsics: { BaseObjects: true, Eval: true, StringNormalize: true, RegExp: true, JSON: true, Proxy: true, MapSet: true, TypedArrays: true, Promise: true, Date: false } });

  // The harness calls this when it ends a run itself (console flood), so the
  // learner's code is interrupted at once instead of running on unheard.
  const halt = vm.newFunction("halt", (reason) => {
    stopped ??= vm.getString(reason);
    return vm.undefined;
  });
  const prelude = vm.unwrapResult(vm.evalCode(PRELUDE_SOURCE, "prelude.js"));
  const setConsoleSink = vm.unwrapResult(vm.callFunction(prelude, vm.undefined));
  prelude.dispose();

  return {
    vm,
    runtime,
    /** The prelude's function that points console output at a run's harness. */
    setConsoleSink,
    /** A VM function that stops the run with a reason. */
    halt,
    /** Starts a run: a fresh step budget and deadline. */
    beginRun() {
      interrupts = 0;
      stopped = null;
      deadline = realNow() + limits.wallMs;
    },
    /** Why the sandbox stopped the code, or null. */
    get stopped() {
      return stopped;
    },
    /** Marks the run as stopped (e.g. memory exhausted), keeping the first reason. */
    stop(reason) {
      stopped ??= reason;
    },
    /** Runs queued promise jobs until none are left or the sandbox stops. */
    drainJobs() {
      // One crossing runs every queued job, including the ones they queue (-1: no cap);
      // a runaway chain is still stopped by the step budget.
      while (!stopped && runtime.hasPendingJob()) {
        const result = runtime.executePendingJobs(-1);
        if (result.error) {
          const error = result.error.context.dump(result.error);
          result.error.dispose();
          stopped ??= describeEngineError(error);
          return;
        }
      }
    },
    /** Lets go of the sandbox without freeing the runtime (which may abort QuickJS). */
    abandon() {
      if (setConsoleSink.alive) setConsoleSink.dispose();
      if (halt.alive) halt.dispose();
    },
  };
}

/** Errors that escape to the engine: out of memory, stack overflow, interrupted. */
export function describeEngineError(error) {
  const message = typeof error === "object" && error !== null ? `${error.name ?? "Error"}: ${error.message ?? ""}` : String(error);
  if (/out of memory/i.test(message)) return `used more memory than the limit (${QUICKJS_MEMORY_MAXIMUM_BYTES / 1024 / 1024} MB)`;
  if (/stack overflow|too much recursion|maximum call stack/i.test(message)) return "recursed too deeply (stack overflow)";
  return message;
}
