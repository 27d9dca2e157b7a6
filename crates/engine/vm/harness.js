// The harness: trusted code that runs inside the sandbox, beside the
// learner's module. It builds each process's `ctx`, turns store calls into
// promises that the host settles, and plays the test's workload by calling
// the learner's functions, exactly as the Rust harness in crates/grader
// does (same calls, same notes, same order).
//
// The engine evaluates this file as a script whose value is the function
// below, so it must not refer to anything outside itself. One instance
// serves every run of a sandbox: it is made (with each process's ctx)
// before the sandbox's memory is sealed, so every run starts with it as it
// was then, and `begin` hands it the run's workload.
//
// The bridge is batched, because crossing between the VM and the host
// costs: while the learner's code runs, its calls, the notes and console
// lines only go into an outbox, in order; the host takes the outbox
// (`flush`) when the code waits again (crates/engine/src/outbox.rs reads
// it). No simulated time passes while code runs, so nothing can tell the
// difference: a call's id is the host's next call number (calls are
// numbered in order), and `now()` reads the local clocks the host passed
// with the last step.
(function harnessMain(exercise, fileName, storeKey, tools) {
  "use strict";
  // The realm is sealed before this runs (see prelude.js), so
  // the built-ins used here are the real ones. Still, nothing below iterates
  // with `for…of`, spreads, or calls a method on a value the learner made:
  // learner values are only read through `read()`, once per field.
  const { freeze, getOwnPropertyNames, getPrototypeOf, isFrozen } = Object;
  const { stringify, parse } = JSON;
  const isSafeInteger = Number.isSafeInteger;
  const ceil = Math.ceil;
  const { describe, read, isWellFormed, halt, isStopped, consoleLinesMax } = tools;
  /** The run's workload (`begin`). */
  let workload = null;
  /** The largest TTL and sleep accepted: a day (the store's own TTL limit). */
  const MS_MAX = 86_400_000;
  /** callId → { resolve, reject } */
  const pending = new Map();
  /**
   * Messages for the host, in order, one line each: "c<process>|<call JSON>",
   * "n<process>|<note JSON>", "f<process>|" (finished), "s<process>|<reason>"
   * (the harness stopped the run). JSON text never holds a raw line break or
   * a lone surrogate: every learner string in it is checked or made safe.
   */
  let outbox = [];
  let nextCallId = 0;
  /** Processes whose workload is under way (started, not finished, not crashed). */
  const running = new Set();
  /**
   * Processes whose code may still call (started and not crashed): a
   * process whose workload finished keeps calling if its code does (a task
   * it left running), and those calls are part of the run like any other.
   */
  const live = new Set();
  /**
   * Each process's local clock at the current step: the host's text
   * ("<ms>,<ms>,…"), read into numbers only when code asks `now()` (most
   * steps never do, and reading them costs the interpreter more than the step).
   */
  let localNowsText = "";
  let localNows = null;
  /** The process whose code runs now (console lines are attributed to it). */
  let current = 0;
  let consoleLines = 0;
  tools.setConsoleSink((text) => {
    consoleLines += 1;
    if (consoleLines === consoleLinesMax + 1) {
      const reason = "printed more than " + consoleLinesMax + " lines to the console";
      outbox.push("s" + current + "|" + reason);
      halt(reason);
    }
    if (consoleLines > consoleLinesMax) return;
    outbox.push("n" + current + "|" + stringify({ note: "console", text }));
  });

  /** Deep-freezes what the harness hands to learner code, so no process can leave state on it for another. */
  function harden(value) {
    if ((typeof value !== "object" && typeof value !== "function") || value === null || isFrozen(value)) return value;
    freeze(value);
    const names = getOwnPropertyNames(value);
    for (let index = 0; index < names.length; index += 1) harden(value[names[index]]);
    harden(getPrototypeOf(value));
    return value;
  }

  /** A learner value in a sentence: bounded, single-line, never throws. */
  function describeValue(value) {
    return describe(value, 80);
  }

  /** Errors made by this harness (a WeakSet: checking it runs no learner code, unlike instanceof on a Proxy). */
  const failures = new WeakSet();
  function failure(message) {
    const error = new Error(message);
    failures.add(error);
    return error;
  }

  /**
   * The sandbox interrupted the code (a limit): the host records why. An
   * error that only looks like the interrupt (the learner can make one) is
   * reported like any other throw.
   */
  function interruptedBySandbox(error) {
    return isStopped() && !failures.has(error);
  }

  /** "lock() threw TypeError: … (at lock.js:3:5)", for any thrown value, however hostile (see the prelude). */
  function describeThrown(what, error) {
    return tools.describeThrown(what, error, fileName);
  }

  /**
   * Sends a call (its JSON text, from `CALLS`) and hands back its promise.
   * The call's id is the simulation's next call number (see the top).
   */
  function storeCall(process, callJson) {
    // A crashed process never runs again: its promise never settles.
    if (!live.has(process)) return new Promise(() => {});
    const id = nextCallId++;
    outbox.push("c" + process + "|" + callJson);
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }

  // The calls' JSON is written out here, not with JSON.stringify: in QuickJS,
  // stringifying a six-field object costs about three times building its
  // text (BENCHMARKS.md, issue 18), and every store call writes one. Only
  // checked arguments reach these: strings are quoted by stringify (which
  // escapes them), and numbers are safe integers, or null where absent.
  const numberOrNull = (value) => (value === undefined || value === null ? "null" : "" + value);
  const CALLS = {
    get: (key) => '{"op":"get","key":' + stringify(key) + "}",
    cas: (key, nextValue, currentValue, version, ttlMs) =>
      '{"op":"cas","key":' + stringify(key) + ',"nextValue":' + stringify(nextValue) + ',"currentValue":' + (currentValue === null ? "null" : stringify(currentValue)) +
      ',"version":' + numberOrNull(version) + ',"ttlMs":' + numberOrNull(ttlMs) + "}",
    delete: (key, version) => '{"op":"delete","key":' + stringify(key) + ',"version":' + numberOrNull(version) + "}",
    watch: (key, afterVersion) => '{"op":"watch","key":' + stringify(key) + ',"afterVersion":' + afterVersion + "}",
    list: (prefix) => '{"op":"list","prefix":' + stringify(prefix) + "}",
    sleep: (ms) => '{"op":"sleep","ms":' + ms + "}",
  };

  // Store methods check their arguments, then hand back the call's own
  // promise (no wrapping: every extra promise costs the interpreter a job).
  // Bad arguments reject, as a failed network call would, with a message
  // that says what was wrong.
  const refuse = (problem) => Promise.reject(new TypeError(problem));

  /**
   * The longest text a call may carry into the simulation: the store's
   * largest limit, a value's 4,096 bytes (kv::Limits::value_bytes_max; a
   * test in crates/engine holds the two equal). A longer text can never be
   * a key or value the store takes (UTF-8 needs a byte at least for every
   * UTF-16 unit), so it is refused here, before it is copied into the run's
   * trace: 64 KiB texts, a few thousand calls of them, filled the
   * simulation's memory and the reports.
   */
  const TEXT_CHARS_MAX = 4096;

  /** null if `value` is text a call can carry; else why not. */
  function textProblem(method, name, value) {
    if (value.length > TEXT_CHARS_MAX) return method + ": " + name + " is " + value.length + " characters long; the store takes keys and values of a few KB at most";
    return isWellFormed(value) ? null : method + ": " + name + " must be well-formed text; it holds half of a surrogate pair (an emoji cut in two?)";
  }

  function stringProblem(method, name, value) {
    if (typeof value !== "string" || value.length === 0) return method + ": " + name + " must be a non-empty string, got " + describeValue(value);
    return textProblem(method, name, value);
  }

  /** Whole numbers that a u64 holds exactly: JavaScript's safe integers, within [minimum, maximum]. */
  function wholeNumberProblem(method, name, value, minimum, maximum) {
    if (value === undefined) return null;
    if (isSafeInteger(value) && value >= minimum && value <= maximum && !(value === 0 && 1 / value < 0)) return null;
    return method + ": " + name + " must be a whole number from " + minimum + " to " + maximum + ", got " + describeValue(value);
  }

  /** The options argument's fields, each read once (a getter could answer differently twice). */
  function optionsOf(options, names) {
    const found = {};
    if (options === undefined || options === null) return { found, problem: null };
    if (typeof options !== "object") return { found, problem: "options must be an object, got " + describeValue(options) };
    for (let index = 0; index < names.length; index += 1) {
      const field = read(options, names[index]);
      if (field.failed) return { found, problem: "reading options." + names[index] + " threw" };
      found[names[index]] = field.value;
    }
    return { found, problem: null };
  }

  const CAS_OPTIONS = ["version", "ttlMs"];
  const DELETE_OPTIONS = ["version"];

  function makeStore(process) {
    return {
      get(key) {
        const problem = stringProblem("get", "key", key);
        return problem === null ? storeCall(process, CALLS.get(key)) : refuse(problem);
      },
      compareAndSwap(key, nextValue, currentValue, options) {
        const { found, problem: optionsProblem } = optionsOf(options, CAS_OPTIONS);
        const { version, ttlMs } = found;
        const problem =
          (optionsProblem === null ? null : "compareAndSwap: " + optionsProblem) ??
          stringProblem("compareAndSwap", "key", key) ??
          (typeof nextValue === "string" ? textProblem("compareAndSwap", "nextValue", nextValue) : "compareAndSwap: nextValue must be a string, got " + describeValue(nextValue)) ??
          (currentValue === null
            ? null
            : typeof currentValue === "string"
              ? textProblem("compareAndSwap", "currentValue", currentValue)
              : "compareAndSwap: currentValue must be a string, or null for \"the key must be absent\"; got " + describeValue(currentValue)) ??
          wholeNumberProblem("compareAndSwap", "version", version, 0, Number.MAX_SAFE_INTEGER) ??
          wholeNumberProblem("compareAndSwap", "ttlMs", ttlMs, 1, MS_MAX);
        return problem === null ? storeCall(process, CALLS.cas(key, nextValue, currentValue, version, ttlMs)) : refuse(problem);
      },
      delete(key, options) {
        const { found, problem: optionsProblem } = optionsOf(options, DELETE_OPTIONS);
        const { version } = found;
        const problem =
          (optionsProblem === null ? null : "delete: " + optionsProblem) ??
          stringProblem("delete", "key", key) ??
          wholeNumberProblem("delete", "version", version, 0, Number.MAX_SAFE_INTEGER);
        return problem === null ? storeCall(process, CALLS.delete(key, version)) : refuse(problem);
      },
      watch(key, afterVersion) {
        const problem =
          stringProblem("watch", "key", key) ??
          (afterVersion === undefined
            ? "watch: afterVersion must be a whole number (a version you read), got undefined"
            : wholeNumberProblem("watch", "afterVersion", afterVersion, 0, Number.MAX_SAFE_INTEGER));
        return problem === null ? storeCall(process, CALLS.watch(key, afterVersion)) : refuse(problem);
      },
      list(prefix) {
        const problem = stringProblem("list", "prefix", prefix);
        return problem === null ? storeCall(process, CALLS.list(prefix)) : refuse(problem);
      },
    };
  }

  /**
   * `ctx.sleep(ms)`: a fraction of a millisecond (`ttlMs / 5` …) is rounded
   * up, so a sleep never ends early and the kernel only sees whole
   * milliseconds, as the Rust host's `Ctx::sleep(u64)` does.
   */
  function sleepOf(process) {
    return (ms) => {
      const whole = typeof ms === "number" && ms > 0 && ms <= MS_MAX ? ceil(ms) : ms;
      const problem = whole === undefined ? "sleep: ms must be a number of milliseconds, got undefined" : wholeNumberProblem("sleep", "ms", whole, 0, MS_MAX);
      return problem === null ? storeCall(process, CALLS.sleep(whole)) : refuse(problem);
    };
  }

  function makeCtx(process) {
    return harden({
      name: "p" + (process + 1),
      now: () => localNowOf(process),
      sleep: sleepOf(process),
      store: makeStore(process),
    });
  }

  /**
   * Each process's ctx, made once: by `prepare` before the sandbox is sealed
   * (so every run starts with them), else by the first run that needs it.
   * A ctx is deeply frozen and holds nothing of a run's own: what it reads
   * (the clocks, the outbox, the pending calls) is the harness's state,
   * which every run starts afresh.
   */
  const ctxs = [];
  const ctxOf = (process) => (ctxs[process] ??= makeCtx(process));

  function note(process, value) {
    if (running.has(process)) noteJson(process, stringify(value));
  }

  /** `note`, for the notes written on every call or step, whose JSON is written out (see `CALLS`). */
  function noteJson(process, json) {
    if (running.has(process)) outbox.push("n" + process + "|" + json);
  }
  const KEY_JSON = stringify(storeKey);

  /** Calls one of the learner's functions, turning a throw into a failure. */
  async function callLearner(process, exports, name, args) {
    // `name` is the harness's own (one of the exercise's export names), but
    // quoted all the same: a line of the outbox is never learner-shaped.
    noteJson(process, '{"note":"calling","function":' + stringify(name) + "}");
    try {
      return await exports[name](...args);
    } catch (error) {
      if (interruptedBySandbox(error)) throw error;
      throw failure(describeThrown(name + "()", error));
    }
  }

  /** `{ version }` from a learner's result, read once; null if it is not one. */
  function versionOf(value) {
    if (value === null || typeof value !== "object") return null;
    const field = read(value, "version");
    return !field.failed && isSafeInteger(field.value) && field.value > 0 ? field.value : null;
  }

  // ---- the lock exercise (crates/grader/src/lock/harness.rs) ------------

  async function runLockScript(process, exports, ctx, script) {
    let held = null;
    for (let index = 0; index < script.length; index += 1) {
      const step = script[index];
      switch (step.step) {
        case "tryLock": {
          const result = await callLearner(process, exports, "tryLock", [ctx, storeKey, step.ttlMs]);
          const version = versionOf(result);
          if (result !== null && version === null) {
            throw failure("tryLock() returned " + describeValue(result) + "; expected { version } (the version of your successful compareAndSwap) or null");
          }
          held = version;
          note(process, held === null ? { note: "notAcquired", key: storeKey } : { note: "acquired", key: storeKey, version: held });
          break;
        }
        case "lock": {
          const result = await callLearner(process, exports, "lock", [ctx, storeKey, step.ttlMs]);
          const version = versionOf(result);
          if (version === null) {
            throw failure("lock() returned " + describeValue(result) + "; expected { version }, the version of your successful compareAndSwap");
          }
          held = version;
          note(process, { note: "acquired", key: storeKey, version: held });
          break;
        }
        case "hold":
          if (held !== null) await ctx.sleep(step.ms);
          break;
        case "unlock":
          if (held !== null) {
            const version = held;
            held = null;
            const ok = await callLearner(process, exports, "unlock", [ctx, storeKey, version]);
            if (typeof ok !== "boolean") {
              throw failure("unlock() returned " + describeValue(ok) + "; expected true (your lock was released) or false");
            }
            note(process, { note: "released", key: storeKey, version, ok });
          }
          break;
        case "sleep":
          await ctx.sleep(step.ms);
          break;
        default:
          throw failure("the harness does not know the step " + describeValue(step));
      }
    }
  }

  // ---- the lease exercise (crates/grader/src/lease/harness.rs) ----------

  /** A replica's ctx while it may lead: `ctx` and `work()` (made once per process, as `ctxOf`). */
  const leaderCtxs = [];
  function leaderCtxOf(process) {
    const ctx = ctxOf(process);
    return (leaderCtxs[process] ??= harden({
      name: ctx.name,
      now: ctx.now,
      sleep: ctx.sleep,
      store: ctx.store,
      work() {
        noteJson(process, '{"note":"work","key":' + KEY_JSON + "}");
        return ctx.sleep(workload.workMs);
      },
    }));
  }

  async function runReplica(process, exports, ctx) {
    const startMs = workload.startsMs[process] || 0;
    const leaderCtx = leaderCtxOf(process);
    if (startMs > 0) await ctx.sleep(startMs);
    for (;;) {
      const lease = await callLearner(process, exports, "campaign", [leaderCtx, storeKey, workload.ttlMs]);
      await callLearner(process, exports, "lead", [leaderCtx, storeKey, workload.ttlMs, lease]);
      note(process, { note: "stepped", key: storeKey });
    }
  }

  // ---- the fencing exercise (crates/grader/src/fencing/harness.rs) ------
  /** Request number → { owner, version }, as the leaders sent them. */
  const sent = new Map();

  async function runLeader(process, script) {
    const name = "p" + (process + 1);
    const call = (callJson) => storeCall(process, callJson);
    let holding = null;
    for (let index = 0; index < script.length; index += 1) {
      const step = script[index];
      switch (step.step) {
        case "acquire":
          for (;;) {
            const result = await call(CALLS.cas(storeKey, name, null, null, step.ttlMs));
            if (result.ok) {
              holding = result.version;
              note(process, { note: "acquired", key: storeKey, version: holding });
              break;
            }
            if (result.current !== null) await call(CALLS.watch(storeKey, result.current.version));
          }
          break;
        case "renew":
          if (holding !== null) {
            const result = await call(CALLS.cas(storeKey, name, name, holding, step.ttlMs));
            holding = result.ok ? result.version : null;
            if (holding !== null) note(process, { note: "acquired", key: storeKey, version: holding });
          }
          break;
        case "release":
          if (holding !== null) {
            const version = holding;
            holding = null;
            const result = await call(CALLS.delete(storeKey, version));
            note(process, { note: "released", key: storeKey, version, ok: result.ok });
          }
          break;
        case "send":
          if (holding !== null) {
            sent.set(step.request, { owner: name, version: holding });
            note(process, { note: "sent", requestId: "r" + step.request, owner: name, version: holding });
          }
          break;
        case "sleep":
          await call(CALLS.sleep(step.ms));
          break;
        default:
          throw failure("the harness does not know the step " + describeValue(step));
      }
    }
  }

  async function deliverRequest(process, exports, ctx, delivery) {
    await ctx.sleep(delivery.atMs);
    const stamp = sent.get(delivery.request);
    if (stamp === undefined) return;
    const id = "r" + delivery.request;
    const request = harden({ id, owner: stamp.owner, version: stamp.version, payload: "payload of " + id });
    try {
      const accepted = await callLearner(process, exports, "handleRequest", [ctx, storeKey, request]);
      if (typeof accepted !== "boolean") {
        throw failure("handleRequest() returned " + describeValue(accepted) + "; expected true (applied) or false (rejected)");
      }
      note(process, { note: "handled", requestId: id, owner: stamp.owner, version: stamp.version, accepted });
    } catch (error) {
      if (interruptedBySandbox(error)) return;
      note(process, { note: "failed", message: failures.has(error) ? error.message : describeThrown("the test", error) });
    }
  }

  /** The worker handles every delivery concurrently; resolves when all are done (no Promise.all, no iterators). */
  function deliverAll(process, exports, ctx) {
    const deliveries = workload.deliveries;
    return new Promise((resolve) => {
      let left = deliveries.length;
      if (left === 0) resolve();
      const done = () => {
        left -= 1;
        if (left === 0) resolve();
      };
      for (let index = 0; index < deliveries.length; index += 1) deliverRequest(process, exports, ctx, deliveries[index]).then(done, done);
    });
  }

  function runFencingProcess(process, exports, ctx) {
    if (process < workload.leaders.length) return runLeader(process, workload.leaders[process]);
    if (process === workload.leaders.length) return deliverAll(process, exports, ctx);
    return Promise.resolve();
  }

  // ---- the election exercise (crates/grader/src/election/harness.rs) ---
  const ELECTION_PREFIX = "election/";

  /** `{ key, version }` from campaign's result, each field read once; null if it is not one. */
  function leadershipOf(value) {
    const version = versionOf(value);
    if (version === null) return null;
    const key = read(value, "key");
    if (key.failed || typeof key.value !== "string" || key.value.length === 0 || textProblem("campaign", "key", key.value) !== null) return null;
    return { key: key.value, version };
  }

  async function runCandidate(process, exports, ctx, script) {
    let leading = null;
    for (let index = 0; index < script.length; index += 1) {
      const step = script[index];
      switch (step.step) {
        case "sleep":
          await ctx.sleep(step.ms);
          break;
        case "campaign": {
          const result = await callLearner(process, exports, "campaign", [ctx, ELECTION_PREFIX, step.ttlMs]);
          const leadership = leadershipOf(result);
          if (leadership === null) {
            throw failure("campaign() returned " + describeValue(result) + "; expected { key, version }: your own key and the version of the compareAndSwap that created it");
          }
          leading = leadership;
          note(process, { note: "elected", key: leadership.key, version: leadership.version });
          break;
        }
        case "lead":
          if (leading !== null) await ctx.sleep(step.ms);
          break;
        case "resign":
          if (leading !== null) {
            const { key, version } = leading;
            leading = null;
            const ok = await callLearner(process, exports, "resign", [ctx, harden({ key, version })]);
            if (typeof ok !== "boolean") {
              throw failure("resign() returned " + describeValue(ok) + "; expected true (your key was deleted) or false");
            }
            note(process, { note: "resigned", key, version, ok });
          }
          break;
        default:
          throw failure("the harness does not know the step " + describeValue(step));
      }
    }
  }

  const SCRIPT_RUNNERS = {
    lock: (process, exports, ctx) => runLockScript(process, exports, ctx, workload.scripts[process] || []),
    lease: runReplica,
    fencing: runFencingProcess,
    election: (process, exports, ctx) => runCandidate(process, exports, ctx, workload.scripts[process] || []),
  };

  const setClocks = (nowsText) => {
    if (nowsText === localNowsText) return;
    localNowsText = nowsText;
    localNows = null;
  };
  function localNowOf(process) {
    if (localNows === null) {
      const parts = localNowsText.split(",");
      localNows = [];
      for (let index = 0; index < parts.length; index += 1) localNows.push(+parts[index]);
    }
    return localNows[process];
  }

  return freeze({
    /** Makes the ctxs of `processes` processes ahead of the runs (see `ctxOf`). */
    prepare(processes) {
      for (let process = 0; process < processes; process += 1) {
        ctxOf(process);
        if (SCRIPT_RUNNERS[exercise] === runReplica) leaderCtxOf(process);
      }
    },
    /** Starts a run: its workload (JSON), before any process starts. */
    begin(workloadJson) {
      workload = parse(workloadJson);
    },
    /** Starts process `process` with its own instance of the learner's module. */
    start(process, exports, nowsText) {
      setClocks(nowsText);
      current = process;
      running.add(process);
      live.add(process);
      const run = SCRIPT_RUNNERS[exercise];
      const ctx = ctxOf(process);
      (async () => {
        try {
          await run(process, exports, ctx);
        } catch (error) {
          // A limit the sandbox hit: the host records it (and this process never finishes).
          if (interruptedBySandbox(error)) return;
          note(process, { note: "failed", message: failures.has(error) ? error.message : describeThrown("the test", error) });
        }
        if (running.delete(process)) outbox.push("f" + process + "|");
      })();
    },
    /** The process crashed: it never runs again. */
    crashed(process) {
      running.delete(process);
      live.delete(process);
    },
    /** The messages since the last flush, one line each (see `outbox`). */
    flush() {
      const text = outbox.join("\n");
      outbox = [];
      return text;
    },
    /**
     * Settles the promise of a call. One JSON text carries everything (one
     * value to cross the VM boundary, one parse inside it), made by the
     * simulation (crates/wasm/src/delivery.rs): `[call id, process, "<local
     * clocks, comma-separated>", how, value]`, where `value` is already what
     * the call answers (how 1), the message it rejects with (how 0), or
     * nothing (how 2: a sleep ended).
     */
    deliver(packed) {
      const delivery = parse(packed);
      const id = delivery[0];
      current = delivery[1];
      setClocks(delivery[2]);
      const waiter = pending.get(id);
      if (waiter === undefined) return;
      pending.delete(id);
      const how = delivery[3];
      if (how === 1) waiter.resolve(delivery[4]);
      else if (how === 2) waiter.resolve(undefined);
      else waiter.reject(new Error(how === 0 ? delivery[4] : "unknown delivery " + packed));
    },
  });
})
