// The prelude: runs in the sandbox before anything else (crates/engine's
// `Sandbox`): console, Math.random, total describers for learner values,
// and the sealed realm. It returns the tools the harness of each run is
// given (`setConsoleSink`, `describe`, `halt`, `isStopped`, …) and
// `inspect`, which the host uses to read a thrown value without running
// anything itself. The learner can reach none of them.
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
(function prelude(halt, isStopped, memoryFull, beginStep, consoleLinesMax, consoleLineCharsMax, memoryReason, stackReason) {
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
  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
  const ESCAPES = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  const hex4 = (code) => { const digits = code.toString(16); return "0000".slice(digits.length) + digits; };
  const safeText = (text, max) => {
    let out = typeof text === "string" ? text : "";
    let cut = false;
    if (out.length > max) { out = out.slice(0, max); cut = true; }
    out = out.replace(LONE_SURROGATE, "\uFFFD").replace(UNSAFE, (c) => ESCAPES[c] || "\\u" + hex4(c.charCodeAt(0)));
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
  const LONE_SURROGATE_ONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
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
    const match = /^[^\s)|]+:\d+(:\d+)?/.exec(stack.slice(at));
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
      // QuickJS-ng's stack check throws "RangeError: Maximum call stack size exceeded" (older QuickJS, "InternalError: stack overflow").
      if ((nameText === "InternalError" && /stack overflow/.test(messageText)) || (nameText === "RangeError" && messageText === "Maximum call stack size exceeded")) return what + " " + stackReason;
      const where = typeof fileName === "string" && typeof stack === "string" ? locationIn(safeText(stack, 2000), fileName) : "";
      return what + " threw " + nameText + ": " + messageText + where;
    }
    if (memoryFull()) return what + " " + memoryReason;
    return what + " threw " + describeQuoted(error, 80) + ", which is not an Error; throw new Error(\"…\") so the message and the line can be shown";
  };

  /** A thrown value, for the host: JSON text, never an exception. */
  const inspect = (value) => {
    try {
      if (isError(value)) {
        return stringify({
          error: true,
          name: safeText(guarded(() => String(value.name), "Error"), 200),
          message: safeText(guarded(() => String(value.message), ""), 1000),
          stack: safeText(guarded(() => { const stack = value.stack; return typeof stack === "string" ? stack.replace(/\n/g, " | ") : ""; }, ""), 2000),
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

  // ---- iterator helpers: chains of bounded depth ------------------------
  // A helper's next() calls the next() of the iterator it wraps natively,
  // on a fast path with no stack check, so a chain thousands of helpers
  // deep would run past the engine's stack budget where nothing can stop it
  // with a verdict. A helper is therefore made at most HELPER_CHAIN_MAX
  // helpers above a plain iterator; one more is refused as a recursion too
  // deep, the verdict a chain that deep would earn.
  const HELPER_CHAIN_MAX = 400;
  const helperDepth = new WeakMap();
  for (const name of ["map", "filter", "take", "drop", "flatMap"]) {
    const original = iteratorPrototype[name];
    if (typeof original !== "function") continue;
    const helper = {
      [name](...args) {
        const depth = (helperDepth.get(this) ?? 0) + 1;
        if (depth > HELPER_CHAIN_MAX) throw new RangeError("Maximum call stack size exceeded");
        const made = apply(original, this, args);
        helperDepth.set(made, depth);
        return made;
      },
    }[name];
    defineProperty(helper, "length", { value: original.length });
    defineProperty(iteratorPrototype, name, { value: helper, writable: true, configurable: true, enumerable: false });
  }

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
    beginStep,
    consoleLinesMax,
  });
})
