// The CLI's reports of many files at once, for tests that hold another
// host's reports to them (the page's, in tests/hosts.browser.test.mjs and
// tests/hostile.browser.test.mjs).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEADLINE_MS_MAX } from "../../runner/limits.js";

const CLI = fileURLToPath(new URL("../../cli/leaselab.mjs", import.meta.url));

/**
 * The CLI's report of each of `files` (`{ name, exercise, source, seeds }`; name → JSON text), from one batch per
 * budget: each file is a submission folder of its own holding it under its
 * exercise's file name (graded on what it holds: `--require none`). Each failing test's `timeline`, the text the CLI
 * renders from its counterexample for its formats, is left out: the page
 * draws its own from the same counterexample.
 */
export function gradeWithCli(files) {
  const reports = new Map();
  const scratch = mkdtempSync(join(tmpdir(), "leaselab-hosts-"));
  try {
    const budgets = [...new Set(files.map((file) => file.seeds))];
    for (const seeds of budgets) {
      const group = files.filter((file) => file.seeds === seeds);
      const inputs = join(scratch, `in-${seeds}`);
      const outputs = join(scratch, `out-${seeds}`);
      const folders = group.map((file, index) => {
        const folder = join(inputs, String(index).padStart(4, "0"));
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `${file.exercise}.js`), file.source);
        return folder;
      });
      try {
        // Both hosts get the longest deadline there is: a verdict, not a busy machine, must decide each report.
        const timeout = String(DEADLINE_MS_MAX / 1000);
        execFileSync("node", [CLI, "grade", ...folders, "--require", "none", "--seeds", String(seeds), "--timeout", timeout, "--format", "json", "--out", outputs], { stdio: "pipe", maxBuffer: 1 << 30 });
      } catch (error) {
        // Exit 1: some test failed, which most of these files are for.
        if (error.status !== 1) throw new Error(`the CLI failed (${error.status}): ${String(error.stderr).slice(0, 2000)}`);
      }
      // One submission's report is the file --out names; several go into the folder it names.
      const written = statSync(outputs).isDirectory() ? readdirSync(outputs).map((name) => join(outputs, name)) : [outputs];
      for (const path of written) {
        const graded = JSON.parse(readFileSync(path, "utf8"));
        const file = group[Number(graded.name)];
        assert.equal(graded.results.length, 1, `${file.name}: one exercise file in its folder`);
        // The CLI adds each failure's text timeline, rendered from its counterexample, for its formats.
        const report = graded.results[0].report;
        for (const test of report.tests) delete test.timeline;
        reports.set(file.name, JSON.stringify(report));
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return reports;
}


/** Fails naming where `fromPage` first differs from `fromCli` (two report JSON texts), if it does. */
export function sameReport(name, fromPage, fromCli) {
  if (fromPage === fromCli) return null;
  const at = [...fromPage].findIndex((char, index) => char !== fromCli[index]);
  return `${name}: the page's report differs from the CLI's at character ${at}:\n page: …${fromPage.slice(Math.max(0, at - 200), at + 300)}\n CLI:  …${fromCli.slice(Math.max(0, at - 200), at + 300)}`;
}
