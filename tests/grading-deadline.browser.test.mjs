// The page's hard grading deadline in real Chromium. A submission stuck
// inside one long built-in call cannot be stopped by the sandbox's limits
// (they are checked between bytecodes), so the page terminates its grading
// worker: the submission gets the named "took too long" verdict, the page
// stays responsive meanwhile, and the next grading runs on a fresh worker.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startBrowser, axeViolations, screenshot } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";
import { deadlineMessage, gradingDeadlineMs } from "../runner/limits.js";
import { loadNodeEngines, loadNodeRegistry } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { STALL } from "./support/stall.mjs";

const SOLUTION = readFileSync(new URL("../exercises/ownership-election/lock/solution.js", import.meta.url), "utf8");

// Every export is stuck in one built-in call (support/stall.mjs).
const STUCK = `${STALL}
export async function tryLock(ctx, key, ttlMs) {
  return stall() >= 0 ? { version: 0 } : null;
}

export async function lock(ctx, key, ttlMs) {
  return { version: stall() };
}

export async function unlock(ctx, key, version) {
  return stall() >= 0;
}
`;

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

const passesFully = (report) => report.problems.length === 0 && report.tests.every((test) => test.status === "passed") && report.score === report.maxScore && report.maxScore > 0;

test("grade(): a call stuck in one built-in gets 'took too long' at the deadline, the page stays responsive meanwhile, and the next gradings run on fresh workers", async () => {
  const { page, problems } = await openLesson(session);
  // The deadline's timer runs on a fake clock, so the test decides when it fires: after the
  // interactions below, however long a busy machine takes for them (the workers' own time is untouched).
  await page.clock.install();
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  // The first grading loads the workers' engines, so the deadline below times the stuck code, not the loading.
  const warm = await page.evaluate((source) => window.leaselab.grade({ exercise: "lock", source }), SOLUTION);
  assert.ok(passesFully(warm), JSON.stringify(warm).slice(0, 500));

  // Start the stuck grading, and a second one queued behind it, without waiting for either.
  await page.evaluate(({ stuck, solution }) => {
    window.stuckGrading = { settled: false };
    window.stuckGrading.done = window.leaselab.grade({ exercise: "lock", source: stuck }).then((report) => {
      window.stuckGrading.settled = true;
      return report;
    });
    window.queuedGrading = window.leaselab.grade({ exercise: "lock", source: solution });
  }, { stuck: STUCK, solution: SOLUTION });

  // Meanwhile the page answers: type into another exercise's editor, and see the typing land.
  const cas = page.locator("#exercise-cas");
  await cas.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await cas.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n// typed while the grader was stuck");
  await cas.locator(".cm-content", { hasText: "typed while the grader was stuck" }).waitFor();
  assert.equal(await page.evaluate(() => window.stuckGrading.settled), false, "the interaction happened while the stuck grading was still running");

  // Now the deadline passes, and the stuck grading ends with the page's own verdict.
  const deadlineMs = gradingDeadlineMs((await loadNodeRegistry()).defaults.seeds);
  await page.clock.fastForward(deadlineMs);
  const timedOut = await page.evaluate(() => window.stuckGrading.done);
  assert.deepEqual(timedOut, { exercise: "lock", graderVersion: warm.graderVersion, score: 0, maxScore: warm.maxScore, problems: [deadlineMessage("lock.js", deadlineMs)], tests: [] });
  assert.match(timedOut.problems[0], /^lock\.js took too long/);

  // The grading queued behind the stuck one went to a fresh worker, and so does a new one.
  const queued = await page.evaluate(() => window.queuedGrading);
  assert.ok(passesFully(queued), JSON.stringify(queued).slice(0, 500));
  const after = await page.evaluate((source) => window.leaselab.grade({ exercise: "lock", source }), SOLUTION);
  assert.deepEqual(after, warm, "a fresh worker grades exactly like the first one");
  assert.deepEqual(problems, []);
});

test("grade(): with no seeds named, the page grades the registry's default budget, exactly as Node does with no options (so its deadline is computed from what runs); a nonsense deadlineMs is refused", async () => {
  const { page } = await openLesson(session);
  const inBrowser = await page.evaluate((source) => window.leaselab.grade({ exercise: "lock", source }), SOLUTION);
  // Node, with no options at all, grades with the Rust default.
  const inNode = await gradeSource(await loadNodeEngines(), { exercise: "lock", source: SOLUTION });
  assert.equal(JSON.stringify(inBrowser), JSON.stringify(inNode));
  const refused = await page.evaluate(() => window.leaselab.grade({ exercise: "lock", source: "", deadlineMs: -1 }).then(() => "graded", (error) => error.message));
  assert.match(refused, /deadlineMs must be a positive number of milliseconds/);
});

test("Run tests: a stuck submission shows the page's own deadline verdict like any code that could not run; the button comes back and the next run passes", async () => {
  const { page, problems } = await openLesson(session);
  // The page's deadline is a minute of real time: a fake clock jumps over it instead of waiting (the worker's own time is untouched).
  await page.clock.install();
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, STUCK);
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  const exercise = page.locator("#exercise-lock");
  // The runner, not the exercise: a long README leaves the runner below the page's preload margin.
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  const runButton = exercise.getByRole("button", { name: "Run tests" });
  const status = exercise.locator(".runner-status");

  await runButton.click();
  assert.equal(await runButton.isDisabled(), true);
  // "Running" (not "Starting the grader…"): the worker has loaded, and the submission's code runs.
  await status.filter({ hasText: /^Running the tests… 0 runs so far$/ }).waitFor();
  const deadlineMs = gradingDeadlineMs((await loadNodeRegistry()).defaults.seeds);
  await page.clock.fastForward(deadlineMs);

  const shown = exercise.locator(".runner-problems");
  await shown.waitFor();
  assert.equal(await shown.getAttribute("role"), "alert");
  assert.equal(await shown.locator("p").innerText(), "lock.js could not be run:");
  assert.deepEqual(await shown.locator("li").allInnerTexts(), [deadlineMessage("lock.js", deadlineMs)]);
  assert.equal(await status.innerText(), "Could not run: see below.");
  assert.equal(await runButton.isEnabled(), true);
  // As after any result: the focus is on what the run produced (here the problem), so a keyboard user reads it next.
  assert.equal(await page.evaluate(() => document.activeElement?.className), "runner-problems");
  assert.equal(await exercise.locator(".runner-summary, .runner-error").count(), 0);
  assert.equal(await exercise.locator(".exercise-status").innerText(), "Not passed yet");
  await screenshot(page, `grading-deadline-took-too-long`);
  assert.deepEqual(await axeViolations(page), []);

  // Replace the code with the solution in the editor and run again: a fresh worker grades it, no reload needed.
  await exercise.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(SOLUTION);
  await runButton.click();
  await exercise.locator(".runner-summary").waitFor();
  assert.match(await exercise.locator(".runner-summary").innerText(), /^(\d+) of \1 tests passed · (\d+)\/\2 points$/);
  assert.match(await exercise.locator(".exercise-status").innerText(), /Passed/);
  assert.equal(await runButton.isEnabled(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.className), "runner-summary", "the focus is on the result");
  assert.deepEqual(problems, []);
});
