// Browser benchmark: the time to grade each exercise's reference solution
// (whole suite, the page's own default budget) in headless Chromium, in the page's Web
// Worker, as a learner's "Run tests" does. Prints figures only.
import { readFileSync } from "node:fs";
import { startBrowser, openPage } from "../tests/support/browser.mjs";

import { lessonFile } from "../web/build/lesson-folder.mjs";
const session = await startBrowser();
try {
  const { page } = await openPage(session.browser, session.url);
  await page.waitForSelector("html[data-lesson-ready]");
  const { exercises, seeds } = await page.evaluate(() => ({ exercises: Object.keys(window.leaselab.exercises), seeds: window.leaselab.grading.seeds }));
  console.log(`suite timings in headless Chromium (page worker; ${seeds} random seeds, the page's default, + named scenarios; best of 3)`);
  for (const exercise of exercises) {
    const source = readFileSync(lessonFile(exercise, "solution.js"), "utf8");
    const timings = await page.evaluate(async ({ exercise, source }) => {
      const results = [];
      for (let round = 0; round < 3; round += 1) {
        const started = performance.now();
        const report = await window.leaselab.grade({ exercise, source });
        results.push({ ms: performance.now() - started, runs: report.tests.reduce((sum, test) => sum + test.runs, 0), passed: report.score === report.maxScore });
      }
      return results;
    }, { exercise, source });
    const best = timings.reduce((a, b) => (a.ms < b.ms ? a : b));
    console.log(`  ${exercise.padEnd(8)} ${String(best.runs).padStart(4)} runs in ${best.ms.toFixed(0).padStart(5)} ms  (first run ${timings[0].ms.toFixed(0)} ms, includes loading the engines)${best.passed ? "" : "  REFERENCE FAILED"}`);
  }
} finally {
  await session.close();
}
