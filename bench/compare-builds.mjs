// Two builds of the page side by side: each exercise's reference solution
// graded warm ("Run tests" again on a page that graded it before) in build
// A, then in build B, alternated ROUNDS times, so both meet the same load.
// Prints the best of each and B's time as a share of A's. Prints figures;
// never passes or fails.
//
//   node bench/compare-builds.mjs <folder A> <folder B>     (e.g. an older web/dist copy, and web/dist)
import { readFileSync } from "node:fs";
import { LEARNER_CHROMIUM, openPage, startBrowser } from "../tests/support/browser.mjs";
import { lessonFile } from "../web/build/lesson-folder.mjs";

const ROUNDS = 5;
const [folderA, folderB] = process.argv.slice(2);
if (!folderA || !folderB) {
  console.error("usage: node bench/compare-builds.mjs <built page A> <built page B>");
  process.exit(2);
}

/** A page of each build, warmed up on every exercise. */
async function open(root) {
  const session = await startBrowser({ root, executablePath: LEARNER_CHROMIUM });
  const { page } = await openPage(session.browser, session.url);
  await page.waitForSelector("html[data-lesson-ready]");
  const exercises = await page.evaluate(() => Object.keys(window.leaselab.exercises));
  return { session, page, exercises };
}

const grade = (page, exercise) =>
  page.evaluate(
    async ({ exercise, source }) => {
      const started = performance.now();
      const report = await window.leaselab.grade({ exercise, source });
      if (report.score !== report.maxScore) throw new Error(`${exercise}: the reference solution failed`);
      return performance.now() - started;
    },
    { exercise, source: readFileSync(lessonFile(exercise, "solution.js"), "utf8") },
  );

const a = await open(folderA);
const b = await open(folderB);
try {
  const best = { a: {}, b: {} };
  for (const exercise of a.exercises) {
    await grade(a.page, exercise);
    await grade(b.page, exercise);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const exercise of a.exercises) {
      best.a[exercise] = Math.min(best.a[exercise] ?? Infinity, await grade(a.page, exercise));
      best.b[exercise] = Math.min(best.b[exercise] ?? Infinity, await grade(b.page, exercise));
    }
  }
  console.log(`warm suites at the page's default budget, Chromium, best of ${ROUNDS} alternated rounds`);
  console.log(`  exercise        A          B      B / A`);
  for (const exercise of a.exercises) {
    const [msA, msB] = [best.a[exercise], best.b[exercise]];
    console.log(`  ${exercise.padEnd(8)} ${msA.toFixed(0).padStart(6)} ms ${msB.toFixed(0).padStart(6)} ms   ${(msB / msA).toFixed(2)}`);
  }
} finally {
  await a.session.close();
  await b.session.close();
}
