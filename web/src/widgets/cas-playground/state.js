// The CAS playground's functional core: the form's parsing and a pure
// `update(state, action)`. The wasm store lives in the shell (view.js); it
// performs each request and reports the outcome back as an action, so
// everything shown is derived from `state`.

/** How many past events the log keeps; older ones scroll away. */
export const LOG_ENTRIES_MAX = 40;

export function initialState() {
  return {
    form: {
      key: "locks/leader",
      nextValue: "p1",
      expectAbsent: true,
      expectedValue: "",
      expectedVersion: "",
      ttlMs: "3000",
    },
    /** Field name → message, for fields the last submit rejected. */
    formErrors: {},
    /** The last answer: { tone: "ok" | "mismatch" | "error", text }. */
    outcome: null,
    /** The store as last read: { revision, nowMs, keys: [record…] }. */
    snapshot: { revision: 1, nowMs: 0, keys: [], leases: [], waitingWatchers: 0 },
    /** Newest first: { id, text, tone }. */
    log: [],
    nextLogId: 1,
    playing: false,
  };
}

function wholeNumber(text, { allowEmpty, min }) {
  const trimmed = text.trim();
  if (trimmed === "") return allowEmpty ? { value: undefined } : { error: "required" };
  if (!/^\d+$/.test(trimmed)) return { error: "a whole number" };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value) || value < min) return { error: `a whole number of at least ${min}` };
  return { value };
}

/**
 * Turns the form into a CAS request, or field errors that say what to type.
 * `{ request: { key, nextValue, expect: { value, version? }, options: { ttlMs? } } }`
 * or `{ errors: { field: message } }`.
 */
export function parseCasForm(form) {
  const errors = {};
  const key = form.key.trim();
  if (key === "") errors.key = "Enter a key, for example locks/leader.";
  // An absent key has no version, so the version only counts when a value is expected.
  const version = form.expectAbsent ? { value: undefined } : wholeNumber(form.expectedVersion, { allowEmpty: true, min: 1 });
  if (version.error) errors.expectedVersion = `Leave it empty or enter ${version.error}, such as 2.`;
  const ttl = wholeNumber(form.ttlMs, { allowEmpty: true, min: 1 });
  if (ttl.error) errors.ttlMs = `Leave it empty for no expiry, or enter ${ttl.error} of milliseconds, such as 3000.`;
  if (Object.keys(errors).length > 0) return { errors };
  const expect = { value: form.expectAbsent ? null : form.expectedValue };
  if (version.value !== undefined) expect.version = version.value;
  const options = ttl.value === undefined ? {} : { ttlMs: ttl.value };
  return { request: { key, nextValue: form.nextValue, expect, options } };
}

/** Describes what a CAS was asked to check, for the log. */
export function describeExpectation(expect) {
  const value = expect.value === null ? "absent" : `value = "${expect.value}"`;
  return expect.version === undefined ? value : `${value}, version = ${expect.version}`;
}

function withLog(state, entries) {
  let nextLogId = state.nextLogId;
  const fresh = entries.map((entry) => ({ id: nextLogId++, ...entry }));
  return { ...state, nextLogId, log: [...fresh.reverse(), ...state.log].slice(0, LOG_ENTRIES_MAX) };
}

function eventText(event) {
  switch (event.type) {
    case "expire":
      return `version ${event.version}: "${event.key}" expired at ${event.atMs} ms`;
    case "delete":
      return `version ${event.version}: "${event.key}" deleted`;
    default:
      return `version ${event.version}: "${event.key}" = "${event.value}"`;
  }
}

/** The pure transition function. */
export function update(state, action) {
  switch (action.type) {
    case "edit":
      return { ...state, form: { ...state.form, [action.field]: action.value }, formErrors: { ...state.formErrors, [action.field]: undefined } };
    case "invalid":
      return { ...state, formErrors: action.errors, outcome: { tone: "error", text: "Fix the highlighted fields, then try again." } };
    case "cas-done": {
      const { request, result, snapshot } = action;
      const asked = describeExpectation(request.expect);
      const outcome = result.ok
        ? { tone: "ok", text: `Swapped: "${request.key}" is now "${request.nextValue}" at version ${result.version}.` }
        : {
            tone: "mismatch",
            text: result.current === null
              ? `No change: expected ${asked}, but "${request.key}" does not exist.`
              : `No change: expected ${asked}, but "${request.key}" holds "${result.current.value}" at version ${result.current.version}.`,
          };
      const logged = result.ok
        ? { tone: "ok", text: `version ${result.version}: CAS "${request.key}" = "${request.nextValue}" (expected ${asked})` }
        : { tone: "mismatch", text: `CAS on "${request.key}" failed (expected ${asked}); the revision stays ${snapshot.revision}` };
      return withLog({ ...state, outcome, snapshot, formErrors: {} }, [logged]);
    }
    case "delete-done": {
      const { key, version, result, snapshot } = action;
      const outcome = result.ok
        ? { tone: "ok", text: `Deleted "${key}" (it was at version ${version}).` }
        : { tone: "mismatch", text: `No change: "${key}" is no longer at version ${version}.` };
      const logged = result.ok
        ? { tone: "ok", text: `version ${snapshot.revision}: "${key}" deleted` }
        : { tone: "mismatch", text: `delete of "${key}" at version ${version} failed` };
      return withLog({ ...state, outcome, snapshot }, [logged]);
    }
    case "advanced": {
      const { deltaMs, events, snapshot } = action;
      const entries = events.map((event) => ({ tone: "expire", text: eventText(event) }));
      const next = withLog({ ...state, snapshot }, entries);
      if (events.length === 0 || action.quiet) return next;
      return { ...next, outcome: { tone: "ok", text: `Clock +${deltaMs} ms: ${events.map(eventText).join("; ")}.` } };
    }
    case "use-record": {
      const record = action.record;
      return {
        ...state,
        form: { ...state.form, key: record.key, expectAbsent: false, expectedValue: record.value, expectedVersion: String(record.version) },
        formErrors: {},
      };
    }
    case "error":
      return { ...state, outcome: { tone: "error", text: action.message } };
    case "play":
      return { ...state, playing: action.playing };
    case "reset":
      return { ...initialState(), snapshot: action.snapshot };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}
