// The cas exercise's harness: the learner writes the store itself, so
// there is no simulation. This runs the test's operations against the
// learner's store and returns the recording, which the grader compares with
// the model's answers (crates/grader/src/cas/mod.rs, "The execution
// contract"). Evaluated as a script whose value is the function below.
(function casHarnessMain(namespace, opsJson, tools) {
  "use strict";
  const { stringify, parse } = JSON;
  const isSafeInteger = Number.isSafeInteger;
  const { describe, describeThrown, read, safeText, isWellFormed, halt, beginStep, consoleLinesMax } = tools;
  const ops = parse(opsJson);
  /** The store's own limit on values: a longer one cannot be an answer the test expects. */
  const VALUE_CHARS_MAX = 4096;
  const answers = [];
  const consoleLines = [];
  let failure = null;
  let current = 0;
  let lines = 0;
  tools.setConsoleSink((text) => {
    lines += 1;
    if (lines === consoleLinesMax + 1) {
      failure = "printed more than " + consoleLinesMax + " lines to the console";
      halt(failure);
    }
    if (lines > consoleLinesMax) return;
    consoleLines.push({ op: current, text });
  });

  /** A learner value in a sentence: bounded, single-line, never throws. */
  function describeValue(value) {
    return describe(value, 80);
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

  const isVersion = (value) => isSafeInteger(value) && value >= 0;
  /** A learner's record, each field read once, or a TypeError. */
  function record(value) {
    if (value === null) return null;
    if (typeof value !== "object") throw new TypeError("a record must be { value: string, version, keyVersion } (whole numbers) or null");
    const text = read(value, "value");
    const version = read(value, "version");
    const keyVersion = read(value, "keyVersion");
    if (text.failed || version.failed || keyVersion.failed || typeof text.value !== "string" || !isVersion(version.value) || !isVersion(keyVersion.value)) {
      throw new TypeError("a record must be { value: string, version, keyVersion } (whole numbers) or null");
    }
    if (text.value.length > VALUE_CHARS_MAX || !isWellFormed(text.value)) throw new TypeError("a record's value must be one the test wrote (well-formed text of at most " + VALUE_CHARS_MAX + " characters)");
    return { value: text.value, version: version.value, keyVersion: keyVersion.value };
  }

  /** The learner's own version in an earlier answer (see `answers::version_in`). */
  function versionIn(answer) {
    if (!answer) return null;
    if (answer.reply === "get") return answer.record === null ? null : answer.record.version;
    if (answer.reply === "cas") return answer.ok ? answer.version : answer.current === null ? null : answer.current.version;
    return null;
  }

  /**
   * A version no answer so far carries: 0, unless one carries 0; then one
   * more than the largest (crates/grader/src/cas/answers.rs, never_handed_out).
   */
  function neverHandedOut() {
    let zero = false;
    let largest = 0;
    for (let index = 0; index < answers.length; index += 1) {
      const version = versionIn(answers[index]);
      if (version === null) continue;
      if (version === 0) zero = true;
      if (version > largest) largest = version;
    }
    return zero ? largest + 1 : 0;
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
    return stringify({ answers, failure: "createStore(clock) returned " + describeValue(store) + "; expected an object with get, compareAndSwap and delete", console: consoleLines });
  }

  for (let index = 0; index < ops.length && failure === null; index += 1) {
    const op = ops[index];
    current = index;
    // Each call of the store is a step of its own, under a fresh step budget, as each reply is elsewhere.
    beginStep();
    if (op.op === "advance") {
      nowMs += op.ms;
      answers.push({ reply: "slept" });
      continue;
    }
    let version = null;
    if ((op.op === "cas" || op.op === "delete") && op.versionOf === "never") {
      version = neverHandedOut();
    } else if ((op.op === "cas" || op.op === "delete") && op.versionOf !== null) {
      version = versionIn(answers[op.versionOf]);
      if (version === null) break; // an earlier answer already differs; the checker reports it
    }
    // Written out only for a failure's message: most operations never need it.
    const call = () => describeCall(op, version);
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
      failure = describeThrown(call() + " at t=" + nowMs + " ms", error);
      break;
    }
    if (failure !== null) break;
    try {
      const isObject = result !== null && typeof result === "object";
      const field = (key) => {
        const found = read(result, key);
        if (found.failed) throw new TypeError("reading its " + key + " threw");
        return found.value;
      };
      if (isObject && typeof field("then") === "function") {
        throw new TypeError("it returned a Promise; the cas store is synchronous: return the answer itself");
      }
      if (op.op === "get") {
        answers.push({ reply: "get", record: record(result) });
      } else if (op.op === "delete") {
        const ok = isObject ? field("ok") : undefined;
        if (typeof ok !== "boolean") throw new TypeError("expected { ok: true } or { ok: false }");
        answers.push({ reply: "delete", ok });
      } else {
        const ok = isObject ? field("ok") : undefined;
        if (ok === true) {
          const resultVersion = field("version");
          if (!isVersion(resultVersion)) throw new TypeError("a successful compareAndSwap returns { ok: true, version } with a whole-number version");
          answers.push({ reply: "cas", ok: true, version: resultVersion, current: null });
        } else if (ok === false) {
          const currentRecord = field("current");
          answers.push({ reply: "cas", ok: false, version: null, current: record(currentRecord === undefined ? null : currentRecord) });
        } else {
          throw new TypeError("expected { ok: true, version } or { ok: false, current }");
        }
      }
    } catch (error) {
      failure = call() + " at t=" + nowMs + " ms returned " + describeValue(result) + ": " + safeText(read(error, "message").value, 300);
    }
  }
  return stringify({ answers, failure, console: consoleLines });
})
