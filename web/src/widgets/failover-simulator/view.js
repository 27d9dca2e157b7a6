// The failover simulator's shell: loads the simulation (its own wasm module,
// leaselab_failover: the simulation and the Rust reference lease protocol,
// without the grader's engine), runs the clock, turns
// clicks into actions, asks for a new run when the state needs one, and
// draws the state.
//
// The clock only moves while the widget is on screen, so a visitor who
// scrolls away finds the story where they left it.
import initFailover, { failoverRun } from "../../../pkg/leaselab_failover.js";
import { compileWasm } from "../../../../runner/wasm-fetch.js";
import { h, replaceChildren } from "../../dom.js";
import {
  PRESETS,
  REPLICAS,
  SPEEDS,
  UNTIL_MS_MAX,
  announcement,
  formatSeconds,
  headline,
  initialState,
  logLines,
  needsRun,
  replicaDetail,
  replicaFaults,
  runRequest,
  snapshot,
  update,
} from "./state.js";
import { timelineSvg, visibleRange, windowMsFor } from "./timeline.js";

/** Lines of the log on screen (the newest first), on a wide and on a narrow screen. */
const LOG_LINES_SHOWN = 8;
const LOG_LINES_SHOWN_NARROW = 5;
const NARROW_PX = 560;
/** The timeline is redrawn when the clock has moved this much (a pixel is 20–40 ms). */
const REDRAW_MS = 40;

let loading = null;

/**
 * Loads the simulation's wasm module (once) and resolves to the mount
 * function, so the page keeps showing "Loading the simulation…" until the
 * widget can run.
 */
export function loadFailoverSimulator() {
  loading ??= initFailover({ module_or_path: compileWasm(new URL("./leaselab_failover_bg.wasm", import.meta.url)) }).then(() => mountFailoverSimulator);
  return loading;
}

let instanceCount = 0;

