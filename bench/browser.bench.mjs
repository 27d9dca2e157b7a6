// Browser benchmark: the time to grade each exercise's reference solution
// (whole suite, the page's own default budget) in headless Chromium, in the
// page's Web Worker, as a learner's "Run tests" does: cold (a fresh page,
// the first "Run tests": the worker starts and loads its engines) and warm
// (best of the next three). Then "first failure on screen": for each
// exercise's starter (which fails), the time from clicking "Run tests" to
// the first failing test's row in the page, beside the time to the summary
// (all tests in, which is when the failure appeared before results came as
// they finish), warm. Then, if bench/runner.bench.mjs ran before
// (target/bench/node.json), Chromium beside Node,
// native Rust and the conventional Vitest suite. Prints figures only.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LEARNER_CHROMIUM, startBrowser, openPage } from "../tests/support/browser.mjs";
import { lessonFile } from "../web/build/lesson-folder.mjs";

const WARM_ROUNDS = 3;
/** How long the learner types between putting the focus in the editor and running the tests (a guess, labelled as one). */
const TYPING_MS = 3_000;
/**
 * How long the learner looks at a result before pressing "Run tests" again
 * (a guess, labelled as one; a person takes longer). Kept so that figures
 * stay comparable with the passes that measured with it (BENCHMARKS.md).
 */
const READING_MS = 500;
const NODE_FIGURES = fileURLToPath(new URL("../target/bench/node.json", import.meta.url));

// The whole browser, as learners have it (the tests use the lighter headless shell).
const session = await startBrowser({ executablePath: LEARNER_CHROMIUM });
const chromium = {};
let seeds = null;
try {
  const { page: first, context: firstContext } = await openPage(session.browser, session.url);
  await first.waitForSelector("html[data-lesson-ready]");
  const exercises = await first.evaluate(() => Object.keys(window.leaselab.exercises));
  seeds = await first.evaluate(() => window.leaselab.grading.seeds);
  await firstContext.close();
  console.log(`suites in headless Chromium (page worker; ${seeds} random seeds, the page's default, + named scenarios): cold = a fresh page's first "Run tests", warm = best of the next ${WARM_ROUNDS}, each ${READING_MS} ms after the one before`);
  for (const exercise of exercises) {
    const source = readFileSync(lessonFile(exercise, "solution.js"), "utf8");
    const { page, context } = await openPage(session.browser, session.url);
    await page.waitForSelector("html[data-lesson-ready]");
    const timings = await page.evaluate(
      async ({ exercise, source, rounds, readingMs }) => {
        const results = [];
        for (let round = 0; round < rounds; round += 1) {
          if (round > 0) await new Promise((resolve) => setTimeout(resolve, readingMs));
          const started = performance.now();
          const report = await window.leaselab.grade({ exercise, source });
          results.push({ ms: performance.now() - started, runs: report.tests.reduce((sum, test) => sum + test.runs, 0), passed: report.score === report.maxScore });
        }
        return results;
      },
      { exercise, source, rounds: 1 + WARM_ROUNDS, readingMs: READING_MS },
    );
    await context.close();
    const [cold, ...warm] = timings;
    const best = warm.reduce((a, b) => (a.ms < b.ms ? a : b));
    chromium[exercise] = { runs: best.runs, warmMs: best.ms, coldMs: cold.ms };
    console.log(`  ${exercise.padEnd(8)} ${String(best.runs).padStart(4)} runs: warm ${best.ms.toFixed(0).padStart(5)} ms, cold ${cold.ms.toFixed(0).padStart(5)} ms${best.passed && cold.passed ? "" : "  REFERENCE FAILED"}`);
  }

  // The page loads the engines when the learner puts the focus in an editor (client.js's prepareGrading):
  // a fresh page, the focus in the exercise's editor, then a pause for typing, then the first grading.
  console.log(`first "Run tests" after the learner put the focus in the editor and typed for ${TYPING_MS / 1000} s (a fresh page; the engines load meanwhile), beside the cold figure above`);
  for (const exercise of exercises) {
    const source = readFileSync(lessonFile(exercise, "solution.js"), "utf8");
    const { page, context } = await openPage(session.browser, session.url);
    await page.waitForSelector("html[data-lesson-ready]");
    await page.locator(`#exercise-${exercise}`).scrollIntoViewIfNeeded();
    await page.locator(`#exercise-${exercise} .cm-content`).click();
    await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
    const ms = await page.evaluate(async ({ exercise, source }) => {
      const started = performance.now();
      await window.leaselab.grade({ exercise, source });
      return performance.now() - started;
    }, { exercise, source });
    await context.close();
    chromium[exercise].afterFocusMs = ms;
    console.log(`  ${exercise.padEnd(8)} ${ms.toFixed(0).padStart(5)} ms (cold ${chromium[exercise].coldMs.toFixed(0)} ms, warm ${chromium[exercise].warmMs.toFixed(0)} ms)`);
  }

  console.log(`first failure on screen, the lesson's starters (which fail), "Run tests" clicked in the page at its default budget (${seeds} seeds), warm (best of ${WARM_ROUNDS} after a first run, each ${READING_MS} ms after the one before): first failing row in the page / summary (all tests in)`);
  for (const exercise of exercises) {
    const { page, context } = await openPage(session.browser, session.url);
    await page.waitForSelector("html[data-lesson-ready]");
    const runner = page.locator(`#exercise-${exercise} .exercise-runner`);
    await runner.scrollIntoViewIfNeeded();
    await page.locator(`#exercise-${exercise} .exercise-runner[data-ready="true"] .cm-editor`).waitFor();
    const rounds = [];
    for (let round = 0; round < 1 + WARM_ROUNDS; round += 1) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, READING_MS));
      rounds.push(await page.evaluate(clickRunTests, exercise));
    }
    await context.close();
    const warm = rounds.slice(1);
    const best = (key) => Math.min(...warm.map((one) => one[key]));
    console.log(`  ${exercise.padEnd(8)} first failure ${best("failureMs").toFixed(0).padStart(5)} ms, summary ${best("summaryMs").toFixed(0).padStart(5)} ms${warm.every((one) => one.failed) ? "" : "  NO FAILURE SHOWN"}`);
  }
} finally {
  await session.close();
}

