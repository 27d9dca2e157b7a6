// dist/gradescope-autograder.zip as Gradescope uses it: unzipped into
// <root>/source, `setup.sh` once (with LEASELAB_NODE, this machine's Node
// instead of the pinned download, so it installs only the package, from the
// bundle), then `run_autograder` per submission,
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
// This machine's Node stands in for the pinned one setup.sh downloads (packaging/gradescope/check-on-ubuntu.sh runs the download on Ubuntu).
const env = { ...envWithoutRust(root), AUTOGRADER_ROOT: root, LEASELAB_NODE: process.execPath };
const SOURCE = join(root, "source");
const SUBMISSION = join(root, "submission");
const CONFIG = join(SOURCE, "config.json");
const VISIBILITIES = ["hidden", "after_due_date", "after_published", "visible"];
const VERSION = registry.graderVersion.replaceAll(".", "\\.");
const TOKEN = new RegExp(`lock@${VERSION}:\\S+`);

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
  rmSync(join(root, "results/results.json"), { force: true });
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
  // The timelines are column-aligned text; Gradescope's default (simple_format) would not keep them so.
  if (results.tests.length > 0) assert.deepEqual([results.output_format, results.test_output_format], ["text", "text"]);
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
  assert.deepEqual(JSON.parse(readFileSync(CONFIG, "utf8")), { seed: null, seeds: null, require: "all" });
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

test("a failing submission: its failures say what went wrong; the secret seed and budget are honoured, and no replay token (which carries the seed) reaches learners", async () => {
  const fill = (dir) => {
    fillSubmission(dir, "solution", registry.exercises);
    fillSubmission(dir, "starter", [registry.exercise("lock")]);
  };
  const { graded, results } = await grade(fill, { seed: 918273645, seeds: 7 });
  assert.equal(graded.status, 0, graded.stderr);
  const visible = results.tests.filter((one) => one.visibility !== "hidden");
  for (const one of visible) assert.doesNotMatch(one.output, TOKEN, one.name);
  assertGradescopeShape(results);
  assert.ok(results.score < TOTAL);
  const failed = visible.filter((one) => one.status === "failed");
  assert.ok(failed.length > 0 && failed.every((one) => one.name.startsWith("lock: ")), failed.map((one) => one.name).join(", "));
  assert.ok(failed.every((one) => one.output.length > 0 && one.score < one.max_score));
  assert.ok(failed.every((one) => one.output.endsWith("\nreplay: withheld, because this course grades on a secret seed and a replay token would reveal it")));
  // For staff: one test learners never see (score 0 of 0), and extra_data.
  const [hidden, ...others] = results.tests.filter((one) => one.visibility === "hidden");
  assert.equal(others.length, 0);
  assert.deepEqual([hidden.score, hidden.max_score], [0, 0]);
  assert.equal((hidden.output.match(new RegExp(`replay: lock@${VERSION}:`, "g")) ?? []).length, failed.length);
  assert.deepEqual(Object.keys(results.extra_data.replay_tokens), failed.map((one) => one.name));
  assert.match(results.output, new RegExp(`with grader ${VERSION}\\.$`));
  // What staff read in Gradescope's stdout: the budget, and that the seed is the secret one (never its value).
  assert.match(graded.stdout, /grading with 7 random schedules per exercise, on the secret seed from config\.json/);
  assert.doesNotMatch(graded.stdout + graded.stderr + JSON.stringify(results), /918273645/);
});

test("without a seed in config.json, each failure shows its replay token, as learners see in the browser", async () => {
  const { results } = await grade((dir) => fillSubmission(dir, "starter", registry.exercises), { seeds: 5 });
  assertGradescopeShape(results);
  const failed = results.tests.filter((one) => one.status === "failed" && one.name.startsWith("lock: "));
  assert.ok(failed.length > 0 && failed.every((one) => new RegExp(`\nreplay: lock@${VERSION}:`).test(one.output)));
  assert.ok(results.tests.every((one) => one.visibility === "visible"));
});

