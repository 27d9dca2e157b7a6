// The fencing race's shell: turns the visitor's controls into actions, runs
// the race again (the store wasm module's `fencingRaceRun`) whenever the
// choices change, and draws the state. No clock runs by itself: the visitor
// moves the cursor (a slider, or "previous" and "next moment"), so nothing
// on screen moves unless asked to.
import { h, replaceChildren } from "../../dom.js";
import {
  HOPS,
  PRESETS,
  WORKERS,
  announcement,
  formatDuration,
  formatTime,
  initialState,
  logLines,
  needsRun,
  requestKey,
  requestStatus,
  runRequest,
  summary,
  update,
  verdict,
} from "./state.js";
import { laneLabelsSvg, timelineSvg } from "./timeline.js";

/** Lines of the log on screen (the newest first), on a wide and on a narrow screen. */
const LOG_LINES_SHOWN = 8;
const LOG_LINES_SHOWN_NARROW = 5;
const NARROW_PX = 560;
/**
 * The timeline is never drawn narrower than this: on a phone it scrolls
 * sideways instead (and follows the cursor), so that 100 ms stay a few pixels.
 */
const TIMELINE_PX_MIN = 520;

/** The page's loader: resolves to the mount function (the code is all there is to load; the page hands over the store module). */
export function load() {
  return Promise.resolve(mountFencingRace);
}

let instanceCount = 0;

/**
 * Mounts the widget into `root`. `wasm`: the store module's exports (web/src/wasm.js),
 * with `fencingRaceRun` and `fencingRaceSettings`. Returns `{ destroy }`.
 */
