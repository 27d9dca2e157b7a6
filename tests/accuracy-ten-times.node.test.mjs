// Grader accuracy at ten times the default budget: every correct style of the
// accuracy corpus (tests/support/accuracy.mjs) must also pass the 1,800
// random schedules after the default ones, so that together with
// accuracy.node.test.mjs it has passed ten times the budget (2,000
// schedules) without grading the first 200 twice. A false fail here is a
// rule that fires on correct code, only more rarely than the default budget
// shows. ACCURACY_SEEDS_10X=0 skips this file, for a quick run.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { loadNodeEngines } from "../runner/node/engines.js";
import { corpus, DEFAULT_SEEDS, describeFailures, FIRST_SEED, grade } from "./support/accuracy.mjs";

const SKIP = process.env.ACCURACY_SEEDS_10X === "0";
/** The schedules after the default budget's, up to ten times it. */
const options = { firstSeed: FIRST_SEED + DEFAULT_SEEDS, seeds: 9 * DEFAULT_SEEDS };

let engines;
before(async () => {
  if (!SKIP) engines = await loadNodeEngines();
});

for (const entry of corpus.filter((one) => one.expect === "pass")) {
  const name = `${entry.exercise}/${entry.file}`;
  const range = `seeds ${options.firstSeed}–${options.firstSeed + options.seeds - 1}`;
  test(`${name} (${entry.style}) passes on ${range} too`, { skip: SKIP && "ACCURACY_SEEDS_10X=0" }, async () => {
    const report = await grade(engines, entry, options);
    assert.deepEqual(describeFailures(report), "", `${name} on ${range}`);
    assert.equal(report.score, report.maxScore);
  });
}