test("a different seed in config.json grades on different schedules", async () => {
  const fill = (dir) => fillSubmission(dir, "starter", registry.exercises);
  const tokens = async (seed) => {
    const { results } = await grade(fill, { seed, seeds: 50 });
    return results.extra_data.replay_tokens["lock: random schedules"];
  };
  const first = await tokens(2);
  const secret = await tokens(918273645);
  assert.match(first, TOKEN);
  assert.notEqual(first, secret);
});

test("every exercise is required by default: a submission with only lock.js scores 0 on the others, each saying which file to add", async () => {
  const { graded, results } = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("lock")]), { seeds: 5 });
  assert.equal(graded.status, 0, graded.stderr);
  assert.equal(results.score, registry.exercise("lock").maxScore);
  for (const { name, file, maxScore } of registry.exercises.filter((exercise) => exercise.name !== "lock")) {
    const entry = results.tests.find((one) => one.name.startsWith(`${name}: `));
    assert.ok(entry, `no test for ${name}: ${results.tests.map((one) => one.name).join(", ")}`);
    assert.deepEqual([entry.score, entry.max_score, entry.status], [0, maxScore, "failed"], name);
    assert.ok(entry.output.startsWith(`${file} is missing from this submission, and this exercise is required, so it scores 0; add your ${file}`), entry.output);
  }
  assertGradescopeShape(results);
  assert.match(graded.stdout, /requiring all/);
  // "require" in config.json: a list of names, or [] for whatever the submission holds.
  const some = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("lock")]), { seeds: 5, require: ["lock"] });
  assert.equal(some.results.score, registry.exercise("lock").maxScore);
  assert.ok(some.results.tests.every((one) => one.name.startsWith("lock: ") && one.status === "passed"));
  const none = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("cas")]), { seeds: 5, require: [] });
  assert.ok(none.results.tests.every((one) => one.name.startsWith("cas: ") && one.status === "passed"));
});

test("an uploaded folder (the lesson's export, ownership-election/) is graded as the submission", async () => {
  const fill = (dir) => fillSubmission(join(dir, "ownership-election"), "solution", registry.exercises);
  const { results } = await grade(fill, { seeds: 5 });
  assertGradescopeShape(results);
  assert.equal(results.score, TOTAL);
});

test("a zip made by macOS Finder (__MACOSX beside the folder, .DS_Store) and folders nested two deep are graded as the submission", async () => {
  const fill = (dir) => {
    fillSubmission(join(dir, "homework/ownership-election"), "solution", registry.exercises);
    mkdirSync(join(dir, "__MACOSX/homework/ownership-election"), { recursive: true });
    writeFileSync(join(dir, "__MACOSX/homework/ownership-election/._lock.js"), "\u0000\u0005\u0016\u0007");
    writeFileSync(join(dir, "homework/.DS_Store"), "");
  };
  const { graded, results } = await grade(fill, { seeds: 5 });
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.equal(results.score, TOTAL);
});

test("a file the grader refuses is named by its path in the submission, never the autograder's", async () => {
  const fill = (dir) => {
    fillSubmission(join(dir, "ownership-election"), "solution", registry.exercises);
    writeFileSync(join(dir, "ownership-election/lock.js"), Buffer.from([0x65, 0x78, 0xff, 0xfe, 0x0a]));
  };
  const { results } = await grade(fill, { seeds: 5 });
  const lock = results.tests.find((one) => one.name.startsWith("lock: "));
  assert.equal(lock.output, "ownership-election/lock.js is not valid UTF-8 text; save the file as UTF-8");
  assert.ok(!JSON.stringify(results).includes(root), "no path of the autograder's");
});

