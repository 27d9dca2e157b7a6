// The fencing race without a browser: its pure core (the visitor's choices,
// presets, the cursor, what the page reads from a story) on the real race
// (the store wasm module's fencingRaceRun): in each of the lesson's
// scenarios, which workers let both leaders' requests through.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import initStore, * as store from "../web/pkg/leaselab_store.js";
import {
  PRESETS,
  WORKERS,
  initialState,
  logLines,
  momentTimes,
  needsRun,
  requestKey,
  requestStatus,
  runRequest,
  summary,
  update,
  verdict,
} from "../web/src/widgets/fencing-race/state.js";
import { laneLabelsSvg, lanesFor, timelineSvg } from "../web/src/widgets/fencing-race/timeline.js";

let settings;
before(async () => {
  await initStore({ module_or_path: readFileSync(new URL("../web/pkg/leaselab_store_bg.wasm", import.meta.url)) });
  settings = store.fencingRaceSettings();
});

/** What the shell does after every action: a new run when the story is stale. */
function settle(state) {
  if (!needsRun(state)) return state;
  const request = runRequest(state);
  return update(state, { type: "ran", story: store.fencingRaceRun(request), key: requestKey(request) });
}

const act = (state, ...actions) => actions.reduce((current, action) => settle(update(current, action)), state);
const fresh = () => settle(initialState(settings));
const outcome = (state, id) => state.story.requests.find((request) => request.id === id)?.outcome;

test("the settings come from the wasm, and every preset the page names exists there", () => {
  assert.equal(settings.ttlMs, 2_000);
  assert.ok(settings.untilMs > settings.ttlMs * 2);
  assert.deepEqual(
    PRESETS.map((preset) => preset.id),
    settings.presets.map((preset) => preset.id),
  );
  assert.throws(() => initialState({ ...settings, ttlMs: undefined }), /settings\.ttlMs/);
});

test("the calm run: A leads throughout, every request is applied, the verdict is calm", () => {
  const state = fresh();
  assert.equal(state.worker, "asks");
  assert.deepEqual(runRequest(state), { worker: "asks", pause: null, delay: null });
  assert.equal(state.story.holds.length, 1);
  assert.ok(state.story.requests.every((request) => request.outcome === "applied"));
  const view = verdict(state.story, state.atMs);
  assert.equal(view.tone, "calm");
  assert.match(view.detail, /A holds the lease/);
});

// The lesson's three scenarios, each with each worker: which request shows it, and how it ends.
const SCENARIOS = [
  { preset: "paused-leader", request: "A3", outcomes: { trusts: "double", asks: "rejected", atomic: "refusedByStore", highest: "refusedByData" } },
  { preset: "delayed-request", request: "A2", outcomes: { trusts: "double", asks: "rejected", atomic: "refusedByStore", highest: "refusedByData" } },
  { preset: "read-write-gap", request: "A3", outcomes: { trusts: "double", asks: "double", atomic: "refusedByStore", highest: "refusedByData" } },
];

for (const scenario of SCENARIOS) {
  test(`the "${scenario.preset}" scenario with each worker`, () => {
    const started = act(fresh(), { type: "preset", preset: scenario.preset });
    assert.equal(started.preset, scenario.preset);
    assert.equal(started.atMs, settings.untilMs, "a preset shows the whole run");
    for (const worker of WORKERS.map((entry) => entry.id)) {
      const state = worker === started.worker ? started : act(started, { type: "worker", worker });
      assert.equal(outcome(state, scenario.request), scenario.outcomes[worker], `${worker}: ${scenario.request}`);
      const view = verdict(state.story, state.atMs);
      if (scenario.outcomes[worker] === "double") {
        assert.equal(view.tone, "bad", worker);
        assert.equal(view.title, "Two leaders' requests were both applied");
        assert.match(view.detail, new RegExp(`^${scenario.request} from A's earlier tenure landed at t=[\\d.]+ s, after B\\d from B had landed`));
        assert.ok(logLines(state.story, state.atMs).some((line) => line.tone === "bad" && line.text.includes("both leaders' requests applied")));
      } else {
        assert.equal(view.tone, "ok", worker);
        assert.match(view.detail, new RegExp(`^(\\w+, )*(\\w+ and )?${scenario.request}\\b[^.]* (was|were) stopped\\.`));
      }
    }
    // Choosing by hand ends the preset.
    assert.equal(act(started, { type: "worker", worker: "atomic" }).preset, null);
  });
}

