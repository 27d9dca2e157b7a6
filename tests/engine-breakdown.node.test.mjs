// The engine breaking down under a submission (runner/grade.js,
// `engineBrokeDown`). QuickJS checks its stack on wasm's shadow stack, but
// some of its recursion (the parser, JSON.stringify) uses almost none of it,
// so a submission nested deeply enough runs V8's native stack out first.
// A browser's worker has about 1 MiB of it, the CLI's grading threads 4 MiB.
// With 4 MiB, QuickJS's own check fires and the run gets the stack verdict;
// with 1 MiB, V8 stops the engine half-way. That submission must still get
// its verdict (the JavaScript runner grades it again), the caller must be
// told each test once, and the next submission must be graded right, all
// in a fresh instance of the grader's module (the spare). Each
// case fails without the fallback: the grading throws "Maximum call stack
// size exceeded".
//
// Where the nesting is in the source, the verdict is the module's, and the
// report is the CLI's, byte for byte. Where a built-in overflows at run
// time, the two stacks differ in kind: QuickJS's own check throws a
// RangeError the learner's code can catch, while V8's overflow ends the run.
// That difference is the stacks', and was there before the engine (the
// JavaScript runner on either stack gives the same reports as the engine on
// it): such a report is held to what a replay of its runs shows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { GradingThread } from "../cli/grading-thread.js";
import { lessonFile } from "../web/build/lesson-folder.mjs";
import { loadCorpus, sourceOf } from "./support/hostile.mjs";

const LOCK = readFileSync(lessonFile("lock", "solution.js"), "utf8");
const SEEDS = 3;
/** A browser worker's native stack, and the CLI threads' (Node's default). */
const PAGE_STACK_MB = 1;
const CLI_STACK_MB = 4;

/** The hostile corpus's files meant to overflow a small native stack. */
const OVERFLOWING = loadCorpus().filter((entry) => entry.overflowsNativeStack);
/** Nested in what the module compiles: the module cannot be loaded, so the report is its problem. */
const AT_LOAD = OVERFLOWING.filter((entry) => entry.expect === "problem");
/** Nested at run time, inside a built-in. */
const AT_RUN_TIME = OVERFLOWING.filter((entry) => entry.expect === "fail");
const STACK_VERDICT = "recursed too deeply, or built a value nested too deeply (stack overflow): does a function call itself with no case that stops it?";

/** Grades (then grades or replays each of `then`) in a fresh thread with `stackSizeMb` of native stack. */
function inThread(stackSizeMb, job) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./support/breakdown-worker.mjs", import.meta.url), {
      workerData: { seeds: SEEDS, ...job },
      resourceLimits: { stackSizeMb },
    });
    let answered = false;
    worker.once("message", (answers) => {
      answered = true;
      worker.terminate();
      resolve(answers);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (!answered) reject(new Error(`the grading thread exited with code ${code} before it answered`));
    });
  });
}

test("the corpus has files for both kinds of overflow", () => {
  assert.ok(AT_LOAD.length > 0 && AT_RUN_TIME.length > 0);
});

for (const entry of AT_LOAD) {
  test(`${entry.name}: the CLI's report on a browser worker's stack too`, { timeout: 240_000 }, async () => {
    const source = sourceOf(entry);
    const job = { exercise: entry.exercise, source };
    const [[small], [large]] = await Promise.all([inThread(PAGE_STACK_MB, job), inThread(CLI_STACK_MB, job)]);
    assert.equal(large.brokeDown, false, "with 4 MiB of native stack, QuickJS's own check gives the verdict");
    assert.equal(small.brokeDown, true, "with 1 MiB the engine breaks down (else this case no longer tests the fallback: make it deeper)");
    assert.equal(small.spare, true, "the fallback graded with the spare instance, not the one left mid-call");
    assert.equal(large.spare, false);
    assert.deepEqual(small.report, large.report);
    assert.ok(small.report.problems.some((problem) => problem.includes(`its top-level code ${STACK_VERDICT}`)), small.report.problems.join("\n"));
  });
}

for (const entry of AT_RUN_TIME) {
  test(`${entry.name}: a verdict on a browser worker's stack, each test handed over once, and replays that show it`, { timeout: 240_000 }, async () => {
    const source = sourceOf(entry);
    const [graded] = await inThread(PAGE_STACK_MB, { exercise: entry.exercise, source });
    assert.equal(graded.brokeDown, true, "the engine breaks down (else this case no longer tests the fallback: make it deeper)");
    assert.equal(graded.spare, true);
    const failed = graded.report.tests.filter((result) => result.status === "failed");
    assert.ok(failed.length > 0 && graded.report.score < graded.report.maxScore);
    for (const result of failed) assert.ok(result.message.includes(STACK_VERDICT), `${result.name}: ${result.message}`);
    assert.deepEqual(graded.handedOver, graded.report.tests, "each test handed over once, as the report has it");
    assert.equal(new Set(graded.announced).size, graded.announced.length, "each failure announced at most once");
    for (const name of graded.announced) assert.ok(failed.some((result) => result.name === name), `announced ${name}, which did not fail`);
    // A fresh thread of the same kind replays the first counterexample: the engine breaks down again, and the replay shows the same violation.
    const { counterexample } = failed.find((result) => result.counterexample);
    const [replayed] = await inThread(PAGE_STACK_MB, { exercise: entry.exercise, source, token: counterexample.replayToken });
    assert.equal(replayed.brokeDown, true);
    assert.equal(replayed.spare, true);
    assert.deepEqual(replayed.replay.violation, counterexample.violation);
  });
}

test("after the engine broke down, the same thread grades the next submissions right", { timeout: 240_000 }, async () => {
  const starter = readFileSync(lessonFile("lock", "starter.js"), "utf8");
  const then = [{ source: LOCK }, { source: starter }];
  const [small, large] = await Promise.all([
    inThread(PAGE_STACK_MB, { exercise: "lock", source: sourceOf(AT_LOAD.find((entry) => entry.exercise === "lock")), then }),
    inThread(CLI_STACK_MB, { exercise: "lock", source: starter }),
  ]);
  assert.equal(small[0].brokeDown, true);
  assert.equal(small[1].report.score, small[1].report.maxScore, "the lesson's solution still passes");
  // The JavaScript runner's QuickJS names another column in a stack frame (engine-parity); the rest is equal.
  const columnless = (report) => JSON.parse(JSON.stringify(report).replace(/(\.js:\d+):\d+/g, "$1"));
  assert.deepEqual(columnless(small[2].report), columnless(large[0].report), "the starter's report, as the engine gives it");
});

test("a CLI grading thread whose engine broke down returns the report, then ends, so the next file gets a fresh one", { timeout: 240_000 }, async () => {
  const thread = await GradingThread.start({ stackSizeMb: PAGE_STACK_MB });
  try {
    const [entry] = AT_LOAD;
    const outcome = await thread.grade({ exercise: entry.exercise, path: entry.path, source: sourceOf(entry) }, { firstSeed: 0, seeds: SEEDS }, 120_000);
    assert.ok(outcome.report.problems.some((problem) => problem.includes(`its top-level code ${STACK_VERDICT}`)), outcome.report.problems.join("\n"));
    assert.equal(thread.alive, false, "the thread was ended after its report");
  } finally {
    await thread.stop();
  }
});
