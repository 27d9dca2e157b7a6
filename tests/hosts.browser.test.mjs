// One engine, one verdict on every host: the page (Chromium's Web Workers,
// a grading split between them) and the CLI (Node's worker threads, a
// batch) give byte-identical reports for every file of the hostile and
// accuracy corpora and for each exercise's solution and starter. Deep
// programs, big buffers and hangs inside built-ins included: the engine's
// own limits decide every verdict, never a host's stack or memory.
//
// Left out: the hostile files that only a real-time deadline stops (`via:
// cli`, whose verdict names the deadline, which differs between the page
// and the CLI by design) and the generated 200 MB source (refused by size on
// both sides, by the same sentence: tests/hostile.*.test.mjs hold it).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBrowser } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";
import { corpus as accuracyCorpus, DEFAULT_SEEDS } from "./support/accuracy.mjs";
import { EXERCISES, LESSON_DIR, loadCorpus } from "./support/hostile.mjs";
import { DEADLINE_MS_MAX } from "../runner/limits.js";

const CLI = fileURLToPath(new URL("../cli/leaselab.mjs", import.meta.url));

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
  ...accuracyCorpus.map((entry) => ({ name: `accuracy/${entry.exercise}/${entry.file}`, exercise: entry.exercise, source: entry.source, seeds: DEFAULT_SEEDS })),
  ...loadCorpus()
    .filter((entry) => entry.via !== "cli" && entry.generate === null)
    .map((entry) => ({ name: `hostile/${entry.name}`, exercise: entry.exercise, source: readFileSync(entry.path, "utf8"), seeds: entry.seeds })),
];

/**
 * The CLI's report of each file (name → JSON text), from one batch per
 * budget: each file is a submission folder of its own holding it under its
 * exercise's file name.
 */
function gradeWithCli() {
  const reports = new Map();
  const scratch = mkdtempSync(join(tmpdir(), "leaselab-hosts-"));
  try {
    const budgets = [...new Set(FILES.map((file) => file.seeds))];
    for (const seeds of budgets) {
      const group = FILES.filter((file) => file.seeds === seeds);
      const inputs = join(scratch, `in-${seeds}`);
      const outputs = join(scratch, `out-${seeds}`);
      const folders = group.map((file, index) => {
        const folder = join(inputs, String(index).padStart(4, "0"));
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `${file.exercise}.js`), file.source);
        return folder;
      });
      try {
        execFileSync("node", [CLI, "grade", ...folders, "--seeds", String(seeds), "--format", "json", "--out", outputs], { stdio: "pipe", maxBuffer: 1 << 30 });
      } catch (error) {
        // Exit 1: some test failed, which most of these files are for.
        if (error.status !== 1) throw new Error(`the CLI failed (${error.status}): ${String(error.stderr).slice(0, 2000)}`);
      }
      for (const report of readdirSync(outputs)) {
        const graded = JSON.parse(readFileSync(join(outputs, report), "utf8"));
        const file = group[Number(graded.name)];
        assert.equal(graded.results.length, 1, `${file.name}: one exercise file in its folder`);
        reports.set(file.name, JSON.stringify(graded.results[0].report));
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return reports;
}

let session;
let page;
let cliReports;
before(async () => {
  cliReports = gradeWithCli();
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
    if (fromPage !== fromCli) {
      const at = [...fromPage].findIndex((char, index) => char !== fromCli[index]);
      assert.fail(`${file.name} differs at character ${at}:\n page: …${fromPage.slice(Math.max(0, at - 200), at + 300)}\n CLI:  …${fromCli.slice(Math.max(0, at - 200), at + 300)}`);
    }
  });
}