test("a submission with no exercise file gets a results.json that says what to upload", async () => {
  // Every exercise required (the default): each scores 0, saying which file to add and what the submission holds.
  const { graded, results } = await grade((dir) => writeFileSync(join(dir, "notes.txt"), "hello"), {});
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.equal(results.score, 0);
  assert.equal(results.tests.length, registry.exercises.length);
  for (const { name, file } of registry.exercises) {
    const entry = results.tests.find((one) => one.name === `${name}: ${file} is missing`);
    assert.ok(entry, `no test for ${name}: ${results.tests.map((one) => one.name).join(", ")}`);
    assert.ok(entry.output.startsWith(`${file} is missing from this submission, and this exercise is required, so it scores 0; add your ${file}`), entry.output);
    assert.ok(entry.output.endsWith("; this submission holds no exercise file at all (it holds notes.txt), so check that it is the right folder"), entry.output);
  }
  assert.ok(!JSON.stringify(results).includes(root), "no path of the autograder's");
  // What it does hold, as paths in the submission, so the learner sees where the files went;
  // with "require": [] the submission is refused as a whole, with a message that lists them.
  const fill = (dir) => {
    writeFileSync(join(dir, "notes.txt"), "hello");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/Lock.js"), "");
    mkdirSync(join(dir, "__MACOSX"));
    writeFileSync(join(dir, "__MACOSX/._notes.txt"), "");
  };
  // Its one folder is where the files are (unwrapped), and there lock.js is misnamed.
  const misplaced = await grade(fill, {});
  const lock = misplaced.results.tests.find((one) => one.name === "lock: lock.js is missing");
  assert.match(lock.output, /; it holds src\/Lock\.js: rename it to lock\.js \(exactly that name\) and submit again$/);
  const cas = misplaced.results.tests.find((one) => one.name === "cas: cas.js is missing");
  assert.match(cas.output, /; this submission holds no exercise file at all \(it holds notes\.txt, src\/Lock\.js\), so check that it is the right folder$/);
  const lenient = await grade(fill, { require: [] });
  assert.equal(lenient.graded.status, 0, lenient.graded.stderr);
  assertGradescopeShape(lenient.results);
  assert.equal(lenient.results.score, 0);
  assert.match(lenient.results.output, /^This submission could not be graded:\nyour submission: no exercise file found; a submission holds cas\.js, .*; it holds notes\.txt, src\/Lock\.js$/);
  assert.ok(!lenient.results.output.includes(root), `the output shows the grader's paths: ${lenient.results.output}`);
});

test("a misnamed exercise file is named in its test's output, with what to rename it to", async () => {
  const fill = (dir) => {
    fillSubmission(dir, "solution", [registry.exercise("cas")]);
    writeFileSync(join(dir, "Lock.js"), "");
  };
  const { results } = await grade(fill, { seeds: 5, require: ["cas", "lock"] });
  const lock = results.tests.find((one) => one.name === "lock: lock.js is missing");
  assert.equal(lock.output, "lock.js is missing from this submission, and this exercise is required, so it scores 0; it holds Lock.js: rename it to lock.js (exactly that name) and submit again");
});

test("a bad config.json is named to staff in results.json, and run_autograder fails", async () => {
  const { graded, results } = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("cas")]), { seed: "secret" });
  assert.notEqual(graded.status, 0);
  assert.match(results.output, /config\.json: "seed" must be a whole number of at least 0/);
  const required = await grade((dir) => fillSubmission(dir, "solution", [registry.exercise("cas")]), { require: "everything" });
  assert.notEqual(required.graded.status, 0);
  assert.match(required.results.output, /config\.json: "require" must be "all", a list of exercise names such as \["cas", "lock"\], or \[\] for none; got "everything"/);
});

test("config.json's points scale each exercise to the assignment's total; the staff log says so", async () => {
  const points = { cas: 10, lock: 20, lease: 20, fencing: 20, election: 30 };
  const { graded, results } = await grade((dir) => fillSubmission(dir, "solution", registry.exercises), { seeds: 5, points });
  assert.equal(graded.status, 0, graded.stderr);
  assertGradescopeShape(results);
  assert.equal(results.score, 100);
  for (const [name, value] of Object.entries(points)) {
    const total = results.tests.filter((one) => one.name.startsWith(`${name}: `)).reduce((sum, one) => sum + one.max_score, 0);
    assert.equal(Math.round(total * 100), value * 100, name);
  }
  assert.match(graded.stdout, /points cas=10,lock=20,lease=20,fencing=20,election=30/);
  const wrong = await grade((dir) => fillSubmission(dir, "solution", registry.exercises), { points: { lock: "twenty" } });
  assert.equal(wrong.results.score, 0);
  assert.match(wrong.results.output, /The autograder is misconfigured, so this submission was not graded; course staff: .*"points" must map exercise names to positive numbers/);
});
