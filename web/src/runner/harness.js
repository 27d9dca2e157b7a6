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
  /**
   * Messages for the host, in order, one line each: "c<process>|<call JSON>",
   * "n<process>|<note JSON>", "f<process>|" (finished), "s<process>|<reason>"
   * (the harness stopped the run). JSON text never holds a raw line break,
   * and the reasons are the harness's own one-line sentences.
   */
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
      outbox.push("s" + current + "|" + reason);
      halt(reason);
    }
    if (consoleLines > consoleLinesMax) return;
    outbox.push("n" + current + "|" + stringify({ note: "console", text: text.length > 500 ? text.slice(0, 500) + "… (line cut)" : text }));
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
    outbox.push("c" + process + "|" + stringify(call));
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
    if (running.has(process)) outbox.push("n" + process + "|" + stringify(value));
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

  // ---- the lease exercise (crates/grader/src/lease/harness.rs) ----------
  const LEASE_KEY = "leader/bar";

  async function runReplica(process, exports, ctx) {
    const startMs = workload.startsMs[process] || 0;
    const leaderCtx = freeze({
      name: ctx.name,
      now: ctx.now,
      sleep: ctx.sleep,
      store: ctx.store,
      work() {
        note(process, { note: "work", key: LEASE_KEY });
        return ctx.sleep(workload.workMs);
      },
    });
    if (startMs > 0) await ctx.sleep(startMs);
    for (;;) {
      const lease = await callLearner(process, exports, "campaign", [leaderCtx, LEASE_KEY, workload.ttlMs]);
      await callLearner(process, exports, "lead", [leaderCtx, LEASE_KEY, workload.ttlMs, lease]);
      note(process, { note: "stepped", key: LEASE_KEY });
    }
  }

  // ---- the fencing exercise (crates/grader/src/fencing/harness.rs) ------
  const FENCING_KEY = "leader/bar";
  /** Request number → { owner, version }, as the leaders sent them. */
  const sent = new Map();

  async function runLeader(process, script) {
    const name = "p" + (process + 1);
    const call = (value) => storeCall(process, value);
    let holding = null;
    for (const step of script) {
      switch (step.step) {
        case "acquire":
          for (;;) {
            const result = await call({ op: "cas", key: FENCING_KEY, nextValue: name, currentValue: null, version: null, ttlMs: step.ttlMs });
            if (result.ok) {
              holding = result.version;
              note(process, { note: "acquired", key: FENCING_KEY, version: holding });
              break;
            }
            if (result.current !== null) await call({ op: "watch", key: FENCING_KEY, afterVersion: result.current.version });
          }
          break;
        case "renew":
          if (holding !== null) {
            const result = await call({ op: "cas", key: FENCING_KEY, nextValue: name, currentValue: name, version: holding, ttlMs: step.ttlMs });
            holding = result.ok ? result.version : null;
            if (holding !== null) note(process, { note: "acquired", key: FENCING_KEY, version: holding });
          }
          break;
        case "release":
          if (holding !== null) {
            const version = holding;
            holding = null;
            const result = await call({ op: "delete", key: FENCING_KEY, version });
            note(process, { note: "released", key: FENCING_KEY, version, ok: result.ok });
          }
          break;
        case "send":
          if (holding !== null) {
            sent.set(step.request, { owner: name, version: holding });
            note(process, { note: "sent", requestId: "r" + step.request, owner: name, version: holding });
          }
          break;
        case "sleep":
          await call({ op: "sleep", ms: step.ms });
          break;
        default:
          throw new Failure("the harness does not know the step " + describeValue(step));
      }
    }
  }

  async function deliverRequest(process, exports, ctx, delivery) {
    await ctx.sleep(delivery.atMs);
    const stamp = sent.get(delivery.request);
    if (stamp === undefined) return;
    const id = "r" + delivery.request;
    const request = freeze({ id, owner: stamp.owner, version: stamp.version, payload: "payload of " + id });
    try {
      const accepted = await callLearner(process, exports, "handleRequest", [ctx, FENCING_KEY, request]);
      if (typeof accepted !== "boolean") {
        throw new Failure("handleRequest() returned " + describeValue(accepted) + "; expected true (applied) or false (rejected)");
      }
      note(process, { note: "handled", requestId: id, owner: stamp.owner, version: stamp.version, accepted });
    } catch (error) {
      note(process, { note: "failed", message: error instanceof Failure ? error.message : describeThrown("the test", error) });
    }
  }

  function runFencingProcess(process, exports, ctx) {
    if (process < workload.leaders.length) return runLeader(process, workload.leaders[process]);
    if (process === workload.leaders.length) {
      return Promise.all(workload.deliveries.map((delivery) => deliverRequest(process, exports, ctx, delivery)));
    }
    return Promise.resolve();
  }

  const SCRIPT_RUNNERS = {
    lock: (process, exports, ctx) => runLockScript(process, exports, ctx, workload.scripts[process] || []),
    lease: runReplica,
    fencing: runFencingProcess,
  };

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
        if (running.delete(process)) outbox.push("f" + process + "|");
      })();
    },
    /** The process crashed: it never runs again. */
    crashed(process) {
      running.delete(process);
    },
    /** The messages since the last flush, one line each (see `outbox`). */
    flush() {
      const text = outbox.join("\n");
      outbox = [];
      return text;
    },
    /**
     * Settles the promise of a call with the simulation's reply. One string
     * carries everything (one value to cross the VM boundary, not four):
     * `<call id>|<process>|<local clocks, comma-separated>|<reply JSON>`.
     */
    deliver(packed) {
      const first = packed.indexOf("|");
      const second = packed.indexOf("|", first + 1);
      const third = packed.indexOf("|", second + 1);
      const id = Number(packed.slice(0, first));
      const process = Number(packed.slice(first + 1, second));
      setClocks(packed.slice(second + 1, third));
      const replyJson = packed.slice(third + 1);
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

/**
 * The harness's outbox (what `flush()` returned) as `[kind, process,
 * payload]` messages, for hosts that read it in JavaScript (lab mode; the
 * simulation reads it in Rust, `Simulation.applyOutbox`).
 */
export function parseOutbox(text) {
  if (text === "") return [];
  return text.split("\n").map((line) => {
    const bar = line.indexOf("|");
    return [line[0], Number(line.slice(1, bar)), line.slice(bar + 1)];
  });
}

// The cas exercise has no simulation: the learner writes the store itself,
// and the grader compares its answers with the model's (see
// crates/grader/src/cas/mod.rs, "The execution contract"). This runs the
// operations against the learner's store and returns the recording.
function casHarnessMain(namespace, opsJson, setConsoleSink, consoleLinesMax, halt) {
  "use strict";
  const { stringify, parse } = JSON;
  const isSafeInteger = Number.isSafeInteger;
  const ops = parse(opsJson);
  const answers = [];
  const consoleLines = [];
  let failure = null;
  let current = 0;
  let lines = 0;
  setConsoleSink((text) => {
    lines += 1;
    if (lines === consoleLinesMax + 1) {
      failure = "printed more than " + consoleLinesMax + " lines to the console";
      halt(failure);
    }
    if (lines > consoleLinesMax) return;
    consoleLines.push({ op: current, text: text.length > 500 ? text.slice(0, 500) + "… (line cut)" : text });
  });

  function describe(value) {
    if (value === undefined) return "undefined";
    if (typeof value === "function") return "a function";
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text.length > 80 ? text.slice(0, 80) + "…" : text;
    } catch {
      return String(value);
    }
  }

  function describeCall(op, version) {
    const quoted = (value) => (value === null ? "null" : stringify(value));
    switch (op.op) {
      case "get":
        return "get(" + quoted(op.key) + ")";
      case "delete":
        return "delete(" + quoted(op.key) + (version === null ? "" : ", { version: " + version + " }") + ")";
      default: {
        const options = [];
        if (version !== null) options.push("version: " + version);
        if (op.ttlMs !== null) options.push("ttlMs: " + op.ttlMs);
        return "compareAndSwap(" + quoted(op.key) + ", " + quoted(op.nextValue) + ", " + quoted(op.currentValue) + (options.length ? ", { " + options.join(", ") + " }" : "") + ")";
      }
    }
  }

  function describeThrown(call, error) {
    if (error instanceof Error) return call + " threw " + error.name + ": " + error.message;
    return call + " threw " + describe(error) + ", which is not an Error";
  }

  const isVersion = (value) => isSafeInteger(value) && value >= 0;
  function record(value) {
    if (value === null) return null;
    if (typeof value !== "object" || typeof value.value !== "string" || !isVersion(value.version) || !isVersion(value.keyVersion)) {
      throw new TypeError("a record must be { value: string, version, keyVersion } (whole numbers) or null");
    }
    return { value: value.value, version: value.version, keyVersion: value.keyVersion };
  }

  /** The learner's own version in an earlier answer (see `answers::version_in`). */
  function versionIn(answer) {
    if (!answer) return null;
    if (answer.reply === "get") return answer.record === null ? null : answer.record.version;
    if (answer.reply === "cas") return answer.ok ? answer.version : answer.current === null ? null : answer.current.version;
    return null;
  }

  let nowMs = 0;
  const clock = Object.freeze({ now: () => nowMs });
  let store;
  try {
    store = namespace.createStore(clock);
  } catch (error) {
    return stringify({ answers, failure: describeThrown("createStore(clock)", error), console: consoleLines });
  }
  if (store === null || typeof store !== "object") {
    return stringify({ answers, failure: "createStore(clock) returned " + describe(store) + "; expected an object with get, compareAndSwap and delete", console: consoleLines });
  }

  for (let index = 0; index < ops.length && failure === null; index += 1) {
    const op = ops[index];
    current = index;
    if (op.op === "advance") {
      nowMs += op.ms;
      answers.push({ reply: "slept" });
      continue;
    }
    let version = null;
    if ((op.op === "cas" || op.op === "delete") && op.versionOf !== null) {
      version = versionIn(answers[op.versionOf]);
      if (version === null) break; // an earlier answer already differs; the checker reports it
    }
    const call = describeCall(op, version);
    let result;
    try {
      if (op.op === "get") {
        result = store.get(op.key);
      } else if (op.op === "delete") {
        result = version === null ? store.delete(op.key) : store.delete(op.key, { version });
      } else {
        const options = {};
        if (version !== null) options.version = version;
        if (op.ttlMs !== null) options.ttlMs = op.ttlMs;
        result = Object.keys(options).length === 0
          ? store.compareAndSwap(op.key, op.nextValue, op.currentValue)
          : store.compareAndSwap(op.key, op.nextValue, op.currentValue, options);
      }
    } catch (error) {
      failure = describeThrown(call + " at t=" + nowMs + " ms", error);
      break;
    }
    if (failure !== null) break;
    try {
      if (result !== null && typeof result === "object" && typeof result.then === "function") {
        throw new TypeError("it returned a Promise; the cas store is synchronous: return the answer itself");
      }
      if (op.op === "get") {
        answers.push({ reply: "get", record: record(result) });
      } else if (op.op === "delete") {
        if (result === null || typeof result !== "object" || typeof result.ok !== "boolean") throw new TypeError("expected { ok: true } or { ok: false }");
        answers.push({ reply: "delete", ok: result.ok });
      } else if (result !== null && typeof result === "object" && result.ok === true) {
        if (!isVersion(result.version)) throw new TypeError("a successful compareAndSwap returns { ok: true, version } with a whole-number version");
        answers.push({ reply: "cas", ok: true, version: result.version, current: null });
      } else if (result !== null && typeof result === "object" && result.ok === false) {
        answers.push({ reply: "cas", ok: false, version: null, current: record(result.current === undefined ? null : result.current) });
      } else {
        throw new TypeError("expected { ok: true, version } or { ok: false, current }");
      }
    } catch (error) {
      failure = call + " at t=" + nowMs + " ms returned " + describe(result) + ": " + error.message;
    }
  }
  return stringify({ answers, failure, console: consoleLines });
}

/** The cas harness as source text: an expression for a function. */
export const CAS_HARNESS_SOURCE = `(${casHarnessMain.toString()})`;
