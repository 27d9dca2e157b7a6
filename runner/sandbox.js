import { QUICKJS_MEMORY_MAXIMUM_BYTES, WASM_PAGE_BYTES } from "./engine.js";
import { lastNonZeroEnd } from "./memory-scan.js";
import { createVmBridge } from "./vm-bridge.js";

// The sandbox: a QuickJS runtime serving many runs of one submission, with
// limits, and a sealed global environment that holds nothing the learner's
// code may use to escape, to tamper with the harness, or to be
// non-deterministic (ARCHITECTURE.md, "The sandbox's threat model").
//
// - No Date (the context is created without it), Math.random throws, and
//   there is no setTimeout, fetch, process, require, file system or DOM:
//   QuickJS simply has none of them; no module can be imported.
// - Every intrinsic is frozen before the learner's code runs (see the prelude).
// - A deterministic step budget (QuickJS calls the interrupt handler every
//   few thousand operations; we count the calls), a job budget, a memory
//   limit (the QuickJS instance's fixed-size memory, see engine.js) and a
//   stack limit end runaway code with a named verdict; a wall-clock deadline
//   is the backstop, and the hard deadline outside the VM (limits.js) the
//   last resort.

/** The limits of one run. `stepBudget` is in interrupt-handler calls
 * (QuickJS calls the handler about every 10,000 operations); `jobBudget` is
 * in promise jobs run between two store replies (a passing solution runs a
 * few dozen; an `await` loop that never reaches the store runs them all). */
export const DEFAULT_LIMITS = Object.freeze({
  stepBudget: 300,
  stackBytes: 128 * 1024,
  wallMs: 5_000,
  jobBudget: 10_000,
  consoleLinesMax: 300,
  consoleLineCharsMax: 500,
});

