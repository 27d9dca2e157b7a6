// The harness: trusted code that runs *inside* the sandbox, beside the
// learner's module. It builds each process's `ctx`, turns store calls into
// promises that the simulation settles, and plays the test's workload by
// calling the learner's functions, exactly as the Rust harness in
// crates/grader does (same calls, same notes, same order).
//
// It is shipped into the VM as source text (`HARNESS_SOURCE`), so
// `harnessMain` must not refer to anything outside itself.
//
// The bridge is batched, because crossing between the VM and the host is the
// runner's main cost: while the learner's code runs, its calls, the notes
// and console lines only go into an outbox, in order; the host takes the
// outbox (`flush`) when the code waits again and hands it to the simulation.
// No simulated time passes while code runs, so nothing can tell the
// difference: a call's id is the simulation's next call number (calls are
// numbered in order; processes that finished or crashed make none), and
// `now()` reads the local clocks the host passed with the last step.

/* eslint-disable no-restricted-globals */
function harnessMain(exercise, workloadJson, fileName, setConsoleSink, consoleLinesMax, halt) {
  "use strict";
  const { freeze } = Object;
  const { stringify, parse } = JSON;
  const isInteger = Number.isInteger;
  const workload = parse(workloadJson);
  /** callId → { resolve, reject } */
  const pending = new Map();
  /** Messages for the host, in order: ["c", process, callJson] | ["n", process, noteJson] | ["f", process]. */
  let outbox = [];
  let nextCallId = 0;
  /** Processes that may still call (not finished, not crashed). */
  const running = new Set();
  /** Each process's local clock at the current step, from the host. */
  let localNows = [];
  /** The process whose code runs now (console lines are attributed to it). */
  let current = 0;
  let consoleLines = 0;
  setConsoleSink((text) => {
    consoleLines += 1;
    if (consoleLines === consoleLinesMax + 1) {
      const reason = "printed more than " + consoleLinesMax + " lines to the console";
      outbox.push(["s", current, reason]);
      halt(reason);
    }
    if (consoleLines > consoleLinesMax) return;
    outbox.push(["n", current, stringify({ note: "console", text: text.length > 500 ? text.slice(0, 500) + "… (line cut)" : text })]);
  });

  function describeValue(value) {
    if (value === undefined) return "undefined";
    if (value === null) return "null";
    if (typeof value === "string") return stringify(value.length > 60 ? value.slice(0, 60) + "…" : value);
    if (typeof value === "function") return "a function";
    if (typeof value === "object") {
      try {
        const text = stringify(value);
        return text.length > 80 ? text.slice(0, 80) + "…" : text;
      } catch {
        return "an object";
      }
    }
    return String(value);
  }

  /** "lock.js:12:5", from an error's stack, if the learner's file is in it. */
  function locationOf(error) {
    const stack = error && typeof error.stack === "string" ? error.stack : "";
    const at = stack.indexOf(fileName + ":");
    if (at < 0) return "";
    const match = /^[^\s)]+:\d+(:\d+)?/.exec(stack.slice(at));
    return match ? " (at " + match[0] + ")" : "";
  }

  function describeThrown(what, error) {
    if (error instanceof Error) {
      return what + " threw " + error.name + ": " + error.message + locationOf(error);
    }
    return what + " threw " + describeValue(error) + ", which is not an Error; throw new Error(\"…\") so the message and the line can be shown";
  }

  class Failure extends Error {}

  function storeCall(process, call) {
    // A process that finished or crashed is not running: its promise never settles.
    if (!running.has(process)) return new Promise(() => {});
    const id = nextCallId++;
    outbox.push(["c", process, stringify(call)]);
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }

  // Store methods check their arguments, then hand back the call's own
  // promise (no wrapping: every extra promise costs the interpreter a job).
  // Bad arguments reject, as a failed network call would, with a message
  // that says what was wrong.
  function checked(check, process, call) {
    const problem = check();
    return problem === null ? storeCall(process, call) : Promise.reject(new TypeError(problem));
  }

  function stringProblem(method, name, value) {
    return typeof value === "string" && value.length > 0 ? null : method + ": " + name + " must be a non-empty string, got " + describeValue(value);
  }

  function wholeNumberProblem(method, name, value, minimum) {
    return value === undefined || (isInteger(value) && value >= minimum)
      ? null
      : method + ": " + name + " must be a whole number of at least " + minimum + ", got " + describeValue(value);
  }

  function makeStore(process) {
    return freeze({
      get(key) {
        return checked(() => stringProblem("get", "key", key), process, { op: "get", key });
      },
      compareAndSwap(key, nextValue, currentValue, options) {
        const { version, ttlMs } = options === undefined || options === null ? {} : options;
        const problem = () =>
          stringProblem("compareAndSwap", "key", key) ??
          (typeof nextValue === "string" ? null : "compareAndSwap: nextValue must be a string, got " + describeValue(nextValue)) ??
          (currentValue === null || typeof currentValue === "string"
            ? null
            : "compareAndSwap: currentValue must be a string, or null for \"the key must be absent\"; got " + describeValue(currentValue)) ??
          wholeNumberProblem("compareAndSwap", "version", version, 0) ??
          wholeNumberProblem("compareAndSwap", "ttlMs", ttlMs, 1);
        return checked(problem, process, { op: "cas", key, nextValue, currentValue, version: version ?? null, ttlMs: ttlMs ?? null });
      },
      delete(key, options) {
        const { version } = options === undefined || options === null ? {} : options;
        const problem = () => stringProblem("delete", "key", key) ?? wholeNumberProblem("delete", "version", version, 0);
        return checked(problem, process, { op: "delete", key, version: version ?? null });
      },
      watch(key, afterVersion) {
        const problem = () =>
          stringProblem("watch", "key", key) ??
          (isInteger(afterVersion) && afterVersion >= 0 ? null : "watch: afterVersion must be a whole number (a version you read), got " + describeValue(afterVersion));
        return checked(problem, process, { op: "watch", key, afterVersion });
      },
    });
  }

  function makeCtx(process) {
    return freeze({
      name: "p" + (process + 1),
      now: () => localNows[process],
      sleep(ms) {
        const problem = () => (isInteger(ms) && ms >= 0 ? null : "sleep: ms must be a whole number of milliseconds, got " + describeValue(ms));
        return checked(problem, process, { op: "sleep", ms });
      },
      store: makeStore(process),
    });
  }

  function note(process, value) {
    if (running.has(process)) outbox.push(["n", process, stringify(value)]);
  }

  /** Calls one of the learner's functions, turning a throw into a Failure. */
  async function callLearner(process, exports, name, args) {
    note(process, { note: "calling", function: name });
    try {
      return await exports[name](...args);
    } catch (error) {
      throw new Failure(describeThrown(name + "()", error));
    }
  }

  function isVersionResult(value) {
    return value !== null && typeof value === "object" && isInteger(value.version) && value.version > 0;
  }

  // ---- the lock exercise (crates/grader/src/lock/harness.rs) ------------
  const LOCK_KEY = "locks/bar";

  async function runLockScript(process, exports, ctx, script) {
    let held = null;
    for (const step of script) {
      switch (step.step) {
        case "tryLock": {
          const result = await callLearner(process, exports, "tryLock", [ctx, LOCK_KEY, step.ttlMs]);
          if (result !== null && !isVersionResult(result)) {
            throw new Failure("tryLock() returned " + describeValue(result) + "; expected { version } (the version of your successful compareAndSwap) or null");
          }
          held = result === null ? null : result.version;
          note(process, held === null ? { note: "notAcquired", key: LOCK_KEY } : { note: "acquired", key: LOCK_KEY, version: held });
          break;
        }
        case "lock": {
          const result = await callLearner(process, exports, "lock", [ctx, LOCK_KEY, step.ttlMs]);
          if (!isVersionResult(result)) {
            throw new Failure("lock() returned " + describeValue(result) + "; expected { version }, the version of your successful compareAndSwap");
          }
          held = result.version;
          note(process, { note: "acquired", key: LOCK_KEY, version: held });
          break;
        }
        case "hold":
          if (held !== null) await ctx.sleep(step.ms);
          break;
        case "unlock":
          if (held !== null) {
            const version = held;
            held = null;
            const ok = await callLearner(process, exports, "unlock", [ctx, LOCK_KEY, version]);
            if (typeof ok !== "boolean") {
              throw new Failure("unlock() returned " + describeValue(ok) + "; expected true (your lock was released) or false");
            }
            note(process, { note: "released", key: LOCK_KEY, version, ok });
          }
          break;
        case "sleep":
          await ctx.sleep(step.ms);
          break;
        default:
          throw new Failure("the harness does not know the step " + describeValue(step));
      }
    }
  }

  const SCRIPT_RUNNERS = { lock: (process, exports, ctx) => runLockScript(process, exports, ctx, workload.scripts[process] || []) };

  const setClocks = (nowsText) => {
    localNows = nowsText.split(",").map(Number);
  };

  return freeze({
    /** Starts process `process` with its own instance of the learner's module. */
    start(process, exports, nowsText) {
      setClocks(nowsText);
      current = process;
      running.add(process);
      const run = SCRIPT_RUNNERS[exercise];
      const ctx = makeCtx(process);
      (async () => {
        try {
          await run(process, exports, ctx);
        } catch (error) {
          const message = error instanceof Failure ? error.message : describeThrown("the test", error);
          note(process, { note: "failed", message });
        }
        if (running.delete(process)) outbox.push(["f", process]);
      })();
    },
    /** The process crashed: it never runs again. */
    crashed(process) {
      running.delete(process);
    },
    /** The messages since the last flush, as JSON text. */
    flush() {
      const text = stringify(outbox);
      outbox = [];
      return text;
    },
    /** Settles the promise of call `id` (made by `process`) with the simulation's reply. */
    deliver(id, process, replyJson, nowsText) {
      setClocks(nowsText);
      current = process;
      const waiter = pending.get(id);
      if (waiter === undefined) return;
      pending.delete(id);
      const reply = parse(replyJson);
      switch (reply.reply) {
        case "get":
          waiter.resolve(reply.record);
          break;
        case "cas":
          waiter.resolve(reply.ok ? { ok: true, version: reply.version } : { ok: false, current: reply.current });
          break;
        case "delete":
          waiter.resolve({ ok: reply.ok });
          break;
        case "watch":
          waiter.resolve(reply.event);
          break;
        case "slept":
          waiter.resolve(undefined);
          break;
        case "refused":
          waiter.reject(new Error(reply.message));
          break;
        default:
          waiter.reject(new Error("unknown reply " + replyJson));
      }
    },
  });
}

/** The harness as source text for the sandbox: an expression for a function. */
export const HARNESS_SOURCE = `(${harnessMain.toString()})`;
