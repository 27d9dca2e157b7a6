// Which of V8's compilers the CLI grades with (cli/wasm-tier.js): the
// baseline compiler alone for a job of about one submission's runs, both for
// longer jobs, or what `--wasm-tier` says. The choice is seen from outside, in V8's
// own trace of what it compiled, and it must never change a report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { BASELINE_ONLY_RUNS_MAX, chooseWasmTier } from "../cli/wasm-tier.js";
import { gradingPlan } from "../cli/grading-plan.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const registry = await loadNodeRegistry();
const SEEDS = registry.defaults.seeds;

/** Runs the CLI under V8's trace of its wasm compilations: the exit status, and how many functions its optimising compiler (TurboFan) compiled. */
function traced(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--trace-wasm-compilation-times", CLI, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, optimised: stdout.split("\n").filter((line) => line.includes("using TurboFan")).length, stderr });
    });
  });
}

/** A submission of one known-buggy file per exercise (tests/fixtures/submissions): every suite fails and shrinks its failures. */
function buggySubmission() {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-tier-"));
  for (const { name, file } of registry.exercises) {
    const folder = join(ROOT, "tests/fixtures/submissions", name);
    const [first] = readdirSync(folder).filter((entry) => entry.endsWith(".js")).sort();
    copyFileSync(join(folder, first), join(dir, file));
  }
  return dir;
}

test("auto takes the baseline compiler alone for a job of about one submission's runs, and both beyond", () => {
  const submission = { files: registry.exercises.map(({ name, file }) => ({ exercise: name, path: file, source: "" })) };
  const tier = (submissions, { jobs = 2, seeds = SEEDS, option = "auto" } = {}) => chooseWasmTier(option, gradingPlan(submissions, jobs, seeds), seeds);
  assert.equal(tier([submission]), "baseline", "one full submission");
  assert.equal(tier([submission], { jobs: 1 }), "baseline", "the same on one thread: threads do not count");
  assert.equal(tier([{ files: [submission.files[0]] }]), "baseline", "one file");
  assert.equal(tier([submission, submission]), "optimised", "two submissions");
  assert.equal(tier(Array(6).fill(submission), { jobs: 64 }), "optimised", "six submissions, however many threads");
  assert.equal(tier([{ files: [submission.files[0]] }], { seeds: BASELINE_ONLY_RUNS_MAX }), "baseline");
  assert.equal(tier([{ files: [submission.files[0]] }], { seeds: BASELINE_ONLY_RUNS_MAX + 1 }), "optimised");
  assert.equal(tier([{ files: submission.files.map((file) => ({ ...file, refused: "a pipe" })) }]), "optimised", "nothing to grade: V8's default");
  assert.equal(tier([submission], { option: "optimised" }), "optimised");
  assert.equal(tier(Array(6).fill(submission), { option: "baseline" }), "baseline");
});

test("auto on a short job: no function reaches V8's optimising compiler", async () => {
  const cas = join(ROOT, "exercises/ownership-election/cas/solution.js");
  const short = await traced(["grade", "--exercise", "cas", "--seeds", String(BASELINE_ONLY_RUNS_MAX), cas]);
  assert.equal(short.status, 0, short.stderr);
  assert.equal(short.optimised, 0);
});

test("--wasm-tier baseline and optimised give the same reports, byte for byte", async () => {
  const submission = buggySubmission();
  const reports = {};
  for (const tier of ["baseline", "optimised"]) {
    const out = join(mkdtempSync(join(tmpdir(), "leaselab-tier-report-")), "report.json");
    const graded = await traced(["grade", submission, "--format", "json", "--out", out, "--wasm-tier", tier]);
    assert.equal(graded.status, 1, graded.stderr);
    if (tier === "baseline") assert.equal(graded.optimised, 0);
    else assert.ok(graded.optimised > 0, "the optimising compiler ran");
    reports[tier] = readFileSync(out, "utf8");
  }
  const parsed = JSON.parse(reports.baseline);
  assert.ok(parsed.results.every((result) => result.report.tests.some((one) => one.status === "failed" && one.counterexample)), "every suite failed and shrank a failure");
  assert.equal(reports.optimised, reports.baseline);
});
