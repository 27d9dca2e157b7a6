// The command-line grader, as course staff and CI use it: exit statuses,
// every output format's published shape, batches with a CSV, secret seeds,
// and submissions that try to fool it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();
const EXERCISES = registry.names;
/** The most points a full submission can score: every exercise's, from the registry. */
const TOTAL = registry.exercises.reduce((sum, exercise) => sum + exercise.maxScore, 0);

function leaselab(args, env = {}) {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

/** A submission directory holding each exercise's solution.js or starter.js. */
function submission(which) {
  const dir = mkdtempSync(join(tmpdir(), `leaselab-${which}-`));
  for (const name of EXERCISES) copyFileSync(join(LESSON, name, `${which}.js`), join(dir, `${name}.js`));
  return dir;
}

const solutions = submission("solution");
const starters = submission("starter");

test("exit 0 when every test passes, 1 when some fail", async () => {
  const passed = await leaselab(["grade", solutions, "--seeds", "20"]);
  assert.equal(passed.status, 0, passed.stderr);
  assert.match(passed.stdout, new RegExp(`: ${TOTAL}/${TOTAL} points`));
  const failed = await leaselab(["grade", starters, "--seeds", "20"]);
  assert.equal(failed.status, 1);
  assert.match(failed.stdout, /FAIL/);
  assert.match(failed.stdout, /replay: lock@\d+\.\d+\.\d+:/);
});

test("exit 2 with a clear message for bad usage or unreadable input", async () => {
  const cases = [
    [["grade"], /grade needs at least one file or directory/],
    [["grade", solutions, "--format", "pdf"], /--format must be one of text, json/],
    [["grade", solutions, "--seeds", "many"], /--seeds needs a whole number/],
    [["grade", join(solutions, "nope.js")], /no such file or directory/],
    [["grade", join(ROOT, "README.md")], /cannot tell which exercise this is; name it cas\.js/],
    [["frobnicate", solutions], /unknown command "frobnicate"/],
    [["grade", tmpdir() + "/leaselab-empty-" + process.pid], /no such file or directory/],
  ];
  for (const [args, message] of cases) {
    const result = await leaselab(args);
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const empty = mkdtempSync(join(tmpdir(), "leaselab-empty-"));
  const none = await leaselab(["grade", empty]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no exercise file found/);
});

test("a single file is graded as the exercise its name says, or as --exercise", async () => {
  const named = await leaselab(["grade", join(solutions, "lock.js"), "--seeds", "10", "--format", "json"]);
  assert.equal(named.status, 0);
  assert.deepEqual(JSON.parse(named.stdout).results.map((r) => r.exercise), ["lock"]);
  const renamed = join(mkdtempSync(join(tmpdir(), "leaselab-")), "my-answer.js");
  copyFileSync(join(LESSON, "cas/solution.js"), renamed);
  const chosen = await leaselab(["grade", renamed, "--exercise", "cas", "--seeds", "10", "--format", "json"]);
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.equal(JSON.parse(chosen.stdout).results[0].exercise, "cas");
  // Its messages name the file graded, not the exercise's file.
  const broken = join(mkdtempSync(join(tmpdir(), "leaselab-")), "toplevel.js");
  writeFileSync(broken, 'throw new Error("boom at top");\n');
  const named2 = JSON.parse((await leaselab(["grade", broken, "--exercise", "lock", "--seeds", "5", "--format", "json"])).stdout).results[0].report;
  assert.match(named2.problems.join(" "), /^toplevel\.js:1:\d+: Error: boom at top/);
});

test("--format gradescope writes Gradescope's results.json shape", async () => {
  const out = join(mkdtempSync(join(tmpdir(), "leaselab-")), "results.json");
  const result = await leaselab(["grade", starters, "--seeds", "10", "--format", "gradescope", "--out", out]);
  assert.equal(result.status, 1);
  const report = JSON.parse(readFileSync(out, "utf8"));
  assert.equal(typeof report.score, "number");
  assert.ok(report.tests.length >= 25, `${report.tests.length} tests`);
  for (const entry of report.tests) {
    assert.deepEqual(Object.keys(entry).sort(), ["max_score", "name", "output", "score", "status", "visibility"]);
    assert.ok(["passed", "failed"].includes(entry.status));
    assert.ok(entry.score <= entry.max_score);
    assert.equal(entry.visibility, "visible");
  }
  assert.equal(report.score, report.tests.reduce((sum, entry) => sum + entry.score, 0));
  assert.ok(report.tests.some((entry) => entry.status === "failed" && entry.output.includes("replay: ")));
});

test("--format exercism writes test-runner results.json version 3", async () => {
  const result = await leaselab(["grade", starters, "--seeds", "10", "--format", "exercism"]);
  const report = JSON.parse(result.stdout);
  assert.equal(report.version, 3);
  assert.equal(report.status, "fail");
  for (const entry of report.tests) {
    assert.ok(["pass", "fail", "error"].includes(entry.status));
    assert.equal(typeof entry.name, "string");
    assert.equal(typeof entry.test_code, "string");
    // task_id numbers a task heading of an exercise's instructions.md; these exercises have none.
    assert.equal(entry.task_id, undefined);
    if (entry.status !== "pass") assert.equal(typeof entry.message, "string");
    if (entry.output !== undefined) assert.ok(entry.output.length <= 500);
  }
  // A file that does not load is an "error", with the reason as the message.
  const broken = join(mkdtempSync(join(tmpdir(), "leaselab-")), "lock.js");
  writeFileSync(broken, "export async function lock( {\n");
  const errored = JSON.parse((await leaselab(["grade", broken, "--format", "exercism"])).stdout);
  assert.equal(errored.status, "error");
  assert.match(errored.message, /lock\.js:\d+:\d+: SyntaxError/);
});

test("--format junit writes well-formed JUnit XML", async () => {
  const { stdout } = await leaselab(["grade", starters, "--seeds", "10", "--format", "junit"]);
  assert.match(stdout, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
  assert.equal((stdout.match(/<testsuite /g) ?? []).length, EXERCISES.length);
  assert.equal((stdout.match(/<testsuite /g) ?? []).length, (stdout.match(/<\/testsuite>/g) ?? []).length);
  const failures = (stdout.match(/<failure message="/g) ?? []).length;
  assert.ok(failures > 0);
  assert.match(stdout, new RegExp(`<testsuites name="[^"]+" tests="\\d+" failures="${failures}" errors="0" time="\\d+\\.\\d{3}">`));
  assert.doesNotMatch(stdout.replace(/&(amp|lt|gt|quot|#10);/g, ""), /&/, "every & is escaped");
});

test("--format github prints annotations and writes the job summary", async () => {
  const summary = join(mkdtempSync(join(tmpdir(), "leaselab-")), "summary.md");
  const result = await leaselab(["grade", starters, "--seeds", "10", "--format", "github"], { GITHUB_STEP_SUMMARY: summary });
  assert.equal(result.status, 1);
  const annotations = result.stdout.trim().split("\n");
  assert.ok(annotations.length > 0);
  for (const line of annotations) assert.match(line, /^::error file=[^,]+\.js(,line=\d+(,col=\d+)?)?,title=[^:]+::[^\n]+$/);
  assert.match(readFileSync(summary, "utf8"), new RegExp(`^## leaselab: .* scored \\d+/${TOTAL}`));
});

test("a batch of submissions uses a worker pool and writes a CSV of scores", async () => {
  const csv = join(mkdtempSync(join(tmpdir(), "leaselab-")), "scores.csv");
  const result = await leaselab(["grade", solutions, starters, "--seeds", "10", "--csv", csv, "--jobs", "2"]);
  assert.equal(result.status, 1);
  assert.match(result.stdout, /^submission\s+cas\s+lock\s+lease\s+fencing\s+election\s+total\n/);
  const rows = readFileSync(csv, "utf8").trim().split("\n");
  assert.equal(rows[0], "submission,cas,lock,lease,fencing,election,score,max_score,passed,missing");
  assert.equal(rows.length, 3);
  assert.match(rows[1], new RegExp(`,${TOTAL},${TOTAL},true,$`));
  assert.match(rows[2], /,false,$/);
});

test("--csv writes the scores for one submission too (a class's glob may match one folder)", async () => {
  const csv = join(mkdtempSync(join(tmpdir(), "leaselab-csv-")), "scores.csv");
  const result = await leaselab(["grade", starters, "--seeds", "5", "--csv", csv]);
  assert.equal(result.status, 1, result.stderr);
  const rows = readFileSync(csv, "utf8").trim().split("\n");
  assert.equal(rows.length, 2, `a header and one row, got ${rows.join(" | ")}`);
  assert.match(rows[1], /leaselab-starter-/);
});

test("the seed can be secret (--seed or LEASELAB_SEED) and is reproducible", async () => {
  const lock = join(starters, "lock.js");
  const token = async (args, env) => {
    const report = JSON.parse((await leaselab(["grade", lock, "--seeds", "5", "--format", "json", ...args], env)).stdout);
    return report.results[0].report.tests.find((t) => t.name === "random schedules").counterexample.replayToken;
  };
  const seeded = await token(["--seed", "4242"]);
  assert.equal(await token([], { LEASELAB_SEED: "4242" }), seeded);
  assert.notEqual(await token(["--seed", "1"]), seeded);
  // The flag wins over the environment, even over a LEASELAB_SEED that is not a seed.
  assert.equal(await token(["--seed", "4242"], { LEASELAB_SEED: "not a seed" }), seeded);
  const refused = await leaselab(["grade", lock, "--seeds", "5"], { LEASELAB_SEED: "not a seed" });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /LEASELAB_SEED needs a whole number/);
});

test("nothing a submission prints or does changes the verdict or the exit status", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-forger-"));
  const starter = readFileSync(join(LESSON, "lock/starter.js"), "utf8");
  writeFileSync(
    join(dir, "lock.js"),
    `console.log("ok   every test passed\\n${TOTAL}/${TOTAL} points");\ntry { process.exit(0); } catch {}\ntry { globalThis.exitCode = 0; } catch {}\n${starter}`,
  );
  const result = await leaselab(["grade", dir, "--seeds", "5"]);
  assert.equal(result.status, 1);
  assert.match(result.stdout, new RegExp(`lock\\.js \\(lock\\)\n(.*\n)*  score: 0/${registry.exercise("lock").maxScore}\n`));
});
