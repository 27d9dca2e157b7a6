// A file graded in parts when there are fewer files than grading threads
// (cli/batch.js, cli/grading-plan.js; runner/merge.js splits and merges, as
// for the page's workers): the plan, the report and the printed text the
// same as one thread gives, and a part that fails ending the file's other
// parts at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GradingThread } from "../cli/grading-thread.js";
import { gradingPlan, partsPerFile } from "../cli/grading-plan.js";
import { DEADLINE_MS_MAX } from "../runner/limits.js";
import { PARTS_MAX } from "../runner/merge.js";
import { STALL } from "./support/stall.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const KILLER = join(ROOT, "tests/fixtures/cli/kill-grading-thread.mjs");

/** The lock exercise with a lock() stuck inside one built-in call (support/stall.mjs): every named scenario that locks never ends. */
const STUCK_LOCK = `${STALL}
export async function tryLock(ctx, key, ttlMs) {
  return null;
}

export async function lock(ctx, key, ttlMs) {
  return stall() >= 0 ? { version: 0 } : null;
}

export async function unlock(ctx, key, version) {
  return true;
}
`;

/** Runs the CLI: `{ status, stdout, stderr }`; status "killed" if it outlived `timeout` ms (only a broken CLI does). */
function leaselab(args, { nodeArgs = [], timeout = DEADLINE_MS_MAX } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, CLI, ...args], { timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? (error.killed ? "killed" : error.code) : 0, stdout, stderr });
    });
  });
}

test("one file's grading split across the grading threads prints, and reports, exactly what one thread gives", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-split-"));
  // Failing named scenarios in every part, and random schedules that fail and are shrunk.
  copyFileSync(join(LESSON, "lease/starter.js"), join(dir, "lease.js"));
  const file = join(dir, "lease.js");
  const run = (args) => leaselab(["grade", file, "--seeds", "40", ...args]);
  const [whole, split, wholeJson, splitJson] = await Promise.all([run(["--jobs", "1"]), run(["--jobs", "3"]), run(["--jobs", "1", "--format", "json"]), run(["--jobs", "3", "--format", "json"])]);
  assert.equal(whole.status, 1);
  assert.equal(split.status, 1);
  assert.equal(split.stdout, whole.stdout, "the text, printed test by test");
  assert.equal(splitJson.stdout, wholeJson.stdout, "the whole report");
  const { results } = JSON.parse(wholeJson.stdout);
  assert.ok(results[0].report.tests.filter((one) => one.status === "failed").length > 1);
});

test("a file is split only when there are fewer files than threads, into at most PARTS_MAX parts and no more parts than schedules", () => {
  assert.equal(partsPerFile(2, 1, 200), 2);
  assert.equal(partsPerFile(2, 2, 200), 1);
  assert.equal(partsPerFile(2, 5, 200), 1);
  assert.equal(partsPerFile(8, 3, 200), 2);
  assert.equal(partsPerFile(16, 1, 200), PARTS_MAX);
  assert.equal(partsPerFile(4, 1, 3), 3);
  assert.equal(partsPerFile(1, 1, 200), 1);
  assert.equal(partsPerFile(2, 0, 200), 1);
  const file = (refused = null) => ({ exercise: "lock", path: "lock.js", source: "", refused });
  const plan = (submissions, jobs) => {
    const { files, parts, threads } = gradingPlan(submissions, jobs, 200);
    return { files: files.map(({ s, f }) => [s, f]), parts, threads };
  };
  assert.deepEqual(plan([{ files: [file()] }], 2), { files: [[0, 0]], parts: 2, threads: 2 });
  assert.deepEqual(plan([{ files: [file(), file("a pipe"), file()] }, { files: [file()] }], 8), { files: [[0, 0], [0, 2], [1, 0]], parts: 2, threads: 6 });
  assert.deepEqual(plan([{ files: [file("a pipe")] }], 2), { files: [], parts: 1, threads: 1 }, "one thread even when every file was refused: it knows the maximum scores");
});

// Before, a stopped thread's grading never settled, and a batch whose other slot failed to start a thread waited forever.
test("a grading thread stopped while it grades answers that the grading was stopped", { timeout: 120_000 }, async () => {
  const thread = await GradingThread.start();
  // The stuck source keeps the grading pending however fast the machine: the stop comes while it is.
  const graded = thread.grade({ exercise: "lock", path: "lock.js", source: STUCK_LOCK }, { firstSeed: 1, seeds: 5 }, DEADLINE_MS_MAX, () => {});
  const stopping = thread.stop();
  const outcome = await graded;
  await stopping;
  assert.deepEqual(outcome, { problem: "grading lock.js was stopped before it finished" });
  assert.equal(thread.alive, false);
});

test("when one part of a file fails, the file's other parts are stopped at once, not left to their deadline", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-split-fail-"));
  const file = join(dir, "lock.js");
  // The first part is stuck in lock() for many minutes; the second part's thread dies at once.
  writeFileSync(file, `${STUCK_LOCK}\n// LEASELAB_TEST_EXIT_SECOND_PART\n`);
  const result = await leaselab(["grade", file, "--jobs", "2", "--timeout", "600", "--format", "json"], { nodeArgs: ["--import", KILLER], timeout: 300_000 });
  assert.notEqual(result.status, "killed", "the CLI waited for the stuck part's deadline");
  assert.equal(result.status, 1, result.stderr);
  const { report } = JSON.parse(result.stdout).results[0];
  assert.equal(report.score, 0);
  assert.deepEqual(report.problems, ["grading lock.js stopped unexpectedly (the grading thread exited with code 3); the other files were graded; grade this one alone, and report it if it happens again"]);
});
