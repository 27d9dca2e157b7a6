// Results as they come, in real Chromium (issue 18): "Run tests" shows each
// test's verdict as soon as the worker that owns it finishes it, and a
// failure (its message, "Show the failing run") while the rest still run;
// the summary only when all are in. And the page's grade() hands its caller
// each test of a pooled grading once, exactly the merged report's entry.
//
// No timing: the page's grading workers are real, but their final "result"
// messages are held back (a wrapper around the page's Worker, installed
// before the page's scripts) until the test releases them. While they are
// held the grading cannot have ended on the page, so whatever the page
// shows then came as a test finished; a page that did not stream shows no
// verdict at all until the release, which the test notices as soon as
// every worker's result is held. The deadline's timer runs on a fake clock
// that never moves, so holding cannot run into it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startBrowser, screenshot } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";
import { loadNodeRegistry } from "../runner/node/engines.js";

const registry = await loadNodeRegistry();
const read = (path) => readFileSync(new URL(path, import.meta.url), "utf8");
// The lesson's lock starter fails every test, its first named scenario included.
const STARTER = read("../exercises/ownership-election/lock/starter.js");

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

/**
 * Runs in the page before its scripts: every Worker's grading "result" messages are
 * held in `window.heldResults.results` (and the workers counted) until
 * `window.heldResults.release()` delivers them, in the order they came. With
 * `failedTests`, so are the workers' failed tests (`{ type: "test" }`, the
 * failure with its shrunk story): only the news that a test fails gets through.
 */
function holdResults({ failedTests = false } = {}) {
  const NativeWorker = globalThis.Worker;
  const held = { workers: 0, results: [], resultsHeld: 0, holding: true };
  held.release = () => {
    held.holding = false;
    for (const deliver of held.results.splice(0)) deliver();
  };
  globalThis.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      held.workers += 1;
    }
    addEventListener(type, listener, options) {
      if (type !== "message") return super.addEventListener(type, listener, options);
      // A grading's result only: the answer to the engines' early loading (a "result" with no report) passes.
      const isGrading = (data) => data?.type === "result" && data.report !== undefined;
      const isFailedTest = (data) => failedTests && data?.type === "test" && data.test.status !== "passed";
      return super.addEventListener(
        type,
        (event) => {
          if (!held.holding || !(isGrading(event.data) || isFailedTest(event.data))) return listener.call(this, event);
          if (isGrading(event.data)) held.resultsHeld += 1;
          held.results.push(() => listener.call(this, event));
        },
        options,
      );
    }
  };
  window.heldResults = held;
}

/** The lesson with `source` as the lock draft, results held (see `holdResults` for `hold`), the deadline's clock stopped. */
async function openHolding(source, hold = {}) {
  const opened = await openLesson(session);
  await opened.page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, source);
  await opened.context.addInitScript(holdResults, hold);
  await opened.page.clock.install();
  await opened.page.reload();
  await opened.page.waitForSelector("html[data-lesson-ready]");
  const exercise = opened.page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator('.exercise-runner[data-ready="true"] .cm-editor').waitFor();
  return { ...opened, exercise };
}

test("Run tests: a failing first scenario is on screen, with its message and its run, while the grading still runs; the summary comes when all are in, and the row on screen stays", async () => {
  const { page, exercise, problems } = await openHolding(STARTER);
  const suite = registry.exercise("lock").tests.map((one) => one.title);
  await exercise.getByRole("button", { name: "Run tests" }).click();

  // The state to reach: the first row failed; or every worker's result held with no verdict on screen (no streaming).
  await page.waitForFunction(() => {
    const first = document.querySelector("#exercise-lock .runner-test");
    const { workers, results } = window.heldResults;
    return first?.classList.contains("is-failed") || (workers > 0 && results.length === workers);
  });
  const rows = exercise.locator(".runner-test");
  const first = rows.first();
  // Read at once, not waited for: on a page that does not stream there is no row to wait for.
  const shownFailed = await page.evaluate(() => document.querySelector("#exercise-lock .runner-test")?.classList.contains("is-failed") ?? false);
  assert.equal(shownFailed, true, "the first scenario's failure is on screen before any worker's result reached the page");
  assert.equal(await exercise.locator(".runner-summary").count(), 0, "no summary while the results are held");
  assert.match(await exercise.locator(".runner-status").innerText(), /^Running the tests… \d+ runs so far$/);
  assert.equal(await exercise.getByRole("button", { name: "Run tests" }).isDisabled(), true);
  assert.equal(await rows.count(), suite.length, "a row per test of the suite, pending until its verdict arrives");
  assert.equal(await first.locator(".runner-test-name").textContent(), `${suite[0]}: failed`, "the first row is the first named scenario");
  assert.ok((await first.locator(".runner-test-message").innerText()).length > 20, "its message is shown");
  // One announcement: the first failure to arrive, not each verdict.
  const announcer = exercise.locator(".runner-results [aria-live]");
  assert.equal(await announcer.count(), 1);
  const announced = await announcer.innerText();
  assert.match(announced, /^First failure: /);
  assert.ok(suite.includes(announced.replace("First failure: ", "")), announced);
  await screenshot(page, "results-as-they-come-running");

  // Its run opens at once, the rest still running; the focus goes into the story.
  await first.evaluate((row) => {
    row.dataset.shownWhileRunning = "yes";
  });
  await first.getByRole("button", { name: "Show the failing run" }).click();
  const story = exercise.locator(".runner-story");
  await story.locator("svg.timeline-svg").waitFor();
  assert.equal(await story.locator(".story-heading").innerText(), `Failing run: ${suite[0]}`);
  assert.equal(await page.evaluate(() => Boolean(document.activeElement?.closest(".runner-story"))), true, "the focus is in the story");
  assert.equal(await exercise.locator(".runner-summary").count(), 0, "still running");

  // Now the results reach the page: the summary appears above the same rows.
  await page.evaluate(() => window.heldResults.release());
  const summary = exercise.locator(".runner-summary");
  await summary.waitFor();
  assert.match(await summary.innerText(), new RegExp(`^0 of ${suite.length} tests passed · 0/\\d+ points$`));
  assert.equal(await exercise.locator('.runner-test[data-shown-while-running="yes"]').count(), 1, "the row shown while running is the same element: nothing on screen was rebuilt");
  assert.equal(await exercise.locator(".runner-test.is-pending").count(), 0);
  assert.equal(await announcer.innerText(), announced, "later failures are not announced");
  assert.equal(await story.locator(".story-heading").innerText(), `Failing run: ${suite[0]}`, "the run opened while the rest ran stays open");
  assert.equal(await page.evaluate(() => Boolean(document.activeElement?.closest(".runner-story"))), true, "the learner moved the focus into the story: the end of the run leaves it there");
  assert.deepEqual(problems, []);
});

