// One engine, one verdict on every host: the page (Chromium's Web Workers,
// a grading split between them) and the CLI (Node's worker threads, a
// batch) give byte-identical reports for each exercise's solution and
// starter and for every file of the accuracy corpus. The hostile corpus,
// deep programs and big buffers included, is held to the same in
// tests/hostile.browser.test.mjs, which grades it in the page anyway.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startBrowser } from "./support/browser.mjs";
import { gradeWithCli, sameReport } from "./support/cli-reports.mjs";
import { openLesson } from "./support/lesson.mjs";
import { corpus as accuracyCorpus, DEFAULT_SEEDS } from "./support/accuracy.mjs";
import { EXERCISES, LESSON_DIR } from "./support/hostile.mjs";
import { DEADLINE_MS_MAX } from "../runner/limits.js";

const ACCURACY_SEEDS = 40;

/** Every file both hosts grade: `{ name, exercise, source, seeds }`. */
const FILES = [
  ...EXERCISES.flatMap((exercise) =>
    ["solution.js", "starter.js"].map((file) => ({
      name: `lesson/${exercise}/${file}`,
      exercise,
      source: readFileSync(join(LESSON_DIR, exercise, file), "utf8"),
      seeds: DEFAULT_SEEDS,
    })),
  ),
  // The accuracy corpus at a smaller budget: what is under test is that the hosts agree, not the verdicts.
  ...accuracyCorpus.map((entry) => ({ name: `accuracy/${entry.exercise}/${entry.file}`, exercise: entry.exercise, source: entry.source, seeds: ACCURACY_SEEDS })),
];

let session;
let page;
let cliReports;
before(async () => {
  cliReports = gradeWithCli(FILES);
  session = await startBrowser();
  ({ page } = await openLesson(session));
});

after(async () => {
  await session?.close();
});

for (const file of FILES) {
  test(`${file.name}: the page's report is the CLI's, byte for byte`, { timeout: 10 * 60_000 }, async () => {
    const fromPage = await page.evaluate(
      async (request) => JSON.stringify(await window.leaselab.grade(request)),
      { exercise: file.exercise, source: file.source, options: { seeds: file.seeds }, deadlineMs: DEADLINE_MS_MAX },
    );
    const fromCli = cliReports.get(file.name);
    assert.ok(fromCli, `the CLI graded ${file.name}`);
    const difference = sameReport(file.name, fromPage, fromCli);
    if (difference) assert.fail(difference);
  });
}