// Runs in the VM before anything else: console, Math.random, total
// describers for learner values, and the sealed realm. It returns the tools
// the harness of each run is given (`setConsoleSink`, `describe`, `halt`,
// `isStopped`, …) and `inspect`, which the host uses to read a thrown value
// without running anything itself. The learner can reach none of them.
//
// The sealed realm: learner code runs in the same realm as the harness, so
// every object both can reach must be frozen, or the learner could change
// how the harness's own code behaves (an iterator's `next`, `Promise.all`, a
// setter on Object.prototype) and forge a pass, or carry state from one run
// or process to the next. Freezing starts from the global object and from
// the intrinsics that no global names (the iterator, generator and async
// prototypes, %TypedArray%, %ThrowTypeError%), and follows every property,
// accessor and prototype. Before that, a few properties of the prototypes
// become accessors whose setter defines an own property on the object
// assigned to, so that `this.name = "LockError"` in an Error subclass and
// `object.toString = …` still work once the prototypes are frozen (the
// "override mistake" of frozen intrinsics).
export const PRELUDE_SOURCE = `(function prelude(halt, isStopped, memoryFull, consoleLinesMax, consoleLineCharsMax, memoryReason, stackReason) {
  "use strict";
  const { freeze, getPrototypeOf, getOwnPropertyDescriptor, defineProperty } = Object;
  const { ownKeys, apply } = Reflect;
  const hasOwn = Object.prototype.hasOwnProperty;
  const { stringify } = JSON;
  const isError = (value) => { try { return value instanceof Error; } catch { return false; } };
  const isArray = Array.isArray;

  // ---- describing learner values, totally --------------------------------
  // Any learner value may be a Proxy whose traps throw, carry getters that
  // throw or recurse, or be nested too deep to stringify: every read is
  // guarded, and the text is bounded, single-line and well-formed (a lone
  // surrogate would make the host's JSON unreadable; a raw line break or a
  // terminal escape would let learner text forge lines of a report).
  const LONE_SURROGATE = /[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]/g;
  const UNSAFE = /[\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]/g;
  const ESCAPES = { "\\n": "\\\\n", "\\r": "\\\\r", "\\t": "\\\\t" };
  const hex4 = (code) => { const digits = code.toString(16); return "0000".slice(digits.length) + digits; };
  const safeText = (text, max) => {
    let out = typeof text === "string" ? text : "";
    let cut = false;
    if (out.length > max) { out = out.slice(0, max); cut = true; }
    out = out.replace(LONE_SURROGATE, "\\uFFFD").replace(UNSAFE, (c) => ESCAPES[c] || "\\\\u" + hex4(c.charCodeAt(0)));
    return cut ? out + "… (cut)" : out;
  };
  const guarded = (read, fallback) => { try { return read(); } catch { return fallback; } };
  // A preview of a learner value, JSON-like, written here rather than with
  // JSON.stringify: the engine's stringify recurses on the native stack, so
  // a value nested 100,000 deep would overflow it and take the whole engine
  // down. This one stops at a small depth, a few entries and max characters,
  // ignores toJSON, and reads each field under a guard.
  const PREVIEW_DEPTH_MAX = 4;
  const PREVIEW_ENTRIES_MAX = 20;
  const UNREADABLE = {};
  const keysOf = Object.keys;
  const preview = (value, max) => {
    let text = "";
    const put = (piece) => { if (text.length <= max) text += piece; };
    const walk = (item, depth) => {
      if (text.length > max) return;
      if (item === UNREADABLE) return put("(unreadable)");
      if (item === null) return put("null");
      switch (typeof item) {
        case "string": return put(stringify(item.length > max ? item.slice(0, max) : item));
        case "number": case "boolean": return put(String(item));
        case "bigint": return put(String(item) + "n");
        case "undefined": return put("undefined");
        case "symbol": return put(guarded(() => item.toString(), "a symbol"));
        case "function": return put("[function " + guarded(() => String(item.name), "") + "]");
        default: break;
      }
      if (isError(item)) return put(guarded(() => String(item.name), "Error") + ": " + guarded(() => String(item.message), ""));
      const array = guarded(() => isArray(item), false);
      if (depth >= PREVIEW_DEPTH_MAX) return put(array ? "[…]" : "{…}");
      put(array ? "[" : "{");
      if (array) {
        const length = guarded(() => item.length, 0);
        for (let index = 0; index < length && index < PREVIEW_ENTRIES_MAX && text.length <= max; index += 1) {
          if (index > 0) put(",");
          walk(guarded(() => item[index], UNREADABLE), depth + 1);
        }
        if (length > PREVIEW_ENTRIES_MAX) put(",…");
      } else {
        const keys = guarded(() => keysOf(item), null);
        if (keys === null) put("…");
        for (let index = 0; keys !== null && index < keys.length && index < PREVIEW_ENTRIES_MAX && text.length <= max; index += 1) {
          if (index > 0) put(",");
          put(stringify(String(keys[index])) + ":");
          walk(guarded(() => item[keys[index]], UNREADABLE), depth + 1);
        }
        if (keys !== null && keys.length > PREVIEW_ENTRIES_MAX) put(",…");
      }
      put(array ? "]" : "}");
    };
    walk(value, 0);
    return text;
  };
  const describe = (value, max) => guarded(() => (typeof value === "string" ? value : preview(value, max)), "a value that could not be described");
  /** For console lines: strings as they are. */
  const describeSafe = (value, max) => safeText(describe(value, max), max);
  /** For sentences about a value: strings quoted, so "null" and null differ. */
  const describeQuoted = (value, max) => safeText(guarded(() => preview(value, max), "a value that could not be described"), max);
  // The engine's own String.prototype.isWellFormed where it has one (taken
  // before the realm is frozen; a regular expression costs the harness about
  // a microsecond per string, and every store call checks up to three).
  const LONE_SURROGATE_ONE = /[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]/;
  const nativeIsWellFormed = typeof "".isWellFormed === "function" ? Function.prototype.call.bind(String.prototype.isWellFormed) : null;
  const isWellFormed = (text) => typeof text === "string" && (nativeIsWellFormed === null ? !LONE_SURROGATE_ONE.test(text) : nativeIsWellFormed(text));

  /** Reads one field of a learner value, once; a getter or Proxy trap that throws gives failed. */
  const read = (value, key) => {
    try {
      return { value: value[key], failed: false };
    } catch {
      return { value: undefined, failed: true };
    }
  };

  /** " (at lock.js:12:5)", from a stack (made safe), if the learner's file is in it. */
  const locationIn = (stack, fileName) => {
    const at = stack.indexOf(fileName + ":");
    if (at < 0) return "";
    const match = /^[^\\s)|]+:\\d+(:\\d+)?/.exec(stack.slice(at));
    return match ? " (at " + match[0] + ")" : "";
  };

  /**
   * "lock() threw TypeError: … (at lock.js:3:5)", for any thrown value,
   * however hostile; the engine's own out-of-memory and stack errors are
   * named as the limits they are, and so is anything else thrown in a run
   * whose memory hit the cap: out of memory, QuickJS may throw null (it
   * could not allocate its error) or a value of its own whose typeof is
   * "unknown" (String.prototype.normalize does), which no learner can make.
   */
  const describeThrown = (what, error, fileName) => {
    if (isError(error)) {
      const name = read(error, "name").value;
      const message = read(error, "message").value;
      const stack = read(error, "stack").value;
      const nameText = safeText(typeof name === "string" ? name : "Error", 100);
      const messageText = safeText(typeof message === "string" ? message : describeQuoted(message, 200), 500);
      if (nameText === "InternalError" && messageText === "out of memory") return what + " " + memoryReason;
      // QuickJS says "InternalError: stack overflow"; QuickJS-ng (the engine) "RangeError: Maximum call stack size exceeded".
      if ((nameText === "InternalError" && /stack overflow/.test(messageText)) || (nameText === "RangeError" && messageText === "Maximum call stack size exceeded")) return what + " " + stackReason;
      const where = typeof fileName === "string" && typeof stack === "string" ? locationIn(safeText(stack, 2000), fileName) : "";
      return what + " threw " + nameText + ": " + messageText + where;
    }
    if (memoryFull()) return what + " " + memoryReason;
    return what + " threw " + describeQuoted(error, 80) + ", which is not an Error; throw new Error(\\"…\\") so the message and the line can be shown";
  };

  /** A thrown value, for the host: JSON text, never an exception. */
  const inspect = (value) => {
    try {
      if (isError(value)) {
        return stringify({
          error: true,
          name: safeText(guarded(() => String(value.name), "Error"), 200),
          message: safeText(guarded(() => String(value.message), ""), 1000),
          stack: safeText(guarded(() => { const stack = value.stack; return typeof stack === "string" ? stack.replace(/\\n/g, " | ") : ""; }, ""), 2000),
        });
      }
      return stringify({ error: false, text: describeQuoted(value, 200) });
    } catch {
      return '{"error":false,"text":"a value that could not be described"}';
    }
  };

  // ---- console ----------------------------------------------------------
  // The harness of each run sets where console lines go.
  let sink = () => {};
  const log = (...values) => {
    let text = "";
    for (let index = 0; index < values.length && text.length <= consoleLineCharsMax; index += 1) text += (index > 0 ? " " : "") + describeSafe(values[index], consoleLineCharsMax);
    sink(safeText(text, consoleLineCharsMax));
  };
  defineProperty(globalThis, "console", {
    value: freeze({ log, info: log, warn: log, error: log, debug: log }),
    writable: false, enumerable: false, configurable: false,
  });
  Math.random = () => { throw new Error("Math.random() is not available: the simulation must be deterministic. Use the values the test gives you."); };
  /** Deletes the own properties "keys" of "owner"; one it does not have (or an undefined key: a symbol this engine lacks) is skipped. */
  const drop = (owner, keys) => {
    for (const key of keys) if (key !== undefined && apply(hasOwn, owner, [key])) delete owner[key];
  };
  // Garbage collection is not deterministic across engines: nothing may observe it.
  drop(globalThis, ["WeakRef", "FinalizationRegistry"]);
  // QuickJS-ng (the engine) has these and QuickJS (lab mode's runner) does
  // not: code that uses one would run when graded and fail in lab mode, so
  // neither realm has them.
  drop(globalThis, ["queueMicrotask", "DisposableStack", "AsyncDisposableStack", "SuppressedError"]);
  // QuickJS-ng's V8-style stack-trace API (the engine has it, lab mode's
  // QuickJS does not). Error.prepareStackTrace and Error.stackTraceLimit are
  // accessors whose setters write state the whole realm shares, so freezing
  // Error does not stop them: a prepareStackTrace is handed every frame's
  // function, the harness's own included (which a learner could call to
  // forge a pass), and either one carries state from one process of a run
  // to another. Error.captureStackTrace goes too, so that both realms have
  // the same Error. tests/sandbox-realm.node.test.mjs holds the setters a
  // learner can reach to those that write only to their receiver.
  drop(Error, ["prepareStackTrace", "stackTraceLimit", "captureStackTrace"]);
  // The same for methods: QuickJS-ng's newer ones (and one of QuickJS's that
  // no standard has, Set.groupBy), so that both realms have the same
  // built-ins, property by property (tests/sandbox-realm.node.test.mjs).
  // Symbol.dispose and Symbol.asyncDispose cannot be deleted (well-known
  // symbols are not configurable); the methods keyed by them go.
  const iteratorPrototype = getPrototypeOf(getPrototypeOf([][Symbol.iterator]()));
  // An async generator object, its function's prototype, %AsyncGeneratorPrototype%, then %AsyncIteratorPrototype%.
  const asyncIteratorPrototype = getPrototypeOf(getPrototypeOf(getPrototypeOf((async function* () {})())));
  drop(Array, ["fromAsync"]);
  drop(Set, ["groupBy"]);
  drop(JSON, ["rawJSON", "isRawJSON"]);
  drop(Uint8Array, ["fromBase64", "fromHex"]);
  drop(Uint8Array.prototype, ["toBase64", "toHex", "setFromBase64", "setFromHex"]);
  drop(ArrayBuffer.prototype, ["immutable", "sliceToImmutable", "transferToImmutable"]);
  if (typeof Iterator === "function") drop(Iterator, ["zip", "zipKeyed"]);
  drop(iteratorPrototype, ["chunks", "windows", "includes", "join", Symbol.dispose]);
  drop(asyncIteratorPrototype, [Symbol.asyncDispose]);

  // ---- the override mistake ---------------------------------------------
  const tame = (proto, keys) => {
    for (const key of keys) {
      const descriptor = getOwnPropertyDescriptor(proto, key);
      if (!descriptor || !("value" in descriptor) || !descriptor.writable || !descriptor.configurable) continue;
      const value = descriptor.value;
      defineProperty(proto, key, {
        get() { return value; },
        set(next) {
          if (this === proto) throw new TypeError("Cannot assign to " + String(key) + ": the built-ins are frozen");
          if (apply(hasOwn, this, [key])) { this[key] = next; return; }
          defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
        },
        enumerable: descriptor.enumerable,
        configurable: false,
      });
    }
  };
  tame(Object.prototype, ["toString", "toLocaleString", "valueOf", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"]);
  tame(Function.prototype, ["toString", "constructor", "call", "apply", "bind"]);
  tame(Array.prototype, ["toString", "constructor"]);
  tame(Promise.prototype, ["constructor"]);
  for (const ErrorType of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError, typeof AggregateError === "function" ? AggregateError : Error, typeof InternalError === "function" ? InternalError : Error]) {
    tame(ErrorType.prototype, ["name", "message", "constructor", "toString"]);
  }

  // ---- freeze every intrinsic, by every path ------------------------------
  const hidden = [
    getPrototypeOf([][Symbol.iterator]()),
    getPrototypeOf(new Map()[Symbol.iterator]()),
    getPrototypeOf(new Set()[Symbol.iterator]()),
    getPrototypeOf(""[Symbol.iterator]()),
    getPrototypeOf(/a/[Symbol.matchAll]("a")),
    getPrototypeOf(function* () {}),
    getPrototypeOf(async function () {}),
    getPrototypeOf(async function* () {}),
    getPrototypeOf(Int8Array),
    getOwnPropertyDescriptor((function () { return arguments; })(), "callee"),
  ];
  // Iterator helpers, where the engine has them: what [].values().map() and
  // Iterator.from() return have prototypes of their own that no global names.
  if (typeof [].values().map === "function") hidden.push(getPrototypeOf([].values().map((x) => x)));
  if (typeof Iterator === "function" && typeof Iterator.from === "function") hidden.push(getPrototypeOf(Iterator.from({ next: () => ({ done: true }) })));
  const seen = new Set();
  const queue = [globalThis, ...hidden];
  while (queue.length > 0) {
    const value = queue.pop();
    if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
    seen.add(value);
    freeze(value);
    for (const key of ownKeys(value)) {
      const descriptor = getOwnPropertyDescriptor(value, key);
      if (!descriptor) continue;
      if ("value" in descriptor) queue.push(descriptor.value);
      if (descriptor.get) queue.push(descriptor.get);
      if (descriptor.set) queue.push(descriptor.set);
    }
    queue.push(getPrototypeOf(value));
  }
  // What the harness of every run may use (the host passes it in; the
  // learner's code never sees it).
  return freeze({
    setConsoleSink: (next) => { sink = next; },
    inspect,
    describe: describeQuoted,
    describeThrown,
    read,
    safeText,
    isWellFormed,
    halt,
    isStopped,
    consoleLinesMax,
  });
})`;