test("the read-then-write gap: the asking worker's read found A still holding", () => {
  const state = act(fresh(), { type: "preset", preset: "read-write-gap" });
  const a3 = state.story.requests.find((request) => request.id === "A3");
  assert.deepEqual(a3.readHolder, { leader: "A", version: a3.version });
  const takeover = state.story.holds[1].fromMs;
  assert.ok(a3.readMs < takeover && a3.decidedMs > takeover);
  const line = logLines(state.story, a3.readMs).at(-1).text;
  assert.match(line, /the worker asked the store about A3: the lock is A's at version \d+\./);
  assert.match(requestStatus(state.story, a3, a3.decidedMs).text, /^Applied at t=[\d.]+ s, after B's B1: both leaders' requests applied\.$/);
});

test("the cursor: seeking, stepping from moment to moment, the log and the statuses follow it", () => {
  let state = act(fresh(), { type: "preset", preset: "paused-leader" }, { type: "seek", atMs: 0 });
  assert.equal(state.atMs, 0);
  assert.deepEqual(logLines(state.story, state.atMs), []);
  const times = momentTimes(state.story);
  state = act(state, { type: "step", direction: 1 });
  assert.equal(state.atMs, times[0]);
  state = act(state, { type: "step", direction: 1 }, { type: "step", direction: 1 });
  assert.equal(state.atMs, times[2]);
  state = act(state, { type: "step", direction: -1 });
  assert.equal(state.atMs, times[1]);
  state = act(state, { type: "seek", atMs: 99_999 });
  assert.equal(state.atMs, settings.untilMs);
  assert.equal(act(state, { type: "step", direction: 1 }).atMs, settings.untilMs);
  assert.equal(act(state, { type: "seek", atMs: "soon" }), state, "a cursor that is not a number is ignored");

  // Before A3 is sent it is "unsent"; while it travels, "pending"; then decided.
  const a3 = state.story.requests.find((request) => request.id === "A3");
  assert.equal(requestStatus(state.story, a3, a3.sentMs - 1).status, "unsent");
  assert.equal(requestStatus(state.story, a3, a3.sentMs).status, "pending");
  assert.equal(requestStatus(state.story, a3, a3.decidedMs).status, "double");
  // The verdict changes when the double apply lands, not before.
  assert.equal(verdict(state.story, a3.decidedMs - 1).tone, "calm");
  assert.equal(verdict(state.story, a3.decidedMs).tone, "bad");
  assert.match(summary(state.story, a3.decidedMs), /Lease: A from t=0\.05 s until t=2\.05 s; B from t=2\.15 s on\. Requests: .*A3 double/);
});

test("choices: pause and delay controls are clamped to the wasm's limits and steps; switching off keeps the numbers", () => {
  let state = fresh();
  state = act(state, { type: "pauseBefore", before: 2 }, { type: "pauseMs", ms: 1_234 });
  assert.deepEqual(runRequest(state).pause, { before: 2, ms: 1_250 });
  state = act(state, { type: "pauseMs", ms: 10 ** 9 });
  assert.equal(state.pause.ms, settings.pauseMsMax);
  state = act(state, { type: "pauseMs", ms: 0 });
  assert.equal(state.pause.ms, settings.stepMs, "at least one step");
  state = act(state, { type: "pauseBefore", before: settings.requestsPerLeader + 1 });
  assert.equal(state.pause.before, 2, "no such request: ignored");
  state = act(state, { type: "pauseBefore", before: 0 });
  assert.equal(runRequest(state).pause, null);
  assert.equal(state.pause.ms, settings.stepMs, "kept for when it is switched on again");

  state = act(state, { type: "delayRequest", request: 4 }, { type: "delayHop", hop: "write" }, { type: "delayMs", ms: 700 });
  assert.deepEqual(runRequest(state).delay, { request: 4, hop: "write", ms: 700 });
  assert.equal(act(state, { type: "delayHop", hop: "sideways" }), state);
  assert.equal(act(state, { type: "worker", worker: "optimistic" }), state);
  assert.throws(() => update(state, { type: "explode" }), /unknown fencing race action "explode"/);

  const reset = act(state, { type: "reset" });
  assert.deepEqual(runRequest(reset), { worker: "asks", pause: null, delay: null });
  assert.equal(reset.atMs, settings.untilMs);
});

test("a run happens only when the choices change", () => {
  const state = fresh();
  assert.equal(needsRun(state), false);
  assert.equal(needsRun(update(state, { type: "seek", atMs: 500 })), false, "moving the cursor reuses the story");
  assert.equal(needsRun(update(state, { type: "worker", worker: "highest" })), true);
  assert.equal(needsRun(update(state, { type: "pauseMs", ms: 1_000 })), false, "a pause that is off changes nothing");
});

test("the wasm refuses impossible choices with a message that says what to do", () => {
  assert.throws(() => store.fencingRaceRun({ worker: "asks", pause: { before: 9, ms: 100 }, delay: null }), /A has requests 1 to 5/);
  assert.throws(() => store.fencingRaceRun({ worker: "sometimes", pause: null, delay: null }), /fencingRaceRun: .*pass \{ worker/);
});

test("the timeline: lanes per worker, marks with shapes and names, nothing after the cursor", () => {
  const gap = act(fresh(), { type: "preset", preset: "read-write-gap" });
  const svg = timelineSvg(gap.story, gap.atMs, { widthPx: 720, id: "t" });
  assert.deepEqual(lanesFor(gap.story).map((lane) => lane.id), ["A", "B", "worker", "store", "data"]);
  assert.match(svg, /<g class="fr-outcome" data-request="A3" data-outcome="double">/);
  assert.doesNotMatch(svg, /NaN|undefined|null/, "every coordinate is a number");
  assert.ok(gap.story.calls.every((call) => ["A", "B", "worker"].includes(call.caller)), "callers are named as the lanes are");
  assert.match(svg, /class="fr-paused"/);
  assert.match(svg, /class="fr-write is-delayed"/);
  assert.equal((svg.match(/class="fr-outcome"/g) ?? []).length, gap.story.requests.filter((request) => request.decidedMs !== null).length);

  const atomic = act(gap, { type: "worker", worker: "atomic" });
  assert.deepEqual(lanesFor(atomic.story).map((lane) => lane.label), ["leader A", "leader B", "worker", "store", "data (store)"]);
  const atomicSvg = timelineSvg(atomic.story, atomic.atMs);
  assert.match(atomicSvg, /data-request="A3" data-outcome="refusedByStore"/);
  assert.equal((atomicSvg.match(/class="fr-txn-link"/g) ?? []).length, atomic.story.requests.filter((request) => request.decidedMs !== null).length, "each transaction joins the store and the data");

  const early = timelineSvg(gap.story, 1_000, { widthPx: 720 });
  assert.doesNotMatch(early, /data-request="A3"/, "A3 is not decided by t=1 s");
  assert.doesNotMatch(early, /leader-B/, "B has not led by t=1 s");
  assert.match(early, /class="fr-now"/);
  // The names' overlay (for a drawing that scrolls sideways) names the same lanes.
  const overlay = laneLabelsSvg(gap.story, { widthPx: 520 });
  for (const lane of lanesFor(gap.story)) assert.match(overlay, new RegExp(`>${lane.id === "data" ? "data" : lane.label}</text>`));
  // On a phone, only the notable marks are named.
  const narrow = timelineSvg(gap.story, gap.atMs, { widthPx: 340 });
  assert.doesNotMatch(narrow, />A1<\/text>/);
  assert.match(narrow, />A3<\/text>/);
});
