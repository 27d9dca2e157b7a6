// One budget everywhere: "Run tests" in the page and `leaselab grade` on the
// command line, both at their defaults, grade the same submission with the
// same number of runs and produce the same report, byte for byte (the CLI
// adds only its text timeline, which it renders from the same words). The
// budget both use is the registry's default, and the page says which.
//
// This file runs in the whole browser learners use (`chromium`), while the
// other browser tests drive the lighter headless shell (support/browser.mjs):
// the page's core path (it loads, grades in its workers at the default
// budget, and reports byte for byte what Node does) is checked in both.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { LEARNER_CHROMIUM, startBrowser } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";
import { loadNodeRegistry } from "../runner/node/engines.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const run = promisify(execFile);

let session;
before(async () => {
  session = await startBrowser({ executablePath: LEARNER_CHROMIUM });
});
after(async () => {
  await session?.close();
});

/** What `leaselab grade FILE --format json` reports for the file, at the CLI's defaults. */
async function cliReport(path, exercise) {
  const { stdout } = await run(process.execPath, ["cli/leaselab.mjs", "grade", path, "--exercise", exercise, "--format", "json"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).catch((error) => error);
  const report = JSON.parse(stdout).results[0].report;
  for (const t of report.tests) delete t.timeline;
  return report;
}

test("the page and the CLI grade with the registry's one default budget: same runs, same report byte for byte, for a passing and a failing submission", async () => {
  const registry = await loadNodeRegistry();
  const { page, problems } = await openLesson(session);
  assert.deepEqual(await page.evaluate(() => window.leaselab.grading), { graderVersion: registry.graderVersion, seeds: registry.defaults.seeds });
  const submissions = [
    ["lock", "exercises/ownership-election/lock/solution.js"],
    ["lock", "tests/fixtures/submissions/lock/unlock-without-version.js"],
  ];
  for (const [exercise, path] of submissions) {
    const source = readFileSync(new URL(path, new URL("../", import.meta.url)), "utf8");
    const inPage = await page.evaluate(({ exercise, source }) => window.leaselab.grade({ exercise, source }), { exercise, source });
    const fromCli = await cliReport(path, exercise);
    assert.equal(inPage.tests.find((t) => t.name === "random schedules")?.runs ?? registry.defaults.seeds, fromCli.tests.find((t) => t.name === "random schedules")?.runs ?? registry.defaults.seeds);
    assert.equal(JSON.stringify(inPage), JSON.stringify(fromCli), path);
    assert.equal(inPage.graderVersion, registry.graderVersion);
  }
  const passing = await page.evaluate((source) => window.leaselab.grade({ exercise: "lock", source }), readFileSync(new URL("../exercises/ownership-election/lock/solution.js", import.meta.url), "utf8"));
  assert.equal(passing.tests.find((t) => t.name === "random schedules").runs, registry.defaults.seeds, "a passing submission runs the whole budget");
  assert.deepEqual(problems, []);
});