/**
 * How much of the engine's stack (below its top) a run's restore puts back.
 * QuickJS stops the learner's code when its stack use passes the runtime's
 * limit (`stackBytes`, 128 KiB); the engine's own C code beyond that limit
 * (a built-in called at the limit, a host callback) uses a few KiB more.
 * The stack below this window is never reached by a run (see
 * BENCHMARKS.md: the deepest run of the hostile corpus), so it is not copied.
 */
export const STACK_WINDOW_BYTES = 512 * 1024;

/** Statics that follow the data segments (zero-initialised) fit in this slack. */
const STATICS_SLACK_BYTES = 64 * 1024;

/**
 * The engine's memory as it is now, for `restoreMemory`: the regions a run
 * can write, as copies. Without a layout (or with one that does not look as
 * expected), the whole used memory is one region. Only the used part is
 * kept: in a fresh instance everything above the last non-zero byte is
 * untouched heap, and the allocator gives nothing out of it without writing
 * it. With a layout, the stack below `STACK_WINDOW_BYTES` is left out: the
 * static data and its zero-initialised statics (up to `dataEnd` plus a
 * slack), the top of the stack, and the heap above it are kept, in two
 * regions; the part left out must be all zeros now (nothing ran there).
 */
export function sealMemory(memory, layout) {
  const usedEnd = lastNonZeroEnd(memory, 0, memory.buffer.byteLength);
  const used = Math.min(memory.buffer.byteLength, Math.ceil(usedEnd / WASM_PAGE_BYTES + 1) * WASM_PAGE_BYTES);
  // Copied only when it is the answer: the copy of megabytes costs more than the scans.
  const whole = () => [{ start: 0, bytes: new Uint8Array(memory.buffer, 0, used).slice() }];
  if (layout === null) return whole();
  const staticsEnd = Math.ceil((layout.dataEnd + STATICS_SLACK_BYTES) / WASM_PAGE_BYTES) * WASM_PAGE_BYTES;
  const windowStart = Math.floor((layout.stackTop - STACK_WINDOW_BYTES) / WASM_PAGE_BYTES) * WASM_PAGE_BYTES;
  if (!(staticsEnd < windowStart && windowStart < used)) return whole();
  if (lastNonZeroEnd(memory, staticsEnd, windowStart) !== staticsEnd) return whole();
  return [
    { start: 0, bytes: new Uint8Array(memory.buffer, 0, staticsEnd).slice() },
    { start: windowStart, bytes: new Uint8Array(memory.buffer, windowStart, used - windowStart).slice() },
  ];
}

