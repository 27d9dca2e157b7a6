// What course staff do after grading: the class report's data, points per
// exercise for an assignment's total, replaying a failure from its token,
// JUnit that the strict xUnit schema accepts, and GitHub annotations on the
// line a message names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LESSON = join(ROOT, "exercises/ownership-election");
const SCHEMA = join(ROOT, "tests/fixtures/junit/xunit-junit.xsd");
const registry = await loadNodeRegistry();
const SEEDS = ["--seeds", "5"];

function run(file, args, env = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }));
  });
}
const leaselab = (args, env) => run("node", [join(ROOT, "cli/leaselab.mjs"), ...args], env);

const dir = mkdtempSync(join(tmpdir(), "leaselab-class-"));
/** A learner folder: each exercise's solution or starter (`pick(name)`), or none. */
function learner(name, pick) {
  mkdirSync(join(dir, name));
  for (const exercise of registry.exercises) {
    const which = pick(exercise.name);
    if (which) copyFileSync(join(LESSON, exercise.name, `${which}.js`), join(dir, name, exercise.file));
  }
  return join(dir, name);
}
const ada = learner("ada", () => "solution");
const ben = learner("ben", () => "starter");
const cy = learner("cy", (name) => (name === "lease" ? null : name === "lock" ? "starter" : "solution"));

test("the class report's JSON: distributions, the rules broken most with their learners, and one example each, whatever the threads", async () => {
  const one = join(dir, "one.json");
  const two = join(dir, "two.json");
  assert.equal((await leaselab(["grade", ada, ben, cy, ...SEEDS, "--jobs", "1", "--report", one])).status, 1);
  assert.equal((await leaselab(["grade", cy, ben, ada, ...SEEDS, "--jobs", "2", "--report", two])).status, 1);
  assert.equal(readFileSync(one, "utf8"), readFileSync(two, "utf8"), "the report depends on the class alone");
  const data = JSON.parse(readFileSync(one, "utf8"));
  assert.equal(data.learners, 3);
  assert.deepEqual(data.submissions.map((one) => one.name), ["ada", "ben", "cy"]);
  assert.deepEqual(data.submissions[2].missing, ["lease"]);
  const lease = data.exercises.find((one) => one.name === "lease");
  assert.deepEqual([lease.graded, lease.missing, lease.fullMarks], [2, 1, 1]);
  assert.equal(lease.histogram.reduce((sum, bar) => sum + bar.count, 0), 2);
  // The lock starter's rules are broken by ben and cy; each example is the first learner's by name.
  const lockRules = data.rules.filter((rule) => rule.exercise === "lock");
  assert.ok(lockRules.length > 0);
  for (const rule of lockRules) {
    assert.deepEqual(rule.learners, ["ben", "cy"]);
    assert.equal(rule.example.learner, "ben");
    assert.match(rule.example.story, /^violated: /);
    assert.match(rule.example.replayToken, /^lock@/);
    assert.ok(registry.exercise("lock").rules.some((known) => known.id === rule.rule && known.statement === rule.statement), rule.rule);
  }
  assert.deepEqual(data.rules.find((rule) => rule.rule === "missing-file").learners, ["cy"]);
});

test("--points: each exercise scaled to its points, to the hundredth, in every output; the total is the assignment's", async () => {
  const points = { cas: 10, lock: 20, lease: 20, fencing: 20, election: 30 };
  const flag = ["--points", Object.entries(points).map(([name, value]) => `${name}=${value}`).join(",")];
  const csv = join(dir, "points.csv");
  const batch = await leaselab(["grade", ada, ben, cy, ...SEEDS, ...flag, "--csv", csv]);
  assert.equal(batch.status, 1, batch.stderr);
  const rows = readFileSync(csv, "utf8").trim().split("\n");
  assert.match(rows[1], /^"ada",10,20,20,20,30,100,100,true,$/);
  const gradescope = JSON.parse((await leaselab(["grade", ben, ...SEEDS, ...flag, "--format", "gradescope"])).stdout);
  const sum = Math.round(gradescope.tests.reduce((total, one) => total + one.score, 0) * 100) / 100;
  assert.equal(gradescope.score, sum);
  for (const [name, value] of Object.entries(points)) {
    const tests = gradescope.tests.filter((one) => one.name.startsWith(`${name}: `));
    assert.equal(Math.round(tests.reduce((total, one) => total + one.max_score, 0) * 100), value * 100, name);
    for (const one of tests) assert.ok(Number.isInteger(Math.round(one.max_score * 100)) && one.score <= one.max_score, `${one.name}: ${one.score}/${one.max_score}`);
  }
  const usage = await leaselab(["grade", ada, "--points", "lock=0"]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--points: lock must get more than 0/);
});

