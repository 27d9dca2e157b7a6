// The CAS playground's imperative shell: owns the wasm store, turns user
// events into store calls and actions, and renders the view from state.
import { h, replaceChildren, formatMs } from "../../dom.js";
import { initialState, parseCasForm, update } from "./state.js";

/** Real milliseconds between ticks while the clock plays, and virtual ms per tick. */
const PLAY_TICK_MS = 100;
const PLAY_STEP_MS = 100;
const CLOCK_STEPS_MS = [100, 1000, 5000];

let instanceCount = 0;

/**
 * Mounts the playground into `root`. `Store` is the wasm store class.
 * Returns `{ destroy }`.
 */
export function mountCasPlayground(root, { Store }) {
  const id = `cas${++instanceCount}`;
  let store = new Store();
  let state = { ...initialState(), snapshot: store.snapshot() };
  let playTimer = null;

  const dispatch = (action) => {
    state = update(state, action);
    render();
  };

  /** Runs a store call; a thrown message becomes a visible outcome, never a crash. */
  const guarded = (call) => {
    try {
      call();
    } catch (error) {
      dispatch({ type: "error", message: error instanceof Error ? error.message : String(error) });
    }
  };

  const submitCas = (event) => {
    event.preventDefault();
    const parsed = parseCasForm(state.form);
    if (parsed.errors) {
      dispatch({ type: "invalid", errors: parsed.errors });
      const firstBad = Object.keys(parsed.errors)[0];
      inputs[firstBad]?.focus();
      return;
    }
    const { request } = parsed;
    guarded(() => {
      const result = store.compareAndSwap(request.key, request.nextValue, request.expect, request.options);
      dispatch({ type: "cas-done", request, result, snapshot: store.snapshot() });
    });
  };

  const advance = (deltaMs, quiet = false) =>
    guarded(() => {
      const events = store.advanceBy(deltaMs);
      dispatch({ type: "advanced", deltaMs, events, snapshot: store.snapshot(), quiet });
    });

  const setPlaying = (playing) => {
    clearInterval(playTimer);
    playTimer = playing ? setInterval(() => advance(PLAY_STEP_MS, true), PLAY_TICK_MS) : null;
    dispatch({ type: "play", playing });
  };

  const deleteRecord = (record) =>
    guarded(() => {
      const result = store.delete(record.key, record.version);
      dispatch({ type: "delete-done", key: record.key, version: record.version, result, snapshot: store.snapshot() });
    });

  const reset = () => {
    setPlaying(false);
    store.free();
    store = new Store();
    dispatch({ type: "reset", snapshot: store.snapshot() });
  };

  // ---- the form: built once, kept in sync with state.form -------------
  const field = (name, label, attributes = {}, help = null) => {
    const input = h("input", {
      id: `${id}-${name}`,
      name,
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": `${id}-${name}-help ${id}-${name}-error`,
      oninput: (event) => dispatch({ type: "edit", field: name, value: event.target.value }),
      ...attributes,
    });
    const wrapper = h(
      "div",
      { class: "field" },
      h("label", { for: input.id }, label),
      input,
      h("small", { id: `${id}-${name}-help`, class: "help" }, help ?? ""),
      h("small", { id: `${id}-${name}-error`, class: "field-error", "aria-live": "polite" }),
    );
    return { input, wrapper };
  };

  const key = field("key", "Key");
  const nextValue = field("nextValue", "New value");
  const expectedValue = field("expectedValue", "Expected value");
  const expectedVersion = field("expectedVersion", "Expected version (optional)", { inputmode: "numeric" }, "The store-wide version of the key's last write.");
  const ttlMs = field("ttlMs", "TTL in ms (optional)", { inputmode: "numeric" }, "Empty: the key never expires.");
  const inputs = { key: key.input, nextValue: nextValue.input, expectedValue: expectedValue.input, expectedVersion: expectedVersion.input, ttlMs: ttlMs.input };

  const absentRadio = h("input", { type: "radio", name: `${id}-expect`, id: `${id}-expect-absent`, value: "absent", onchange: () => dispatch({ type: "edit", field: "expectAbsent", value: true }) });
  const valueRadio = h("input", { type: "radio", name: `${id}-expect`, id: `${id}-expect-value`, value: "value", onchange: () => dispatch({ type: "edit", field: "expectAbsent", value: false }) });

  const form = h(
    "form",
    { class: "cas-form", onsubmit: submitCas, novalidate: true },
    h("div", { class: "field-row" }, key.wrapper, nextValue.wrapper),
    h(
      "fieldset",
      { class: "expect" },
      h("legend", {}, "Expect the key to be"),
      h("div", { class: "radio" }, absentRadio, h("label", { for: absentRadio.id }, "absent (create it)")),
      h("div", { class: "radio" }, valueRadio, h("label", { for: valueRadio.id }, "holding a value")),
      h("div", { class: "field-row" }, expectedValue.wrapper, expectedVersion.wrapper),
    ),
    ttlMs.wrapper,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Compare and swap"), h("button", { type: "button", onclick: reset }, "Reset store")),
  );

  // ---- the dynamic parts ------------------------------------------------
  const outcome = h("p", { class: "outcome", role: "status", "aria-live": "polite" });
  const clockText = h("p", { class: "clock-text" });
  const playButton = h("button", { type: "button", "aria-pressed": "false", onclick: () => setPlaying(!state.playing) });
  const clock = h(
    "div",
    { class: "clock", role: "group", "aria-label": "Store clock" },
    clockText,
    h("div", { class: "actions" }, ...CLOCK_STEPS_MS.map((deltaMs) => h("button", { type: "button", onclick: () => advance(deltaMs) }, `+${formatMs(deltaMs)}`)), playButton),
  );
  const table = h("div", { class: "table-wrap" });
  const log = h("ol", { class: "log", "aria-labelledby": `${id}-history` });

  replaceChildren(
    root,
    h(
      "div",
      { class: "cas-playground" },
      h("div", { class: "pane" }, form, outcome),
      h("div", { class: "pane" }, clock, table, h("p", { class: "pane-title", id: `${id}-history` }, "History, newest first"), log),
    ),
  );

  function renderForm() {
    for (const [name, input] of Object.entries(inputs)) {
      if (input.value !== state.form[name]) input.value = state.form[name];
      const error = state.formErrors[name];
      input.setAttribute("aria-invalid", error ? "true" : "false");
      input.parentElement.querySelector(".field-error").textContent = error ?? "";
    }
    absentRadio.checked = state.form.expectAbsent;
    valueRadio.checked = !state.form.expectAbsent;
    expectedValue.input.disabled = state.form.expectAbsent;
    expectedVersion.input.disabled = state.form.expectAbsent;
  }

  function renderTable() {
    const { keys } = state.snapshot;
    if (keys.length === 0) {
      replaceChildren(table, h("p", { class: "pane-title" }, "Keys in the store"), h("p", { class: "empty" }, "The store is empty."));
      return;
    }
    const rows = keys.map((record) => {
      const ttlCell = record.ttlLeftMs === null
        ? "never expires"
        : h("span", { class: "ttl" }, h("meter", { min: 0, max: ttlOf(record), value: record.ttlLeftMs, "aria-hidden": "true" }), ` ${formatMs(record.ttlLeftMs)} left`);
      return h(
        "tr",
        { dataset: { key: record.key } },
        h("th", { scope: "row" }, h("code", {}, record.key)),
        h("td", { "data-label": "Value" }, h("code", {}, record.value)),
        h("td", { class: "num", "data-label": "Version" }, String(record.version)),
        h("td", { class: "num", "data-label": "Key version" }, String(record.keyVersion)),
        h("td", { "data-label": "TTL" }, ttlCell),
        h(
          "td",
          { class: "row-actions", "data-label": "Actions" },
          h("button", { type: "button", class: "small", onclick: () => dispatch({ type: "use-record", record }), "aria-label": `Expect ${record.key} as it is now` }, "Expect this"),
          h("button", { type: "button", class: "small", onclick: () => deleteRecord(record), "aria-label": `Delete ${record.key} if still at version ${record.version}` }, "Delete"),
        ),
      );
    });
    replaceChildren(
      table,
      h(
        "table",
        {},
        h("caption", { class: "pane-title" }, "Keys in the store"),
        h("thead", {}, h("tr", {}, ...["Key", "Value", "Version", "Key version", "TTL", "Actions"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, rows),
      ),
    );
  }

  /** The granted TTL of a key's lease, for the meter's scale. */
  function ttlOf(record) {
    const lease = state.snapshot.leases.find((candidate) => candidate.id === record.lease);
    return lease ? lease.grantedTtlMs : record.ttlLeftMs;
  }

  function render() {
    renderForm();
    outcome.className = `outcome ${state.outcome ? `tone-${state.outcome.tone}` : ""}`;
    outcome.textContent = state.outcome?.text ?? "Fill in the form and press Compare and swap.";
    clockText.replaceChildren(
      "Store time ",
      h("strong", { class: "now" }, formatMs(state.snapshot.nowMs)),
      " · revision ",
      h("strong", { class: "revision" }, String(state.snapshot.revision)),
    );
    playButton.textContent = state.playing ? "Pause clock" : "Run clock";
    playButton.setAttribute("aria-pressed", String(state.playing));
    renderTable();
    replaceChildren(log, state.log.length === 0 ? h("li", { class: "empty" }, "Nothing has happened yet.") : state.log.map((entry) => h("li", { class: `tone-${entry.tone}` }, entry.text)));
  }

  render();
  return {
    destroy() {
      clearInterval(playTimer);
      store.free();
      root.replaceChildren();
    },
  };
}

/** The widget registry's entry point (see web/src/main.js): the mount function. */
export const load = async () => mountCasPlayground;