/** Puts back the regions `sealMemory` copied. */
export function restoreMemory(memory, regions) {
  const bytes = new Uint8Array(memory.buffer);
  for (let index = 0; index < regions.length; index += 1) bytes.set(regions[index].bytes, regions[index].start);
}

/** Jobs run per crossing into the VM: the budget and the clock are checked between batches. */
const JOBS_PER_BATCH = 1_000;

const MEBIBYTE = 1024 * 1024;

/** The learner-facing words for each limit, in one place. */
export const STOP_REASONS = Object.freeze({
  steps: (limits) => `kept running without waiting for the store (more than ${limits.stepBudget * 10_000} steps in one go): an infinite loop?`,
  jobs: (limits) => `kept running without waiting for the store: it ran more than ${limits.jobBudget} promise jobs (awaits of values that were already settled) in a row; does a loop await something other than a store call or ctx.sleep?`,
  wall: (limits) => `ran for more than ${limits.wallMs / 1000} s of real time in one test run`,
  memory: () => `used more than ${QUICKJS_MEMORY_MAXIMUM_BYTES / MEBIBYTE} MiB of memory: does something keep growing (an array, a string, a Map)?`,
  stack: () => "recursed too deeply, or built a value nested too deeply (stack overflow): does a function call itself with no case that stops it?",
});

