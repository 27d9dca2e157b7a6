// dist/gradescope-autograder.zip as Gradescope uses it: unzipped into
// <root>/source, `setup.sh` once (Node is present here, so it installs only
// the package, from the bundle), then `run_autograder` per submission,
// checked against the fields of Gradescope's results.json
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/). The
// root is a temporary folder laid out like /autograder (AUTOGRADER_ROOT).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { DIST, envWithoutRust, fillSubmission, requireDist, run, scratchFolder } from "./support/dist.mjs";

const registry = await loadNodeRegistry();
const TOTAL = registry.exercises.reduce((sum, exercise) => sum + exercise.maxScore, 0);
const BUNDLE = requireDist(join(DIST, "gradescope-autograder.zip"));
const root = scratchFolder("gradescope");
const env = { ...envWithoutRust(root), AUTOGRADER_ROOT: root };
const SOURCE = join(root, "source");
const SUBMISSION = join(root, "submission");
const CONFIG = join(SOURCE, "config.json");
const VISIBILITIES = ["hidden", "after_due_date", "after_published", "visible"];

/** Unzips the bundle into source/ (as Gradescope does) and runs setup.sh from there. */
async function setUp() {
  const unzipped = await run("unzip", ["-q", BUNDLE, "-d", SOURCE]);
  assert.equal(unzipped.status, 0, `unzip (Debian's unzip package) failed: ${unzipped.stderr}`);
  const setup = await run(join(SOURCE, "setup.sh"), [], { env, cwd: root });
  assert.equal(setup.status, 0, setup.stderr);
  return setup;
}

/** Puts `files` ({ name: source path }) in a fresh submission/ and runs run_autograder; resolves to results.json. */
async function grade(fill, config) {
  rmSync(SUBMISSION, { recursive: true, force: true });
  mkdirSync(SUBMISSION, { recursive: true });
  fill(SUBMISSION);
  writeFileSync(CONFIG, JSON.stringify(config));
  const graded = await run(join(SOURCE, "run_autograder"), [], { env, cwd: root });
  const results = JSON.parse(readFileSync(join(root, "results/results.json"), "utf8"));
  return { graded, results };
}

/** The fields Gradescope reads, with the types and values its specification allows. */
function assertGradescopeShape(results) {
  assert.equal(typeof results.score, "number");
  assert.equal(typeof results.output, "string");
  assert.ok(VISIBILITIES.includes(results.visibility), results.visibility);
  assert.ok(Array.isArray(results.tests));
  for (const one of results.tests) {
    assert.equal(typeof one.name, "string");
    assert.equal(typeof one.score, "number");
    assert.equal(typeof one.max_score, "number");
    assert.ok(one.score >= 0 && one.score <= one.max_score, `${one.name}: ${one.score}/${one.max_score}`);
    assert.ok(["passed", "failed"].includes(one.status), one.status);
    assert.equal(typeof one.output, "string");
    assert.ok(VISIBILITIES.includes(one.visibility), one.visibility);
  }
  assert.equal(results.score, results.tests.reduce((sum, one) => sum + one.score, 0));
}

const setup = await setUp();

test("the bundle holds setup.sh and run_autograder (executable), config.json and the tarball; setup installs the package", () => {
  for (const script of ["setup.sh", "run_autograder"]) assert.ok(statSync(join(SOURCE, script)).mode & 0o100, `${script} is not executable`);
  assert.deepEqual(JSON.parse(readFileSync(CONFIG, "utf8")), { seed: null, seeds: null });
  assert.match(setup.stdout, new RegExp(`grader ${registry.graderVersion.replaceAll(".", "\\.")}`));
});

test("a passing submission: full marks, every test passed", async () => {
  const { graded, results } = await grade((dir) => fillSubmission(dir, "solution", registry.exercises), { seed: null });
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.equal(results.score, TOTAL);
  assert.ok(results.tests.length >= registry.exercises.length);
  assert.ok(results.tests.every((one) => one.status === "passed" && one.score === one.max_score));
});

test("a failing submission: its failures say what went wrong, with a replay token; the secret seed and budget are honoured", async () => {
  const fill = (dir) => {
    fillSubmission(dir, "solution", registry.exercises);
    fillSubmission(dir, "starter", [registry.exercise("lock")]);
  };
  const { graded, results } = await grade(fill, { seed: 918273645, seeds: 7 });
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.ok(results.score < TOTAL);
  const failed = results.tests.filter((one) => one.status === "failed");
  assert.ok(failed.length > 0 && failed.every((one) => one.name.startsWith("lock: ")), failed.map((one) => one.name).join(", "));
  assert.ok(failed.every((one) => one.output.length > 0 && one.score < one.max_score));
  assert.match(failed.map((one) => one.output).join("\n"), new RegExp(`replay: lock@${registry.graderVersion.replaceAll(".", "\\.")}:`));
  assert.match(results.output, new RegExp(`with grader ${registry.graderVersion.replaceAll(".", "\\.")}$`));
  // What staff read in Gradescope's stdout: the budget, and that the seed is the secret one (never its value).
  assert.match(graded.stdout, /grading with 7 random schedules per exercise, on the secret seed from config\.json/);
  assert.doesNotMatch(graded.stdout + graded.stderr + JSON.stringify(results), /918273645/);
});

test("a different seed in config.json grades on different schedules", async () => {
  const fill = (dir) => fillSubmission(dir, "starter", [registry.exercise("lock")]);
  const tokens = async (seed) => {
    const { results } = await grade(fill, { seed, seeds: 50 });
    return results.tests.find((one) => /random schedules/.test(one.name))?.output ?? "";
  };
  const first = await tokens(1);
  const secret = await tokens(918273645);
  assert.match(first, /replay: /);
  assert.notEqual(first, secret);
});

test("an uploaded folder (the lesson's export, ownership-election/) is graded as the submission", async () => {
  const fill = (dir) => fillSubmission(join(dir, "ownership-election"), "solution", [registry.exercise("cas")]);
  const { results } = await grade(fill, { seeds: 5 });
  assertGradescopeShape(results);
  assert.ok(results.tests.length > 0 && results.tests.every((one) => one.name.startsWith("cas: ") && one.status === "passed"));
});

test("a submission with no exercise file gets a results.json that says what to upload", async () => {
  const { graded, results } = await grade((dir) => writeFileSync(join(dir, "notes.txt"), "hello"), {});
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.equal(results.score, 0);
  assert.match(results.output, /could not be graded/);
  assert.match(results.output, /no exercise file found; a submission directory holds cas\.js/);
  assert.ok(!results.output.includes(root), `the output shows the grader's paths: ${results.output}`);
});

test("a bad config.json is named to staff in results.json, and run_autograder fails", async () => {
  const { graded, results } = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("cas")]), { seed: "secret" });
  assert.notEqual(graded.status, 0);
  assert.match(results.output, /config\.json: "seed" must be a whole number of at least 0/);
});
