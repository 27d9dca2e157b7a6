// The learner's module is evaluated once per process before the sandbox is
// sealed (crates/engine's runner), and every run starts from those instances as they
// were just after evaluation. These submissions are correct only if that
// holds: each counts, in module-level state, what its instance has done, and
// throws once the count is more than one process in one run can reach (the
// lock's also once it serves a second process). An instance shared by two
// processes, or kept from one run to the next, fails.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource, replaySource } from "../runner/grade.js";

const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const solution = (exercise) => readFileSync(new URL(`${exercise}/solution.js`, LESSON), "utf8");

let engines;
/** The engine's whole heap, in bytes. */
let memoryBytes;
before(async () => {
  engines = await loadNodeEngines();
  memoryBytes = JSON.parse(engines.leaselab.engineLimits()).memoryBytes;
});

// A lock process runs a script of a few steps: far fewer than 20 calls of
// tryLock and lock in one run (the lesson's scenarios and random scripts).
const LOCK_COUNTING = `${solution("lock")
  .replace("export async function tryLock(", "async function tryLockOnce(")
  .replace("export async function lock(", "async function lockOnce(")}
let calls = 0;
let servedProcess = null;
const count = (ctx) => {
  servedProcess ??= ctx.name;
  if (servedProcess !== ctx.name) throw new Error("this module instance served " + servedProcess + " and now " + ctx.name + ": it was shared");
  calls += 1;
  if (calls > 20) throw new Error("this module instance has served " + calls + " calls: it was kept from an earlier run");
};
export async function tryLock(ctx, key, ttlMs) { count(ctx); return tryLockOnce(ctx, key, ttlMs); }
export async function lock(ctx, key, ttlMs) { count(ctx); return lockOnce(ctx, key, ttlMs); }
`;

// The cas harness makes one store per run.
const CAS_COUNTING = `${solution("cas").replace("export function createStore(", "function createStoreOnce(")}
let stores = 0;
export function createStore(clock) {
  stores += 1;
  if (stores > 1) throw new Error("this module instance has made " + stores + " stores: it was kept from an earlier run");
  return createStoreOnce(clock);
}
`;

for (const [exercise, source] of [
  ["lock", LOCK_COUNTING],
  ["cas", CAS_COUNTING],
]) {
  test(`${exercise}: module-level state starts fresh in every run and every process`, async () => {
    const report = await gradeSource(engines, { exercise, source, options: { seeds: 60 } });
    assert.deepEqual(report.problems, []);
    assert.deepEqual(
      report.tests.filter((t) => t.status !== "passed").map((t) => `${t.name}: ${t.message}`),
      [],
    );
    assert.equal(report.score, report.maxScore);
  });
}

test("a replay starts from the same instances as the grading: the same failure, event for event", async () => {
  // Fails on its second call of tryLock or lock in any one instance: the
  // count is module-level state, so the failure depends on it being fresh.
  const source = LOCK_COUNTING.replace("calls > 20", "calls > 1");
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 20 } });
  const failed = report.tests.find((t) => t.status === "failed");
  assert.ok(failed, "a module that throws on its second lock call fails");
  const { replayToken, trace, violation } = failed.counterexample;
  const replay = await replaySource(engines, { exercise: "lock", source, token: replayToken });
  assert.deepEqual(replay.violation, violation);
  // The counterexample's trace may stop where the story does; the replay's runs on from there.
  assert.deepEqual(replay.execution.trace.slice(0, trace.length), trace);
});

test("a module too big for one instance per process: the sandbox seals the instances that fit, the runs evaluate the rest and fail as the module does, the same every time", async () => {
  // Each instance holds a typed array of about two sevenths of the engine's
  // memory (8 bytes an element, in one block): the preflight's one
  // instance fits, and so do a case's three, but not an election case's four.
  const elements = Math.floor(memoryBytes / 8 / 3.5);
  const source = `const table = new Float64Array(${elements}).fill(1.5);\n${solution("election")}`;
  const grade = () => gradeSource(engines, { exercise: "election", source, options: { seeds: 5 } });
  const report = await grade();
  assert.deepEqual(report.problems, []);
  const failed = report.tests.filter((t) => t.status === "failed");
  assert.ok(failed.length > 0 && failed.length < report.tests.length, "cases with fewer processes pass, the others fail");
  // The verdict says the processes share the one heap: no single instance used it all.
  const memoryVerdict = new RegExp(
    `^election\\.js: its top-level code used more than ${memoryBytes / 1024 / 1024} MiB of memory: .* Each of the test's 4 processes runs the module's top-level code, and all of them share one heap of ${memoryBytes / 1024 / 1024} MiB`,
  );
  for (const test of failed) assert.match(test.message, memoryVerdict);
  assert.equal(JSON.stringify(await grade()), JSON.stringify(report));
  const { replayToken, violation } = failed[0].counterexample;
  const replay = await replaySource(engines, { exercise: "election", source, token: replayToken });
  assert.deepEqual(replay.violation, violation);
});