test("leaselab replay TOKEN FILE prints that run's timeline, the report's up to the broken rule and on to the end; exit 1 while it breaks a rule, 0 once it passes", async () => {
  const report = JSON.parse((await leaselab(["grade", join(ben, "lock.js"), ...SEEDS, "--format", "json"])).stdout);
  const failing = report.results[0].report.tests.filter((one) => one.counterexample && !one.counterexample.omitted);
  assert.ok(failing.length > 0);
  for (const one of failing) {
    const replayed = await leaselab(["replay", one.counterexample.replayToken, ben]);
    assert.equal(replayed.status, 1, replayed.stderr);
    const [head, ...rest] = replayed.stdout.split("\n");
    assert.equal(head, `${join(ben, "lock.js")} (lock)`);
    // The report cuts its counterexample at the broken rule; the replay shows the whole run, the same up to there.
    const reported = one.timeline.trimEnd().split("\n");
    const shown = rest.join("\n").trimEnd().split("\n");
    assert.deepEqual(shown.slice(0, reported.length - 1), reported.slice(0, -1), one.name);
    assert.equal(shown.at(-1), reported.at(-1));
  }
  const fixed = await leaselab(["replay", failing[0].counterexample.replayToken, join(ada, "lock.js")]);
  assert.equal(fixed.status, 0, fixed.stderr);
  assert.match(fixed.stdout, /^\S+ \(lock\)\npasses: this run breaks no rule now\n  t\(ms\)  who    local  what\n/);
  const wrong = await leaselab(["replay", "not-a-token", ada]);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /"not-a-token" is not a replay token; a token is the last line of a failing test's story/);
});

test("JUnit validates against the strict xUnit schema (times, no file on a testcase), for passing, failing, missing and hostile submissions", async () => {
  const hostile = learner("x&<y>\u0001", (name) => (name === "lock" ? "starter" : null));
  for (const folder of [ada, ben, cy, hostile]) {
    const out = join(dir, "junit.xml");
    await leaselab(["grade", folder, ...SEEDS, "--require", "all", "--format", "junit", "--out", out]);
    const valid = await run("xmllint", ["--noout", "--schema", SCHEMA, out]);
    assert.equal(valid.status, 0, `xmllint (Debian's libxml2-utils): ${valid.stderr}`);
    const xml = readFileSync(out, "utf8");
    assert.match(xml, /<testsuite [^>]*time="\d+\.\d{3}" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d" hostname="[^"]+"/);
    assert.doesNotMatch(xml, /<testcase [^>]*file=/);
  }
  // The schema is the strict one: a file attribute on a testcase fails it.
  const old = join(dir, "old.xml");
  writeFileSync(old, '<?xml version="1.0"?>\n<testsuites><testsuite name="lock" tests="1" failures="0" errors="0"><testcase name="t" file="lock.js"/></testsuite></testsuites>\n');
  assert.notEqual((await run("xmllint", ["--noout", "--schema", SCHEMA, old])).status, 0);
});

test("GitHub: an annotation sits on the line a message names; the job summary holds each failure's timeline, with its token unless the seed is secret", async () => {
  const broken = join(dir, "broken");
  mkdirSync(broken);
  writeFileSync(join(broken, "lock.js"), "export async function lock(ctx) {\n  return ctx.store.get(;\n}\n");
  copyFileSync(join(LESSON, "fencing/starter.js"), join(broken, "fencing.js"));
  const summary = join(dir, "summary.md");
  const result = await leaselab(["grade", broken, ...SEEDS, "--format", "github", "--out", summary]);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stdout, new RegExp(`^::error file=${join(broken, "lock.js").replaceAll(":", "%3A")},line=2,col=\\d+,title=lock%3A 1 of 1 test failed::`, "m"));
  assert.match(result.stdout, /^::error file=[^,]*fencing\.js,title=/m, "no line where the message names none");
  const text = readFileSync(summary, "utf8");
  assert.match(text, /^### fencing \(.*\): \d+\/13$/m);
  assert.match(text, /<details><summary>[^<]*: the failing run and its replay token<\/summary>\n\n<pre>violated: [\s\S]*?\nreplay: fencing@\S+<\/pre>/);
  const secret = await leaselab(["grade", broken, ...SEEDS, "--seed", "918273645", "--format", "github", "--out", summary]);
  assert.equal(secret.status, 1);
  const hidden = readFileSync(summary, "utf8");
  assert.doesNotMatch(hidden, /fencing@\d/);
  assert.match(hidden, /replay: withheld, because this course grades on a secret seed/);
});
