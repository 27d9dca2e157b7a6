// A crash of the learner's code (a throw, an infinite loop, a memory bomb)
// tells its story without a minimal schedule, and its runs are the costly
// ones: its shrinking spends at most the registry's crashShrinkAttemptsMax
// runs, the first of them the process that crashed, alone. Counted with the
// grading's own hooks: the runs made between two finished tests are that
// test's runs plus its shrinking.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";

const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const solution = (exercise) => readFileSync(new URL(`${exercise}/solution.js`, LESSON), "utf8");

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

/** Each test of the report with the runs spent on it, shrinking included. */
async function gradeCounting(exercise, source, seeds) {
  let runs = 0;
  const spent = [];
  const report = await gradeSource(engines, {
    exercise,
    source,
    options: { seeds },
    onRun: () => (runs += 1),
    onTest: (finished) => {
      spent.push({ test: finished, runs });
      runs = 0;
    },
  });
  return { report, spent };
}

test("a crash in the leader's code is shrunk to the crashed replica alone, in at most crashShrinkAttemptsMax runs", async () => {
  const { crashShrinkAttemptsMax } = registryOf(engines.leaselab).defaults;
  assert.ok(Number.isInteger(crashShrinkAttemptsMax) && crashShrinkAttemptsMax >= 1, `crashShrinkAttemptsMax: ${crashShrinkAttemptsMax}`);
  // Every replica that wins throws at its first unit of leader work.
  const source = solution("lease").replace(/export async function lead\(([^)]*)\) \{/, '$&\n  throw new Error("boom in " + ctx.name);');
  assert.notEqual(source, solution("lease"), "the lease solution's lead() was not found");
  const { report, spent } = await gradeCounting("lease", source, 5);
  const crashed = spent.filter(({ test }) => test.status === "failed");
  assert.equal(crashed.length, report.tests.length, "every test fails on the crash");
  for (const { test: failed, runs } of crashed) {
    assert.match(failed.message, /boom in p\d/, failed.name);
    assert.equal(failed.counterexample.processes, 1, `${failed.name}: ${failed.counterexample.replayToken}`);
    assert.ok(runs - failed.runs <= crashShrinkAttemptsMax, `${failed.name}: ${runs - failed.runs} runs spent shrinking, more than ${crashShrinkAttemptsMax}`);
  }
});