export function mountFencingRace(root, wasm) {
  const id = `fencing-race${++instanceCount}`;
  let state = initialState(wasm.fencingRaceSettings());
  let failure = null;

  const dispatch = (action) => {
    state = update(state, action);
    ensureRun();
    render();
  };

  /** Runs the race again if the story on hand was made for other choices. */
  function ensureRun() {
    if (failure || !needsRun(state)) return;
    const request = runRequest(state);
    try {
      state = update(state, { type: "ran", story: wasm.fencingRaceRun(request), key: requestKey(request) });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      console.error(error);
    }
  }

  // ---- the verdict ----------------------------------------------------------------
  const verdictTitle = h("p", { class: "fr-verdict-title" });
  const verdictDetail = h("p", { class: "fr-verdict-detail" });
  const verdictBox = h("div", { class: "fr-verdict" }, verdictTitle, verdictDetail);
  const announcer = h("p", { class: "visually-hidden fr-announcer", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const problem = h("p", { class: "widget-error", role: "alert", hidden: true });

  // ---- the worker -----------------------------------------------------------------
  const workerInputs = WORKERS.map((worker) =>
    h("input", { type: "radio", name: `${id}-worker`, id: `${id}-worker-${worker.id}`, value: worker.id, "aria-describedby": `${id}-worker-${worker.id}-note`, onchange: () => dispatch({ type: "worker", worker: worker.id }) }),
  );
  const workerGroup = h(
    "fieldset",
    { class: "fr-workers" },
    h("legend", {}, "The worker"),
    WORKERS.map((worker, index) =>
      h(
        "div",
        { class: "fr-worker-option" },
        workerInputs[index],
        h("label", { for: workerInputs[index].id }, h("span", { class: "fr-worker-name" }, worker.label), h("span", { class: "fr-worker-note", id: `${id}-worker-${worker.id}-note` }, worker.description)),
      ),
    ),
  );

  // ---- what goes wrong ---------------------------------------------------------------
  const requestOptions = (noneLabel) => [h("option", { value: "0" }, noneLabel), ...Array.from({ length: state.settings.requestsPerLeader }, (_, index) => h("option", { value: String(index + 1) }, `A${index + 1}`))];
  const pauseBefore = h("select", { id: `${id}-pause-before`, onchange: () => dispatch({ type: "pauseBefore", before: Number(pauseBefore.value) }) }, requestOptions("no pause"));
  const pauseMs = h("input", { type: "range", id: `${id}-pause-ms`, min: String(state.settings.stepMs), max: String(state.settings.pauseMsMax), step: String(state.settings.stepMs), oninput: () => dispatch({ type: "pauseMs", ms: Number(pauseMs.value) }) });
  const pauseOut = h("output", { for: pauseMs.id, class: "fr-output" });
  const delayRequest = h("select", { id: `${id}-delay-request`, onchange: () => dispatch({ type: "delayRequest", request: Number(delayRequest.value) }) }, requestOptions("no delay"));
  const hopInputs = HOPS.map((hop) => h("input", { type: "radio", name: `${id}-hop`, id: `${id}-hop-${hop.id}`, value: hop.id, onchange: () => dispatch({ type: "delayHop", hop: hop.id }) }));
  const delayMs = h("input", { type: "range", id: `${id}-delay-ms`, min: String(state.settings.stepMs), max: String(state.settings.delayMsMax), step: String(state.settings.stepMs), oninput: () => dispatch({ type: "delayMs", ms: Number(delayMs.value) }) });
  const delayOut = h("output", { for: delayMs.id, class: "fr-output" });
  const faults = h(
    "div",
    { class: "fr-faults" },
    h(
      "fieldset",
      { class: "fr-fault" },
      h("legend", {}, "Pause A between its check and its write"),
      h("div", { class: "fr-field" }, h("label", { for: pauseBefore.id }, "Before its request"), pauseBefore),
      h("div", { class: "fr-field" }, h("label", { for: pauseMs.id }, "For"), pauseMs, pauseOut),
    ),
    h(
      "fieldset",
      { class: "fr-fault" },
      h("legend", {}, "Delay one of A's requests in flight"),
      h("div", { class: "fr-field" }, h("label", { for: delayRequest.id }, "Request"), delayRequest),
      h(
        "div",
        { class: "fr-field fr-hops", role: "radiogroup", "aria-label": "Which hop" },
        HOPS.map((hop, index) => h("span", { class: "fr-hop" }, hopInputs[index], h("label", { for: hopInputs[index].id }, hop.label))),
      ),
      h("div", { class: "fr-field" }, h("label", { for: delayMs.id }, "By"), delayMs, delayOut),
    ),
  );

  // ---- presets --------------------------------------------------------------------
  const presetButtons = PRESETS.map((preset) =>
    h("button", { type: "button", class: "small", "aria-pressed": "false", "aria-describedby": `${id}-preset-${preset.id}`, onclick: () => dispatch({ type: "preset", preset: preset.id }) }, preset.label),
  );
  const presetNotes = PRESETS.map((preset) => h("span", { id: `${id}-preset-${preset.id}`, class: "visually-hidden" }, preset.description));
  const presetNow = h("p", { class: "fr-preset-now", role: "status" });
  const workerLabel = (id) => WORKERS.find((worker) => worker.id === id)?.label ?? id;
  const resetButton = h("button", { type: "button", class: "small", onclick: () => dispatch({ type: "reset" }) }, "Calm run");

  // ---- the cursor -----------------------------------------------------------------------
  const clock = h("p", { class: "fr-clock", "aria-hidden": "true" });
  const previous = h("button", { type: "button", class: "small", onclick: () => dispatch({ type: "step", direction: -1 }) }, "Previous moment");
  const next = h("button", { type: "button", class: "small", onclick: () => dispatch({ type: "step", direction: 1 }) }, "Next moment");
  const cursor = h("input", { type: "range", id: `${id}-cursor`, min: "0", max: String(state.settings.untilMs), step: String(state.settings.stepMs), oninput: () => dispatch({ type: "seek", atMs: Number(cursor.value) }) });
  const showAll = h("button", { type: "button", class: "small", onclick: () => dispatch({ type: "seek", atMs: state.settings.untilMs }) }, "Show the whole run");

  // ---- timeline, requests, log ------------------------------------------------------------
  // Focusable, so that a keyboard can scroll it when it is wider than the screen.
  const timeline = h("div", { class: "fr-timeline", tabindex: "0", role: "group", "aria-label": "The timeline's drawing (scrolls sideways on a narrow screen)" });
  const timelineSummary = h("p", { class: "visually-hidden", id: `${id}-timeline-summary` });
  const legend = h("figcaption", { class: "fr-legend" });
  const requestRows = h("tbody");
  const log = h("ol", { class: "fr-log", reversed: true });

  replaceChildren(
    root,
    h(
      "div",
      { class: "fr" },
      verdictBox,
      announcer,
      problem,
      workerGroup,
      faults,
      h(
        "div",
        { class: "fr-presets", role: "group", "aria-labelledby": `${id}-presets-title` },
        h("p", { class: "fr-section-title", id: `${id}-presets-title` }, "The lesson's scenarios"),
        presetButtons,
        resetButton,
        presetNotes,
        presetNow,
      ),
      h(
        "figure",
        { class: "fr-figure", "aria-labelledby": `${id}-timeline-title`, "aria-describedby": timelineSummary.id },
        h("p", { class: "fr-section-title", id: `${id}-timeline-title` }, "Timeline"),
        h("p", { class: "fr-facts" }, facts(state.settings)),
        h(
          "div",
          { class: "fr-cursor", role: "group", "aria-label": "Step through the run" },
          clock,
          previous,
          h("label", { for: cursor.id, class: "visually-hidden" }, "Time"),
          cursor,
          next,
          showAll,
        ),
        timeline,
        timelineSummary,
        legend,
      ),
      h(
        "section",
        { class: "fr-requests-frame", "aria-labelledby": `${id}-requests-title` },
        h("p", { class: "fr-section-title", id: `${id}-requests-title` }, "The requests"),
        h(
          "div",
          { class: "table-frame" },
          h("table", { class: "fr-requests", "aria-labelledby": `${id}-requests-title` }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Request"), h("th", { scope: "col" }, "Version"), h("th", { scope: "col" }, "What happened"))), requestRows),
        ),
      ),
      h("section", { class: "fr-log-frame", "aria-labelledby": `${id}-log-title` }, h("p", { class: "fr-section-title", id: `${id}-log-title` }, "What happened in the race"), log),
    ),
  );

  // ---- drawing ----------------------------------------------------------------------
  let drawn = { story: null, atMs: null, widthPx: 0, announcement: null, logKey: null, rowsKey: null };

  function render() {
    const request = runRequest(state);
    for (const input of workerInputs) input.checked = input.value === state.worker;
    pauseBefore.value = String(state.pause.before);
    pauseMs.value = String(state.pause.ms);
    pauseOut.textContent = formatDuration(state.pause.ms);
    pauseMs.setAttribute("aria-valuetext", formatDuration(state.pause.ms));
    delayRequest.value = String(state.delay.request);
    for (const input of hopInputs) input.checked = input.value === state.delay.hop;
    delayMs.value = String(state.delay.ms);
    // A fault's other controls work only while the fault is chosen: "no pause" leaves nothing to set the length of.
    pauseMs.disabled = state.pause.before === 0;
    delayMs.disabled = state.delay.request === 0;
    for (const input of hopInputs) input.disabled = state.delay.request === 0;
    delayOut.textContent = formatDuration(state.delay.ms);
    delayMs.setAttribute("aria-valuetext", formatDuration(state.delay.ms));
    root.dataset.worker = request.worker;
    PRESETS.forEach((preset, index) => presetButtons[index].setAttribute("aria-pressed", String(state.preset === preset.id)));
    const chosen = PRESETS.find((preset) => preset.id === state.preset);
    // A scenario comes with its worker: when that replaced the learner's own choice, it says so rather than switch silently.
    const workerNote = chosen && state.workerBefore && state.workerBefore !== state.worker ? ` The scenario set the worker to “${workerLabel(state.worker)}” (it was “${workerLabel(state.workerBefore)}”).` : "";
    presetNow.textContent = chosen ? `${chosen.description}${workerNote}` : "";
    cursor.value = String(state.atMs);
    cursor.setAttribute("aria-valuetext", formatTime(state.atMs));
    clock.textContent = `t = ${(state.atMs / 1000).toFixed(2)} s`;
    problem.hidden = !failure;
    if (failure) problem.textContent = `The race could not run: ${failure} Reload the page to start again.`;
    if (!state.story) return;

    const { story, atMs } = state;
    const view = verdict(story, atMs);
    verdictBox.dataset.tone = view.tone;
    verdictTitle.textContent = view.title;
    verdictDetail.textContent = view.detail;
    const heard = announcement(view);
    if (heard !== drawn.announcement) {
      announcer.textContent = heard;
      drawn.announcement = heard;
    }

    const boxPx = Math.round(timeline.clientWidth || 720);
    const widthPx = Math.max(TIMELINE_PX_MIN, boxPx);
    if (drawn.story !== story || drawn.atMs !== atMs || drawn.widthPx !== widthPx) {
      const labels = widthPx > boxPx ? `<div class="fr-timeline-labels">${laneLabelsSvg(story, { widthPx })}</div>` : "";
      timeline.innerHTML = labels + timelineSvg(story, atMs, { widthPx, id });
      // Keep the cursor in view when the drawing is wider than its box.
      const now = timeline.querySelector(".fr-now");
      if (widthPx > boxPx) timeline.scrollLeft = now ? Math.max(0, Number(now.getAttribute("x1")) - boxPx / 2) : widthPx;
      timelineSummary.textContent = summary(story, atMs);
      replaceChildren(legend, legendItems(story));
      drawn = { ...drawn, story, atMs, widthPx };
    }

    // Requests not sent yet are not listed: the table tells no more than the timeline does.
    const statuses = story.requests.map((entry) => requestStatus(story, entry, atMs)).filter((status) => status.status !== "unsent");
    const rowsKey = JSON.stringify(statuses);
    if (rowsKey !== drawn.rowsKey) {
      replaceChildren(
        requestRows,
        statuses.length === 0 ? [h("tr", {}, h("td", { colspan: "3" }, "No request sent yet."))] : statuses.map((status) => h("tr", { "data-request": status.id, "data-status": status.status }, h("th", { scope: "row" }, status.id), h("td", {}, String(status.version)), h("td", {}, h("span", { class: "fr-status" }, statusWord(status.status)), " ", status.text))),
      );
      drawn.rowsKey = rowsKey;
    }

    const lines = logLines(story, atMs);
    const shown = boxPx < NARROW_PX ? LOG_LINES_SHOWN_NARROW : LOG_LINES_SHOWN;
    const logKey = `${lines.length}/${shown}/${story === drawn.story ? "same" : "new"}/${requestKey(request)}`;
    if (logKey !== drawn.logKey) {
      replaceChildren(log, lines.length === 0 ? [h("li", { class: "empty" }, "Nothing yet: move the cursor forward.")] : lines.slice(-shown).reverse().map((line) => h("li", { "data-tone": line.tone }, line.text)));
      log.setAttribute("start", String(Math.max(1, lines.length)));
      drawn.logKey = logKey;
    }
  }

  // The timeline follows the widget's width.
  const resize = new ResizeObserver(() => render());
  resize.observe(timeline);

  ensureRun();
  render();
  return {
    destroy() {
      resize.disconnect();
      root.replaceChildren();
    },
  };
}

/** The race's fixed numbers, as the wasm gives them. */
function facts(settings) {
  return `The lease's TTL is ${formatDuration(settings.ttlMs)}; a leader renews it every ${formatDuration(settings.ttlMs / 2)} or so and checks it before each request, which it sends ${formatDuration(settings.prepareMs)} after the check. Every hop takes ${formatDuration(settings.latencyMs)}.`;
}

/** The status column's first word: a word, not only a colour. */
function statusWord(status) {
  switch (status) {
    case "applied":
      return "Applied.";
    case "late":
      return "Late.";
    case "double":
      return "Double apply.";
    case "rejected":
    case "refusedByStore":
    case "refusedByData":
      return "Stopped.";
    case "pending":
      return "In flight.";
    default:
      return "";
  }
}

function legendItems(story) {
  const items = [
    h("span", { class: "legend-leading" }, "leads"),
    h("span", { class: "legend-check" }, "local check"),
    h("span", { class: "legend-paused" }, "paused"),
    h("span", { class: "legend-hold" }, "lease in the store, a notch per renewal"),
    h("span", { class: "legend-request" }, "request (dashed: held up)"),
    h("span", { class: "legend-applied" }, "applied"),
    h("span", { class: "legend-late" }, "applied late"),
    h("span", { class: "legend-double" }, "double apply"),
    h("span", { class: "legend-refused" }, "stopped"),
  ];
  if (story.request.worker === "atomic") items.push(h("span", { class: "legend-txn" }, "one transaction: the store checks the lock and writes the data"));
  return items;
}
