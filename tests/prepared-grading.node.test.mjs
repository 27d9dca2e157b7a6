// Gradings whose sandboxes were made ahead (grade.js, `prepareNextGrading`;
// the page's worker makes them once it has answered) give the very report
// a grading that makes them on the spot gives: the same steps in fresh
// QuickJS instances, only earlier. And what was made ahead is used only by
// the grading it was made for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource, isGradingPrepared, preflight, prepareNextGrading, replaySource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";
import { createSandbox, DEFAULT_LIMITS } from "../runner/sandbox.js";

const engines = await loadNodeEngines();
const registry = registryOf(engines.leaselab);
const read = (path) => readFileSync(new URL(path, import.meta.url), "utf8");
const lessonFile = (exercise, name) => read(`../exercises/ownership-election/${exercise}/${name}.js`);
const SEEDS = 20;

/** The report of a grading made on the spot, and of one made from sandboxes prepared for it. */
async function bothWays(exercise, source, options = { seeds: SEEDS }) {
  const onTheSpot = await gradeSource(engines, { exercise, source, options });
  await prepareNextGrading(engines, { exercise });
  assert.equal(isGradingPrepared(engines, exercise), true);
  const prepared = await gradeSource(engines, { exercise, source, options });
  assert.equal(isGradingPrepared(engines, exercise), false, "the grading used what was made for it");
  return { onTheSpot: JSON.stringify(onTheSpot), prepared: JSON.stringify(prepared), report: prepared };
}

for (const { name } of registry.exercises) {
  test(`${name}: the solution and the starter get the same report, byte for byte, from sandboxes made ahead`, async () => {
    for (const file of ["solution", "starter"]) {
      const { onTheSpot, prepared } = await bothWays(name, lessonFile(name, file));
      assert.equal(prepared, onTheSpot, file);
    }
  });
}

test("a memory bomb, a syntax error and a missing export get the same report from sandboxes made ahead", async () => {
  const bomb = await bothWays("lock", read("./fixtures/hostile/lock/memory-big-string.js"), { seeds: 2 });
  assert.equal(bomb.prepared, bomb.onTheSpot);
  assert.ok(bomb.report.tests.some((one) => /MiB of memory/.test(one.message ?? "")), "the bomb hits the memory cap");

  const broken = await bothWays("lock", "export async function tryLock( {");
  assert.equal(broken.prepared, broken.onTheSpot);
  assert.match(broken.report.problems[0], /SyntaxError/);

  const missing = await bothWays("lease", "export async function campaign() {}");
  assert.equal(missing.prepared, missing.onTheSpot);
  assert.match(missing.report.problems.join(" "), /must export `lead`/);
});

test("after a hostile submission, the sandboxes made ahead carry nothing of it: the next one's report is the one it gets alone", async () => {
  // The heap probe reports, in its message, how much memory earlier code left behind.
  const next = { exercise: "lock", source: read("./fixtures/hostile/lock/heap-probe-across-runs.js"), options: { seeds: 2 } };
  const alone = JSON.stringify(await gradeSource(engines, next));
  for (const hostile of ["memory-big-string.js", "caught-out-of-memory.js", "heap-probe-across-runs.js"]) {
    await gradeSource(engines, { exercise: "lock", source: read(`./fixtures/hostile/lock/${hostile}`), options: { seeds: 2 } });
    const itsInstance = engines.quickjs.current;
    await prepareNextGrading(engines, { exercise: "lock" });
    assert.equal(isGradingPrepared(engines, "lock"), true);
    assert.notEqual(engines.quickjs.current, itsInstance, `made in fresh QuickJS instances, not in ${hostile}'s`);
    assert.equal(JSON.stringify(await gradeSource(engines, next)), alone, `after ${hostile}`);
  }
});

test("sandboxes made for one grading are not used by another: another exercise, or after another submission began (a replay)", async () => {
  await prepareNextGrading(engines, { exercise: "lock" });
  const cas = lessonFile("cas", "solution");
  const plain = JSON.stringify(await gradeSource(engines, { exercise: "cas", source: cas, options: { seeds: SEEDS } }));
  assert.equal(isGradingPrepared(engines, "lock"), false, "a grading of another exercise drops them");
  assert.equal(JSON.stringify(await gradeSource(engines, { exercise: "cas", source: cas, options: { seeds: SEEDS } })), plain);

  await prepareNextGrading(engines, { exercise: "lock" });
  const failing = await gradeSource(engines, { exercise: "lock", source: lessonFile("lock", "starter"), options: { seeds: SEEDS } });
  await prepareNextGrading(engines, { exercise: "lock" });
  const token = failing.tests.find((one) => one.counterexample).counterexample.replayToken;
  await replaySource(engines, { exercise: "lock", source: lessonFile("lock", "starter"), token });
  assert.equal(isGradingPrepared(engines, "lock"), false, "a replay began another submission in between");
});

test("a preflight sandbox made ahead counts its wall-clock backstop from the preflight, not from when it was made", () => {
  let now = 0;
  const spec = registry.exercise("lock");
  // Enough top-level work for the sandbox to look at its clock (every 16th interrupt), within the step budget.
  const source = `for (let i = 0; i < 400000; i += 1) {}\n${lessonFile("lock", "solution")}`;
  const madeLongAgo = () => {
    engines.quickjs.beginSubmission();
    const sandbox = createSandbox(engines.quickjs, { limits: DEFAULT_LIMITS, realNow: () => now });
    now += DEFAULT_LIMITS.wallMs * 10;
    return sandbox;
  };
  assert.deepEqual(preflight(engines.quickjs, { spec, source, fileName: "lock.js", sandbox: madeLongAgo() }), []);

  // The same sandbox used as if it had just been made: the backstop fires, which is what the restart prevents.
  const stale = madeLongAgo();
  stale.restartClock = () => {};
  const problems = preflight(engines.quickjs, { spec, source, fileName: "lock.js", sandbox: stale });
  assert.match(problems.join(" "), /ran for more than 5 s of real time/);
});