/** Mounts the simulator into `root` (the module must be loaded). Returns `{ destroy }`. */
export function mountFailoverSimulator(root) {
  const id = `failover${++instanceCount}`;
  const reducedMotion = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  let state = initialState({ playing: !reducedMotion });
  /** How long runs take here, for the curious and the benchmarks: { runs, lastMs, maxMs, totalMs }. */
  const stats = { runs: 0, lastMs: 0, maxMs: 0, totalMs: 0 };
  root.failoverStats = stats;
  let failure = null;

  const dispatch = (action) => {
    state = update(state, action);
    ensureRun();
    render();
  };

  /** Runs the simulation again if the state's story is stale: from 0, a little past now. */
  function ensureRun() {
    if (failure || !needsRun(state)) return;
    const request = runRequest(state);
    try {
      const started = performance.now();
      const story = JSON.parse(failoverRun(JSON.stringify(request)));
      const tookMs = performance.now() - started;
      stats.runs += 1;
      stats.lastMs = tookMs;
      stats.maxMs = Math.max(stats.maxMs, tookMs);
      stats.totalMs += tookMs;
      state = update(state, { type: "ran", story, faults: request.faults });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      state = update(state, { type: "stop" });
      console.error(error);
    }
  }

  // ---- the clock --------------------------------------------------------------
  let frame = null;
  let lastFrameAt = null;
  let onScreen = false;
  const loop = (timestamp) => {
    frame = null;
    if (lastFrameAt !== null) dispatch({ type: "tick", realMs: timestamp - lastFrameAt });
    lastFrameAt = timestamp;
    schedule();
  };
  function schedule() {
    if (state.playing && onScreen && !failure && frame === null) frame = requestAnimationFrame(loop);
    if (!state.playing || !onScreen) {
      if (frame !== null) cancelAnimationFrame(frame);
      frame = null;
      lastFrameAt = null;
    }
  }
  const visibility = new IntersectionObserver((entries) => {
    onScreen = entries.some((entry) => entry.isIntersecting);
    schedule();
  });
  visibility.observe(root);

  const act = (action) => {
    dispatch(action);
    schedule();
  };

  // ---- what the leader is -------------------------------------------------------
  const leaderTitle = h("p", { class: "failover-leader" });
  const leaderDetail = h("p", { class: "failover-detail" });
  const clock = h("p", { class: "failover-clock" });
  const announcer = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const problem = h("p", { class: "widget-error", role: "alert", hidden: true });

  // ---- the clock's controls -------------------------------------------------------
  const playButton = h("button", { type: "button", class: "primary failover-play", onclick: () => act({ type: state.playing ? "stop" : "play" }) });
  const stepButton = h("button", { type: "button", onclick: () => act({ type: "advance", ms: 1_000 }) }, "+1 s");
  const speedInputs = SPEEDS.map((speed) =>
    h("input", { type: "radio", name: `${id}-speed`, id: `${id}-speed-${speed}`, value: String(speed), onchange: () => act({ type: "speed", speed }) }),
  );
  const speedGroup = h(
    "fieldset",
    { class: "failover-speed" },
    h("legend", {}, "Speed"),
    SPEEDS.map((speed, index) => h("span", { class: "failover-speed-option" }, speedInputs[index], h("label", { for: speedInputs[index].id }, `${speed}×`))),
  );
  const resetButton = h("button", { type: "button", onclick: () => act({ type: "reset" }) }, "Reset");

  // ---- the replicas -----------------------------------------------------------------
  const cards = [];
  for (let replica = 1; replica <= REPLICAS; replica += 1) {
    const nameId = `${id}-replica-${replica}`;
    const badge = h("span", { class: "failover-badge" });
    const detail = h("p", { class: "failover-replica-detail" });
    const freeze = h("button", {
      type: "button",
      class: "small",
      onclick: () => {
        if (freeze.getAttribute("aria-disabled") === "true") return;
        act({ type: replicaFaults(state.faults, replica).frozen ? "resume" : "freeze", replica });
      },
    });
    const crash = h("button", {
      type: "button",
      class: "small failover-crash-button",
      "aria-label": `Crash replica ${replica}`,
      onclick: () => {
        if (crash.getAttribute("aria-disabled") === "true") return;
        act({ type: "crash", replica });
      },
    }, "Crash");
    const card = h(
      "li",
      { class: `failover-replica replica-${replica}`, "aria-labelledby": nameId },
      h("p", { class: "failover-replica-name" }, h("span", { id: nameId }, `Replica ${replica}`), " ", badge),
      detail,
      h("div", { class: "failover-replica-actions" }, freeze, crash),
    );
    cards.push({ replica, card, badge, detail, freeze, crash });
  }

  // ---- presets -------------------------------------------------------------------------
  const presetButtons = PRESETS.map((preset) =>
    h("button", { type: "button", class: "small", "aria-pressed": "false", "aria-describedby": `${id}-preset-${preset.id}`, onclick: () => act({ type: "preset", preset: preset.id }) }, preset.label),
  );
  const presetNotes = PRESETS.map((preset) => h("span", { id: `${id}-preset-${preset.id}`, class: "visually-hidden" }, preset.description));
  const presetNow = h("p", { class: "failover-preset-now" });

  // ---- timeline and log ----------------------------------------------------------------
  const timeline = h("div", { class: "failover-timeline" });
  const timelineSummary = h("p", { class: "visually-hidden", id: `${id}-timeline-summary` });
  const log = h("ol", { class: "failover-log", reversed: true });

  replaceChildren(
    root,
    h(
      "div",
      { class: "failover" },
      h(
        "div",
        { class: "failover-clock-controls", role: "group", "aria-label": "Clock" },
        clock,
        playButton,
        stepButton,
        speedGroup,
        resetButton,
      ),
      h("div", { class: "failover-now" }, leaderTitle, leaderDetail, announcer),
      problem,
      h("ul", { class: "failover-replicas", "aria-label": "Replicas" }, cards.map((entry) => entry.card)),
      h(
        "div",
        { class: "failover-presets", role: "group", "aria-labelledby": `${id}-presets-title` },
        h("p", { class: "failover-presets-title", id: `${id}-presets-title` }, "Stories to replay"),
        presetButtons,
        presetNotes,
        presetNow,
      ),
      h(
        "figure",
        { class: "failover-figure", "aria-labelledby": `${id}-timeline-title`, "aria-describedby": timelineSummary.id },
        h("p", { class: "failover-section-title", id: `${id}-timeline-title` }, "Timeline"),
        timeline,
        timelineSummary,
        h(
          "figcaption",
          { class: "failover-legend" },
          h("span", { class: "legend-leading" }, "leads"),
          h("span", { class: "legend-following" }, "follows"),
          h("span", { class: "legend-frozen" }, "frozen"),
          h("span", { class: "legend-crash" }, "crashed"),
          h("span", { class: "legend-hold" }, "lease in the store, a notch per renewal"),
          h("span", { class: "legend-call" }, "compare-and-swap (dashed: refused)"),
        ),
      ),
      h("section", { class: "failover-log-frame", "aria-labelledby": `${id}-log-title` }, h("p", { class: "failover-section-title", id: `${id}-log-title` }, "What happened"), log),
    ),
  );

  // ---- drawing ---------------------------------------------------------------------------
  let drawn = { atMs: -Infinity, story: null, widthPx: 0, logCount: -1, logShown: 0, announcement: null, summary: null };

  function render() {
    clock.textContent = `t = ${(state.nowMs / 1000).toFixed(1)} s`;
    playButton.textContent = state.playing ? "Pause clock" : "Run clock";
    playButton.disabled = state.nowMs >= UNTIL_MS_MAX;
    for (const input of speedInputs) input.checked = Number(input.value) === state.speed;
    PRESETS.forEach((preset, index) => presetButtons[index].setAttribute("aria-pressed", String(state.preset?.id === preset.id)));
    const preset = PRESETS.find((candidate) => candidate.id === state.preset?.id);
    presetNow.textContent = preset ? `Playing: ${preset.description}` : state.nowMs >= UNTIL_MS_MAX ? `The simulation stops at ${formatSeconds(UNTIL_MS_MAX)}. Reset to start again.` : "";
    problem.hidden = !failure;
    if (failure) problem.textContent = `The simulation stopped: ${failure} Reset or reload the page to start again.`;
    if (!state.story) return;

    const atMs = Math.floor(state.nowMs);
    const view = snapshot(state.story, atMs);
    const title = headline(view);
    leaderTitle.textContent = title.title;
    leaderTitle.classList.toggle("has-leader", view.leader !== null);
    leaderDetail.textContent = title.detail;
    const heard = announcement(view);
    if (heard !== drawn.announcement) {
      announcer.textContent = heard;
      drawn.announcement = heard;
    }

    for (const entry of cards) {
      const replicaView = view.replicas[entry.replica - 1];
      const faults = replicaFaults(state.faults, entry.replica);
      entry.card.dataset.status = replicaView.status;
      entry.badge.textContent = badgeText(replicaView, view);
      entry.detail.textContent = replicaDetail(view, entry.replica);
      entry.freeze.textContent = faults.frozen ? "Bring back" : "Freeze";
      entry.freeze.setAttribute("aria-label", `${faults.frozen ? "Bring back" : "Freeze"} replica ${entry.replica}`);
      entry.freeze.setAttribute("aria-disabled", String(faults.crashed));
      entry.crash.setAttribute("aria-disabled", String(faults.crashed));
    }

    const widthPx = Math.max(300, Math.round(timeline.clientWidth || 720));
    if (drawn.story !== state.story || drawn.widthPx !== widthPx || Math.abs(atMs - drawn.atMs) >= REDRAW_MS) {
      timeline.innerHTML = timelineSvg(state.story, atMs, { widthPx, id });
      const { fromMs, toMs } = visibleRange(atMs, windowMsFor(widthPx));
      timeline.dataset.range = `${fromMs}-${toMs}`;
      drawn = { ...drawn, atMs, story: state.story, widthPx };
    }

    const lines = logLines(state.story, atMs);
    const shown = widthPx < NARROW_PX ? LOG_LINES_SHOWN_NARROW : LOG_LINES_SHOWN;
    if (lines.length !== drawn.logCount || shown !== drawn.logShown) {
      replaceChildren(log, lines.length === 0 ? [h("li", { class: "empty" }, "Nothing yet.")] : lines.slice(-shown).reverse().map((line) => h("li", {}, line.text)));
      log.setAttribute("start", String(Math.max(1, lines.length)));
      drawn = { ...drawn, logCount: lines.length, logShown: shown };
    }
    const summary = summarize(state.story, view);
    if (summary !== drawn.summary) {
      timelineSummary.textContent = summary;
      drawn.summary = summary;
    }
  }

  // The timeline follows the widget's width.
  const resize = new ResizeObserver(() => render());
  resize.observe(timeline);

  ensureRun();
  render();
  schedule();
  return {
    destroy() {
      visibility.disconnect();
      resize.disconnect();
      if (frame !== null) cancelAnimationFrame(frame);
      root.replaceChildren();
    },
  };
}

function badgeText(replicaView, view) {
  switch (replicaView.status) {
    case "leading":
      return view.holder?.replica === replicaView.replica ? "leader" : "stepping down";
    case "campaigning":
      return "follower";
    case "frozen":
      return "frozen";
    case "crashed":
      return "crashed";
    default:
      return "starting";
  }
}

/** The timeline in words: who held the lease when, so far. */
function summarize(story, view) {
  const holds = story.holds
    .filter((hold) => hold.fromMs <= view.atMs)
    .map((hold) => `replica ${hold.replica} from ${formatSeconds(hold.fromMs)}${hold.toMs !== null && hold.toMs <= view.atMs ? ` until ${formatSeconds(hold.toMs)}` : " on"}`);
  return holds.length === 0 ? "Nobody has held the lease yet." : `Lease holders so far: ${holds.join("; ")}.`;
}

/** The widget registry's entry point (see web/src/main.js): loads the simulation, then mounts. */
export const load = loadFailoverSimulator;