/**
 * A sandbox. Setting one up (freezing every built-in) costs a few
 * milliseconds, so the runner reuses it for many runs of one submission:
 * `beginRun()` resets the step and job budgets, the deadline and the stop
 * reason. Each run still gets fresh instances of the learner's module, and
 * since the realm is sealed, no state can leak from one run to the next.
 * Call `release()` when done: a sandbox that ran cleanly is freed, one that
 * was stopped is dropped with its QuickJS instance (see engine.js).
 */
export function createSandbox(pool, { limits = DEFAULT_LIMITS, realNow = () => performance.now(), fresh = false } = {}) {
  // Console line limits are counted by the harness, in the outbox's order.
  // Memory is bounded by the QuickJS instance's own wasm memory (engine.js).
  const instance = fresh && pool.takeFresh ? pool.takeFresh() : pool.take();
  /** `{ memory, failedGrows }` (engine.js), or null where the pool does not say. */
  const watched = pool.memoryOf?.(instance) ?? null;
  const runtime = instance.newRuntime();
  runtime.setMaxStackSize(limits.stackBytes);
  // No module can be imported, not even the learner's own file: every name
  // resolves to one no module has, so `import("lock.js")` cannot hand one
  // process (or run) the module instance of another.
  runtime.setModuleLoader(
    () => ({ error: new Error("imports are not available: a solution is one file, and everything it needs arrives through ctx (cannot load module)") }),
    () => "(no module can be imported)",
  );
  let interrupts = 0;
  let jobs = 0;
  let stopped = null;
  /** The QuickJS instance failed underneath (an abort): nothing more may run in it. */
  let broken = false;
  let deadline = realNow() + limits.wallMs;
  /** Failed attempts to grow the memory before this run: more now means the run hit the cap. */
  let failedGrowsBefore = watched?.failedGrows ?? 0;
  /**
   * The run wanted more memory than the cap allows. Counted by the memory
   * itself (engine.js), so it also catches a bomb whose out-of-memory error
   * vanished into a rejected promise, a `catch`, or a thrown null.
   */
  const memoryExhausted = () => watched !== null && watched.failedGrows > failedGrowsBefore;
  /** The memory as it was once the sandbox was ready (see `seal`), or null. */
  let sealed = null;
  runtime.setInterruptHandler(() => {
    interrupts += 1;
    if (stopped) return true;
    if (interrupts > limits.stepBudget) {
      stopped = STOP_REASONS.steps(limits);
      return true;
    }
    // The backstop: never used by well-behaved runs, so it cannot change a verdict that the budget decides.
    if ((interrupts & 15) === 0 && realNow() > deadline) {
      stopped = STOP_REASONS.wall(limits);
      return true;
    }
    return false;
  });
  const vm = runtime.newContext({ intrinsics: { BaseObjects: true, Eval: true, StringNormalize: true, RegExp: true, JSON: true, Proxy: true, MapSet: true, TypedArrays: true, Promise: true, Date: false } });

  // The harness calls `halt` when it ends a run itself (console flood), so
  // the learner's code is interrupted at once instead of running on unheard;
  // it asks `isStopped` to tell the sandbox's own interrupt from an error the
  // learner made up to look like one.
  const halt = vm.newFunction("halt", (reason) => {
    stopped ??= vm.getString(reason);
    return vm.undefined;
  });
  const isStopped = vm.newFunction("isStopped", () => (stopped ? vm.true : vm.false));
  // Out of memory, QuickJS may throw null (it could not even allocate its
  // error) or a value of its own: the harness asks this before calling a
  // thrown value that is not an Error a mistake.
  const memoryFull = vm.newFunction("memoryFull", () => (memoryExhausted() ? vm.true : vm.false));
  const prelude = vm.unwrapResult(vm.evalCode(PRELUDE_SOURCE, "prelude.js"));
  const preludeArgs = [halt, isStopped, memoryFull, vm.newNumber(limits.consoleLinesMax), vm.newNumber(limits.consoleLineCharsMax), vm.newString(STOP_REASONS.memory()), vm.newString(STOP_REASONS.stack())];
  const tools = vm.unwrapResult(vm.callFunction(prelude, vm.undefined, ...preludeArgs));
  for (const handle of [prelude, ...preludeArgs]) handle.dispose();
  const inspect = vm.getProp(tools, "inspect");
  const bridge = createVmBridge(vm, runtime);

  const sandbox = {
    vm,
    runtime,
    /** The tools every run's harness is given (see the prelude). */
    tools,
    /** `vm.callFunction(fn, thisHandle, ...args)`, for the calls made on every step (see vm-bridge.js). */
    call: (fn, thisHandle, args) => bridge.call(fn, thisHandle, args),
    /** `vm.newString(text)`, for the text handed over on every run and step (see vm-bridge.js). */
    newString: (text) => bridge.newString(text),
    /**
     * Takes a copy of the engine's memory now, when the realm is sealed and
     * the harness loaded: every run then starts from exactly these bytes
     * (`beginRun`), so nothing one run did (objects it leaked, a heap it
     * filled, an interrupted job, the allocator's free lists) can be seen by
     * the next, a run's replay is byte for byte the same run, and memory
     * stays flat over any number of runs. Only what a run can write is
     * kept (see `sealMemory`).
     */
    seal() {
      if (watched === null || broken) return;
      sealed = sealMemory(watched.memory, watched.layout ?? null);
    },
    /** True when runs start from the sealed memory (so a stop leaves nothing behind). */
    get restores() {
      return sealed !== null;
    },
    /** Starts a run: the sealed memory back, fresh budgets and deadline. */
    beginRun() {
      if (sealed !== null && !broken) restoreMemory(watched.memory, sealed);
      interrupts = 0;
      jobs = 0;
      stopped = null;
      failedGrowsBefore = watched?.failedGrows ?? 0;
      deadline = realNow() + limits.wallMs;
    },
    /**
     * The wall-clock backstop counts from now. For lab mode, whose code waits
     * for a real etcd between its steps: each step gets the whole backstop,
     * as a simulated run (which never waits in real time) gets it once.
     */
    restartClock() {
      deadline = realNow() + limits.wallMs;
    },
    /** The QuickJS instance failed underneath: nothing may run in it again. */
    get broken() {
      return broken;
    },
    /** Why the sandbox stopped the code, or null. */
    get stopped() {
      return stopped;
    },
    /** Marks the run as stopped (e.g. memory exhausted), keeping the first reason. */
    stop(reason) {
      stopped ??= reason;
    },
    /**
     * Calls into the VM through `call()`, which may throw if the QuickJS
     * instance itself fails (an abort, usually memory): that is the
     * submission's failure, never the grader's. Returns `call()`'s value, or
     * `fallback` after such a failure (the sandbox is then stopped and broken).
     */
    guard(call, fallback = null) {
      if (broken) return fallback;
      try {
        return call();
      } catch (error) {
        sandbox.breakDown(error);
        return fallback;
      }
    },
    /**
     * The QuickJS instance failed underneath (`error` came out of it): the
     * sandbox is stopped with the reason in the learner's terms and never
     * used again.
     */
    breakDown(error) {
      broken = true;
      const text = String(error?.message ?? error);
      // The engine's own stack ran out (freeing or copying a value nested
      // thousands deep), or its memory: both are the submission's doing.
      if (/call stack/i.test(text)) stopped ??= STOP_REASONS.stack();
      else if (/memory|abort|unreachable|out of bounds/i.test(text)) stopped ??= STOP_REASONS.memory();
      else stopped ??= `stopped the sandbox (${text.slice(0, 200)})`;
    },
    /**
     * A value the VM threw, described without running anything on the host:
     * `{ error: true, name, message, stack }` for an Error, else `{ error:
     * false, text }`, all text bounded, single-line and well-formed. A memory
     * or stack failure is named as such.
     */
    describeThrown(handle) {
      const json = sandbox.guard(() => {
        const result = vm.callFunction(inspect, vm.undefined, handle);
        if (result.error) {
          result.error.dispose();
          return null;
        }
        return result.value.consume((text) => vm.getString(text));
      });
      let info;
      try {
        info = json === null ? null : JSON.parse(json);
      } catch {
        info = null;
      }
      info ??= { error: false, text: "a value that could not be described" };
      const words = info.error ? `${info.name}: ${info.message}` : "";
      if (/out of memory/i.test(words) || (!info.error && memoryExhausted())) info.limit = STOP_REASONS.memory();
      else if (info.error && /stack overflow|too much recursion|maximum call stack/i.test(words)) info.limit = STOP_REASONS.stack();
      return info;
    },
    /** Runs queued promise jobs until none are left or the sandbox stops. */
    drainJobs() {
      // Batches of jobs, including the ones they queue; between batches the
      // job budget (an `await` loop runs jobs, not loop bytecodes) and the
      // clock are checked, and the step budget still stops a long job. One
      // drain is one step of the simulation: the job count starts again.
      // A batch that ran fewer jobs than it could left the queue empty, so
      // no crossing is spent asking whether a job is pending.
      jobs = 0;
      while (!stopped && !broken) {
        const result = sandbox.guard(() => bridge.executeJobs(JOBS_PER_BATCH));
        if (result === null) return;
        if (result.error) {
          const info = sandbox.describeThrown(result.error);
          result.error.dispose();
          stopped ??= info.limit ?? (info.error ? `${info.name}: ${info.message}` : `threw ${info.text}`);
          return;
        }
        jobs += result.value;
        if (jobs > limits.jobBudget) stopped ??= STOP_REASONS.jobs(limits);
        else if (realNow() > deadline) stopped ??= STOP_REASONS.wall(limits);
        if (result.value < JOBS_PER_BATCH) break;
      }
      if (memoryExhausted()) stopped ??= STOP_REASONS.memory();
    },
    /**
     * Frees the sandbox if it ran cleanly (or can be made clean by putting
     * its sealed memory back); otherwise drops it with its instance.
     * `owned` are the caller's handles made before `seal()`: they are freed
     * here, after the memory is put back (freeing them before would be undone).
     */
    release(owned = []) {
      const handles = [...owned, tools, inspect];
      // A sealed sandbox is clean again once its memory is put back.
      if (sealed !== null && !broken) {
        restoreMemory(watched.memory, sealed);
        stopped = null;
      }
      if (!stopped && !broken) {
        try {
          for (const handle of handles) if (handle.alive) handle.dispose();
          bridge.dispose();
          vm.dispose();
          runtime.dispose();
          return;
        } catch {
          // Freeing failed (objects leaked inside QuickJS): drop the instance instead.
        }
      }
      pool.discard?.(instance, { dead: broken });
    },
  };
  return sandbox;
}