test("Run tests: a failing test is marked failed as soon as a run breaks a rule, before its story is shrunk; the story then takes its place", async () => {
  const { page, exercise, problems } = await openHolding(STARTER, { failedTests: true });
  const suite = registry.exercise("lock").tests.map((one) => one.title);
  await exercise.getByRole("button", { name: "Run tests" }).click();

  // The state to reach: the first row marked failed; or every worker's result held with no such row (no early news).
  await page.waitForFunction(() => {
    const first = document.querySelector("#exercise-lock .runner-test");
    const { workers, resultsHeld } = window.heldResults;
    return first?.classList.contains("is-failed") || (workers > 0 && resultsHeld === workers);
  });
  const first = exercise.locator(".runner-test").first();
  // Read at once, not waited for: on a page without the early news there is no such row to wait for.
  const shownFailed = await page.evaluate(() => document.querySelector("#exercise-lock .runner-test")?.classList.contains("is-failed") ?? false);
  assert.equal(shownFailed, true, "the first scenario is marked failed while its shrunk failure is held back");
  assert.equal(await first.locator(".runner-test-name").textContent(), `${suite[0]}: failed`);
  assert.equal(await first.locator(".runner-test-message").innerText(), "Failed. Finding the shortest run that shows it…");
  assert.equal(await first.getByRole("button", { name: "Show the failing run" }).count(), 0, "no run to show until it is shrunk");
  // Announced as soon as it is known: the first failure to reach the page, which is the first row's or (the pool's
  // other worker owns the second scenario) another row's that is marked failed too by then.
  const announced = (await exercise.locator(".runner-results [aria-live]").innerText()).replace(/^First failure: /, "");
  const failedRows = await exercise.locator(".runner-test.is-failed .runner-test-name").evaluateAll((names) => names.map((name) => name.firstChild.textContent));
  assert.ok(failedRows.includes(announced), `the announced first failure "${announced}" is one of the rows marked failed: ${failedRows.join("; ")}`);
  await screenshot(page, "results-as-they-come-shrinking");

  // The shrunk failures and the results reach the page: the row shows its message and its run.
  await page.evaluate(() => window.heldResults.release());
  await exercise.locator(".runner-summary").waitFor();
  assert.equal(await exercise.locator(".runner-test.is-shrinking").count(), 0, "no row is left shrinking");
  assert.notEqual(await first.locator(".runner-test-message").innerText(), "Failed. Finding the shortest run that shows it…");
  assert.equal(await first.getByRole("button", { name: "Show the failing run" }).count(), 1);
  assert.deepEqual(problems, []);
});

test("grade(): the page's pool hands each test to onTest once, exactly the merged report's entry, the random schedules once their merged verdict is known", async () => {
  const { page } = await openLesson(session);
  const submissions = [
    // Its first failing seed from 10 is 21, in the last part of the seeds whatever the pool's size: earlier parts pass first.
    { exercise: "lease", source: read("./fixtures/accuracy/lease/bug-renew-two-thirds.js"), options: { seeds: 12, firstSeed: 10 } },
    { exercise: "lock", source: STARTER },
    { exercise: "lock", source: read("../exercises/ownership-election/lock/solution.js") },
  ];
  for (const request of submissions) {
    const { report, received } = await page.evaluate(async (request) => {
      const received = [];
      const report = await window.leaselab.grade({ ...request, onTest: (test, position) => received.push({ position, test }) });
      return { report, received };
    }, request);
    assert.equal(report.tests.length, registry.exercise(request.exercise).tests.length);
    const placed = report.tests.map((_, position) => received.filter((one) => one.position === position).map((one) => JSON.stringify(one.test)));
    assert.deepEqual(placed, report.tests.map((one) => [JSON.stringify(one)]), `${request.exercise}: every test once, exactly the report's entry`);
  }
});
