// The uptime estimator's arithmetic: the lesson's examples, the formatting a
// learner reads, and what happens to bad input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PRESETS, budgetPerDaySeconds, estimate, formatAvailability, formatDuration, initialState, ninesOf, ninesWords, parseAmount, update } from "../web/src/widgets/uptime-estimator/state.js";

const withPreset = (preset) => update(initialState(), { type: "preset", preset });

// [preset, availability as shown, nines, downtime per day in seconds]: the lesson's table.
const presetCases = [
  ["daily-crash", "99.998 %", 4, 2],
  ["daily-node", "99.653 %", 2, 300],
  ["daily-rollout", "99.861 %", 2, 120],
  ["hourly-rollout", "96.667 %", 1, 2_880],
];
for (const [preset, shown, nines, downtime] of presetCases) {
  test(`preset ${preset}: ${shown}, ${nines} nines`, () => {
    const figures = estimate(withPreset(preset));
    assert.equal(formatAvailability(figures.availability), shown);
    assert.equal(figures.nines, nines);
    assert.equal(figures.downtimePerDaySeconds, downtime);
    assert.deepEqual(figures.errors, {});
  });
}

test("every preset is tested above", () => {
  assert.deepEqual(PRESETS.map((preset) => preset.id).sort(), presetCases.map(([preset]) => preset).sort());
});

test("sources add up: a daily crash plus a daily rollout (the quiz's case)", () => {
  let state = withPreset("daily-rollout");
  state = update(state, { type: "toggle", source: "crash", enabled: true });
  const figures = estimate(state);
  assert.equal(figures.downtimePerDaySeconds, 122);
  assert.equal(formatAvailability(figures.availability), "99.859 %");
  assert.equal(state.preset, null, "editing leaves the preset");
});

test("periods and units convert to seconds per day", () => {
  let state = withPreset("daily-crash");
  state = update(state, { type: "edit", source: "crash", field: "per", value: "week" });
  state = update(state, { type: "edit", source: "crash", field: "count", value: "7" });
  state = update(state, { type: "edit", source: "crash", field: "unit", value: "min" });
  assert.equal(estimate(state).downtimePerDaySeconds, 120);
  state = update(state, { type: "edit", source: "crash", field: "count", value: "0,5" });
  assert.ok(Math.abs(estimate(state).downtimePerDaySeconds - (0.5 / 7) * 120) < 1e-9, "a decimal comma works");
});

test("bad input names the field and counts for nothing; more downtime than a day caps at zero", () => {
  let state = update(withPreset("daily-crash"), { type: "edit", source: "crash", field: "downtime", value: "soon" });
  let figures = estimate(state);
  assert.deepEqual(Object.keys(figures.errors), ["crash.downtime"]);
  assert.equal(figures.parts.length, 0);
  state = update(withPreset("hourly-rollout"), { type: "edit", source: "rollout", field: "count", value: "40" });
  figures = estimate(state);
  assert.equal(figures.availability, 0);
  assert.equal(figures.nines, 0);
  assert.equal(update(state, { type: "edit", source: "nope", field: "count", value: "1" }), state);
});

const amountCases = [
  ["2", { value: 2 }],
  [" 0.5 ", { value: 0.5 }],
  ["1,5", { value: 1.5 }],
  ["", { error: "Enter a number." }],
  ["-1", { error: "Enter a number such as 2 or 0.5." }],
  ["1e3", { error: "Enter a number such as 2 or 0.5." }],
  ["2000000", { error: "Enter at most 1,000,000." }],
];
for (const [text, expected] of amountCases) {
  test(`parseAmount(${JSON.stringify(text)})`, () => assert.deepEqual(parseAmount(text), expected));
}

const durationCases = [
  [0, "0 s"], [0.864, "0.86 s"], [2, "2 s"], [8.64, "8.6 s"], [42, "42 s"], [120, "2 min"], [150, "2 min 30 s"], [730, "12 min"], [3_600, "1 h"], [4_320, "1 h 12 min"], [172_800, "2 days"],
  // Tiny downtimes keep two significant digits instead of reading "0 s"; one day is singular.
  [0.0017, "0.0017 s"], [0.0000017, "0.0017 ms"], [86_400, "1 day"], [90_000, "1 day"],
];
for (const [seconds, text] of durationCases) {
  test(`formatDuration(${seconds}) = ${text}`, () => assert.equal(formatDuration(seconds), text));
}

test("nines: whole nines despite floating point; words; budgets", () => {
  assert.equal(ninesOf(1e-4), 4);
  assert.equal(ninesOf(1 - 0.9999), 4);
  assert.equal(ninesOf(0), Infinity);
  assert.equal(ninesWords(4), "four nines");
  assert.equal(ninesWords(Infinity), "never down");
  assert.equal(formatDuration(budgetPerDaySeconds(4)), "8.6 s");
  assert.equal(formatAvailability(1 - 1e-6), "99.9999 %");
  assert.equal(formatAvailability(1), "100 %");
});
