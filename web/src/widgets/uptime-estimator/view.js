// The uptime estimator's shell: builds the form once, dispatches edits, and
// renders the figures from state. Pure JavaScript: no wasm needed.
import { h, replaceChildren } from "../../dom.js";
import {
  DAY_SECONDS,
  DOWNTIME_UNITS,
  PERIODS,
  PRESETS,
  SOURCES,
  budgetPerDaySeconds,
  estimate,
  formatAvailability,
  formatDuration,
  initialState,
  ninesWords,
  update,
} from "./state.js";

/** The nines the scale shows, with the availability each stands for. */
const SCALE = [1, 2, 3, 4, 5, 6];

let instanceCount = 0;

/** Mounts the estimator into `root`. Returns `{ destroy }`. */
export function mountUptimeEstimator(root) {
  const id = `uptime${++instanceCount}`;
  let state = initialState();

  const dispatch = (action) => {
    state = update(state, action);
    render();
  };

  // ---- presets ------------------------------------------------------------
  const presetButtons = PRESETS.map((preset) =>
    h("button", { type: "button", class: "small", "aria-pressed": "false", onclick: () => dispatch({ type: "preset", preset: preset.id }) }, preset.label),
  );

  // ---- one fieldset per kind of failure ----------------------------------
  const rows = SOURCES.map((source) => {
    const base = `${id}-${source.id}`;
    const toggle = h("input", { type: "checkbox", id: `${base}-on`, onchange: (event) => dispatch({ type: "toggle", source: source.id, enabled: event.target.checked }) });
    const edit = (field) => (event) => dispatch({ type: "edit", source: source.id, field, value: event.target.value });
    const count = h("input", { id: `${base}-count`, class: "uptime-number", inputmode: "decimal", autocomplete: "off", "aria-labelledby": `${base}-name ${base}-count-label`, "aria-describedby": `${base}-error`, oninput: edit("count") });
    const per = h(
      "select",
      { id: `${base}-per`, "aria-labelledby": `${base}-name ${base}-per-label`, onchange: edit("per") },
      Object.keys(PERIODS).map((period) => h("option", { value: period }, period)),
    );
    const downtime = h("input", { id: `${base}-downtime`, class: "uptime-number", inputmode: "decimal", autocomplete: "off", "aria-labelledby": `${base}-name ${base}-downtime-label`, "aria-describedby": `${base}-error`, oninput: edit("downtime") });
    const unit = h(
      "select",
      { id: `${base}-unit`, "aria-labelledby": `${base}-name ${base}-unit-label`, onchange: edit("unit") },
      Object.keys(DOWNTIME_UNITS).map((name) => h("option", { value: name }, name)),
    );
    const error = h("p", { id: `${base}-error`, class: "uptime-error", "aria-live": "polite" });
    const fieldset = h(
      "fieldset",
      { class: "uptime-source" },
      h("legend", {}, toggle, h("label", { for: toggle.id, id: `${base}-name` }, source.label)),
      h(
        "div",
        { class: "uptime-sentence" },
        h("span", { id: `${base}-count-label` }, "happens"),
        count,
        h("span", { id: `${base}-per-label` }, "times a"),
        per,
        h("span", { id: `${base}-downtime-label` }, "and is down for"),
        downtime,
        h("span", { id: `${base}-unit-label`, class: "visually-hidden" }, "unit"),
        unit,
      ),
      error,
    );
    return { source, fieldset, toggle, count, per, downtime, unit, error };
  });

  // ---- results ------------------------------------------------------------
  const headline = h("p", { class: "uptime-headline", "aria-live": "polite", "aria-atomic": "true" });
  const downtimeLine = h("p", { class: "uptime-downtime" });
  const arithmetic = h("p", { class: "uptime-arithmetic" });
  const scale = h("ol", { class: "nines-scale", "aria-hidden": "true" });
  const legend = h("p", { class: "nines-legend" }, "Nines: 2 = 99 %, 3 = 99.9 %, 4 = 99.99 %. Each nine is ten times less downtime.");
  const budget = h("p", { class: "uptime-budget" });

  replaceChildren(
    root,
    h(
      "div",
      { class: "uptime-estimator" },
      h("div", { class: "uptime-presets", role: "group", "aria-labelledby": `${id}-presets` }, h("p", { id: `${id}-presets`, class: "uptime-presets-title" }, "Examples from the lesson"), ...presetButtons),
      h(
        "div",
        { class: "uptime-body" },
        h("form", { class: "uptime-form", novalidate: true, onsubmit: (event) => event.preventDefault() }, ...rows.map((row) => row.fieldset)),
        h("div", { class: "uptime-results" }, h("p", { class: "uptime-results-title", id: `${id}-results` }, "A single replica would be up"), headline, scale, legend, downtimeLine, arithmetic, budget),
      ),
    ),
  );

  function render() {
    const figures = estimate(state);
    PRESETS.forEach((preset, index) => presetButtons[index].setAttribute("aria-pressed", String(state.preset === preset.id)));
    for (const row of rows) {
      const input = state.sources[row.source.id];
      row.toggle.checked = input.enabled;
      for (const field of ["count", "per", "downtime", "unit"]) {
        if (row[field].value !== input[field]) row[field].value = input[field];
        row[field].disabled = !input.enabled;
      }
      row.fieldset.classList.toggle("is-off", !input.enabled);
      const countError = figures.errors[`${row.source.id}.count`];
      const downtimeError = figures.errors[`${row.source.id}.downtime`];
      row.count.setAttribute("aria-invalid", String(Boolean(countError)));
      row.downtime.setAttribute("aria-invalid", String(Boolean(downtimeError)));
      row.error.textContent = countError ? `How often: ${countError}` : downtimeError ? `How long: ${downtimeError}` : "";
    }
    renderResults(figures);
  }

  function renderResults(figures) {
    const { parts, downtimePerDaySeconds, availability, nines } = figures;
    if (parts.length === 0) {
      // Nothing counted: either every kind of failure is off, or those that are on have a field to fix.
      const invalid = Object.keys(figures.errors).length > 0;
      headline.replaceChildren(h("strong", { class: "uptime-figure" }, invalid ? "—" : "100 %"), h("span", { class: "uptime-nines" }, invalid ? " fix the marked field" : " nothing counted yet"));
      downtimeLine.textContent = invalid ? "A field above is not a number I can use; its message says what to enter." : "Switch on at least one kind of failure.";
      arithmetic.textContent = "";
      budget.textContent = "";
      renderScale(0);
      return;
    }
    headline.replaceChildren(h("strong", { class: "uptime-figure" }, formatAvailability(availability)), h("span", { class: "uptime-nines" }, ` ${ninesWords(nines)}`));
    if (downtimePerDaySeconds >= DAY_SECONDS) {
      downtimeLine.textContent = "That is a whole day of downtime or more every day: the service would never be up.";
    } else {
      downtimeLine.replaceChildren(
        "Down ",
        h("strong", {}, formatDuration(downtimePerDaySeconds)),
        " a day, ",
        formatDuration(Math.min(downtimePerDaySeconds * 30, 30 * DAY_SECONDS)),
        " a month, ",
        formatDuration(Math.min(downtimePerDaySeconds * 365, 365 * DAY_SECONDS)),
        " a year.",
      );
    }
    const terms = parts.map((part) => formatDuration(part.downtimePerDaySeconds));
    const sum = terms.length === 1 ? terms[0] : `(${terms.join(" + ")})`;
    arithmetic.replaceChildren(h("span", { class: "visually-hidden" }, "The arithmetic: "), `1 − ${sum} ÷ ${DAY_SECONDS.toLocaleString("en")} s = ${formatAvailability(availability)}`);
    const next = Number.isFinite(nines) ? nines + 1 : null;
    budget.textContent = next === null || next > 7
      ? ""
      : `${capitalize(ninesWords(next))} (${formatAvailability(1 - 10 ** -next)}) would allow at most ${formatDuration(budgetPerDaySeconds(next))} of downtime a day.`;
    renderScale(nines);
  }

  function renderScale(nines) {
    replaceChildren(
      scale,
      SCALE.map((step) => h("li", { class: step <= nines ? "is-reached" : "" }, h("span", { class: "nines-count" }, String(step)))),
    );
  }

  render();
  return {
    destroy() {
      root.replaceChildren();
    },
  };
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The widget registry's entry point (see web/src/main.js): the mount function. */
export const load = async () => mountUptimeEstimator;
