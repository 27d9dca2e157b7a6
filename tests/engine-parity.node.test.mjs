// The engine (crates/engine: QuickJS-ng and the simulation in one wasm
// module, the runner's loop in Rust) grades exactly as the JavaScript
// runner (quickjs-emscripten's QuickJS and runner/run-case.js), which lab
// mode still uses: the same report, byte for byte, for the lesson's files,
// every file of the accuracy corpus, and every hostile file that an in-VM
// limit stops (the hangs only the CLI's deadline stops are left to
// cli-hostile; they take the whole deadline each).
//
// Two differences between the two QuickJS are not the grader's, and are
// taken out before comparing:
// - the column of a stack frame: for `throw new Error(…)`, QuickJS-ng names
//   the column of `Error`, QuickJS the one of its `(`;
// - what a heap probe reads (free bytes, which the learner's code can print):
//   the two engines lay out their heaps differently.
//
// The engine must not break down here (this is Node's main thread, with
// about 1 MiB of native stack): after a breakdown, `gradeSource` grades in
// the JavaScript runner too, and the comparison would prove nothing. The
// hostile files meant to overflow a small native stack are compared in
// engine-breakdown.node.test.mjs instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { engineBrokeDown, gradeSource } from "../runner/grade.js";
import { gradeSourceInSandbox } from "../runner/grade-in-sandbox.js";
import { registryOf } from "../runner/registry.js";
import { LESSON_DIR } from "../web/build/lesson-folder.mjs";
import { corpus as accuracyCorpus } from "./support/accuracy.mjs";
import { loadCorpus, sourceOf, DEFAULT_SEEDS as HOSTILE_SEEDS } from "./support/hostile.mjs";

const engines = await loadNodeEngines();
const registry = registryOf(engines.leaselab);
/** Enough random schedules to exercise shrinking and every scenario, few enough for the suite. */
const SEEDS = 20;

/** A report with what differs between the two QuickJS (above) taken out. */
function comparable(report) {
  return JSON.stringify(report)
    .replace(/(\.js:\d+):\d+/g, "$1")
    .replace(/\d+ bytes were free/g, "… bytes were free");
}

async function assertSameGrading(exercise, source, seeds) {
  const options = { seeds };
  const inSandbox = await gradeSourceInSandbox(engines, { exercise, source, options });
  const inEngine = await gradeSource(engines, { exercise, source, options });
  assert.equal(engineBrokeDown(engines), false, `the engine broke down (${engines.brokeDown}): every comparison from here on would be the runner's with itself`);
  const [expected, actual] = [comparable(inSandbox), comparable(inEngine)];
  if (expected === actual) return;
  let at = 0;
  while (expected[at] === actual[at]) at += 1;
  assert.fail(`the engine's report differs from the JavaScript runner's at character ${at}:\n  runner: …${expected.slice(Math.max(0, at - 120), at + 200)}\n  engine: …${actual.slice(Math.max(0, at - 120), at + 200)}`);
}

for (const { name: exercise } of registry.exercises) {
  for (const file of ["solution.js", "starter.js"]) {
    test(`${exercise}/${file} of the lesson: the engine's report is the runner's`, async () => {
      await assertSameGrading(exercise, readFileSync(`${LESSON_DIR}/${exercise}/${file}`, "utf8"), SEEDS);
    });
  }
}

// The accuracy corpus as its own loader reads it: every exercise of the registry.
for (const entry of accuracyCorpus) {
  test(`accuracy corpus ${entry.exercise}/${entry.file}: the engine's report is the runner's`, async () => {
    await assertSameGrading(entry.exercise, entry.source, SEEDS);
  });
}

for (const entry of loadCorpus().filter((entry) => entry.via !== "cli" && !entry.overflowsNativeStack)) {
  test(`hostile corpus ${entry.name}: the engine's report is the runner's`, async () => {
    await assertSameGrading(entry.exercise, sourceOf(entry), entry.seeds ?? HOSTILE_SEEDS);
  });
}