/**
 * In the page: clicks the exercise's "Run tests" and resolves, once the
 * summary is in, to the milliseconds from the click to the first failing
 * test's row and to the summary (both as the DOM has them, observed as it changes).
 */
function clickRunTests(exercise) {
  const root = document.querySelector(`#exercise-${exercise}`);
  const button = [...root.querySelectorAll("button")].find((candidate) => candidate.textContent === "Run tests");
  return new Promise((resolve) => {
    let failureMs = null;
    const observer = new MutationObserver(() => {
      const now = performance.now() - started;
      if (failureMs === null && root.querySelector(".runner-test.is-failed")) failureMs = now;
      if (root.querySelector(".runner-summary")) {
        observer.disconnect();
        resolve({ failureMs: failureMs ?? now, summaryMs: now, failed: failureMs !== null });
      }
    });
    observer.observe(root.querySelector(".runner-results"), { childList: true, subtree: true });
    const started = performance.now();
    button.click();
  });
}

if (existsSync(NODE_FIGURES)) {
  const node = JSON.parse(readFileSync(NODE_FIGURES, "utf8"));
  if (node.seeds !== seeds) {
    console.log(`(target/bench/node.json was measured at ${node.seeds} seeds, not ${seeds}: no comparison)`);
  } else {
    const ms = (value) => `${value.toFixed(0).padStart(6)} ms`;
    const times = (a, b) => `${(a / b).toFixed(1).padStart(5)}×`;
    console.log(`all at the default budget (${seeds} seeds); Node and native from bench/runner.bench.mjs, run just before`);
    console.log(`  exercise  Chromium warm  Chromium cold    Node sandboxed  native Rust   warm/native`);
    for (const [exercise, figures] of Object.entries(chromium)) {
      const other = node.exercises[exercise];
      if (!other) continue;
      console.log(`  ${exercise.padEnd(8)}  ${ms(figures.warmMs)}      ${ms(figures.coldMs)}      ${ms(other.sandboxedMs)}       ${ms(other.nativeMs)}   ${times(figures.warmMs, other.nativeMs)}`);
    }
    if (node.vitest && chromium.lock) {
      console.log(`  conventional Vitest suite of lock: ${node.vitest.wallSeconds.toFixed(2)} s wall, ${node.vitest.testMs.toFixed(0)} ms of tests; Chromium warm lock is ${times(node.vitest.testMs, chromium.lock.warmMs)} faster than its test time, ${times(node.vitest.wallSeconds * 1000, chromium.lock.warmMs)} than its wall time`);
    }
  }
}
