// The CLI's reports held to what each grading platform's spec says its
// fields are for (from an audit against the specs): a submission that lacks
// exercise files under --require, the secret seed kept out of Gradescope's
// learner-visible output, each story told once, Exercism's message and
// output, GitHub's limit of 10 annotations per step, and a folder with no
// exercise file named with what it does hold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { consoleLinesOf } from "../cli/formats/common.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();
const SEEDS = ["--seeds", "5"];
/** A seed other than the default: the course's secret. */
const SECRET_SEED = "918273645";

function leaselab(args, env = {}) {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

const scratch = () => mkdtempSync(join(tmpdir(), "leaselab-platforms-"));

/** A folder holding `which` (solution or starter) of each exercise named, under its file name. */
function submission(which, names) {
  const dir = scratch();
  for (const name of names) copyFileSync(join(LESSON, name, `${which}.js`), join(dir, registry.exercise(name).file));
  return dir;
}

const onlyLock = submission("solution", ["lock"]);
const starters = submission("starter", registry.names);
const missing = registry.exercises.filter((exercise) => exercise.name !== "lock");

test("--require all: each missing exercise file scores 0 with an error naming it, in every format, the CSV and the exit status", async () => {
  // Without --require, a folder is graded on the files it has (and this one passes).
  const lenient = await leaselab(["grade", onlyLock, ...SEEDS]);
  assert.equal(lenient.status, 0, lenient.stderr);

  const csv = join(scratch(), "scores.csv");
  const text = await leaselab(["grade", onlyLock, ...SEEDS, "--require", "all", "--csv", csv]);
  assert.equal(text.status, 1, text.stderr);
  for (const { file, maxScore } of missing) {
    assert.ok(text.stdout.includes(`  error: ${file} is missing from this submission, and this exercise is required, so it scores 0; add your ${file}`), text.stdout);
    assert.match(text.stdout, new RegExp(`${file.replace(".", "\\.")} is missing[^\\n]*\\n  score: 0/${maxScore}\\n`));
  }
  const total = registry.exercises.reduce((sum, exercise) => sum + exercise.maxScore, 0);
  assert.match(text.stdout, new RegExp(`: ${registry.exercise("lock").maxScore}/${total} points\\n$`));
  const [header, row] = readFileSync(csv, "utf8").trim().split("\n");
  assert.equal(header, `submission,${registry.names.join(",")},score,max_score,passed,missing`);
  assert.equal(row.split(",").slice(1).join(","), `${registry.names.map((name) => (name === "lock" ? registry.exercise("lock").maxScore : 0)).join(",")},${registry.exercise("lock").maxScore},${total},false,"${missing.map((one) => one.name).join(" ")}"`);

  const json = JSON.parse((await leaselab(["grade", onlyLock, ...SEEDS, "--require", "all", "--format", "json"])).stdout);
  assert.deepEqual(json.results.map((result) => result.exercise), registry.names);
  for (const { name, file } of missing) {
    const { report } = json.results.find((result) => result.exercise === name);
    assert.equal(report.score, 0);
    assert.match(report.problems[0], new RegExp(`^${file.replace(".", "\\.")} is missing`));
  }

  const gradescope = JSON.parse((await leaselab(["grade", onlyLock, ...SEEDS, "--require", "all", "--format", "gradescope"])).stdout);
  for (const { name, file, maxScore } of missing) {
    const entry = gradescope.tests.find((one) => one.name.startsWith(`${name}: `));
    assert.deepEqual([entry.score, entry.max_score, entry.status], [0, maxScore, "failed"]);
    assert.match(entry.output, new RegExp(`${file.replace(".", "\\.")} is missing`));
  }
  assert.equal(gradescope.score, registry.exercise("lock").maxScore);

  const junit = (await leaselab(["grade", onlyLock, ...SEEDS, "--require", "all", "--format", "junit"])).stdout;
  assert.match(junit, new RegExp(`<testsuites name="[^"]+" tests="\\d+" failures="0" errors="${missing.length}" time="[0-9.]+">`));
  for (const { file } of missing) assert.match(junit, new RegExp(`<error message="${file.replace(".", "\\.")} is missing`));

  const github = await leaselab(["grade", onlyLock, ...SEEDS, "--require", "all", "--format", "github"], { GITHUB_STEP_SUMMARY: "" });
  assert.equal(github.status, 1);
  // A missing file has no file to sit on: the annotation is the run's, titled with what is missing.
  for (const { name, file } of missing) assert.match(github.stdout, new RegExp(`^::error title=${name}%3A ${file.replace(".", "\\.")} is missing::${file.replace(".", "\\.")} is missing`, "m"));
  assert.doesNotMatch(github.stdout, /^::error file=/m);

  // Named exercises: only those are required.
  const some = await leaselab(["grade", onlyLock, ...SEEDS, "--require", "lock,cas"]);
  assert.equal(some.status, 1);
  assert.match(some.stdout, /cas\.js is missing/);
  assert.doesNotMatch(some.stdout, /lease\.js/);
  const met = await leaselab(["grade", onlyLock, ...SEEDS, "--require", "lock"]);
  assert.equal(met.status, 0, met.stderr);
});

test("--require: bad names, a file argument and --exercise are usage errors that say what to do", async () => {
  const cases = [
    [["--require", "lokc"], /--require needs all, none or exercise names separated by commas \(cas, lock, lease, fencing, election\); got "lokc"/],
    [["--require", "all", "--exercise", "lock"], /--require and --exercise cannot be combined/],
  ];
  for (const [args, message] of cases) {
    const result = await leaselab(["grade", onlyLock, ...args]);
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const file = await leaselab(["grade", join(onlyLock, "lock.js"), "--require", "all"]);
  assert.equal(file.status, 2);
  assert.match(file.stderr, /lock\.js: --require applies to submissions \(a folder or an archive\), and this is one file; grade its folder, or drop --require/);
});

test("a folder with no exercise file: the message lists the files it holds (relative, at most 20, no __MACOSX or dot-files)", async () => {
  const dir = scratch();
  mkdirSync(join(dir, "ownership-election/deeper"), { recursive: true });
  // Two folders: the reader cannot tell which holds the submission, so it unwraps neither.
  mkdirSync(join(dir, "empty"));
  mkdirSync(join(dir, "__MACOSX"));
  writeFileSync(join(dir, "__MACOSX/._lock.js"), "");
  writeFileSync(join(dir, ".DS_Store"), "");
  writeFileSync(join(dir, "notes.txt"), "");
  writeFileSync(join(dir, "ownership-election/deeper/lock.js"), "");
  for (let index = 0; index < 25; index += 1) writeFileSync(join(dir, "ownership-election", `file-${String(index).padStart(2, "0")}.txt`), "");
  const result = await leaselab(["grade", dir]);
  assert.equal(result.status, 2);
  const line = result.stderr.trim();
  assert.match(line, /no exercise file found; a submission holds cas\.js, .*; it holds notes\.txt, ownership-election\/file-00\.txt, /);
  assert.equal((line.match(/file-\d\d\.txt/g) ?? []).length, 19, "20 files named in all");
  assert.match(line, /… \(\d+ more/);
  assert.doesNotMatch(line, /__MACOSX|DS_Store/);
  assert.ok(!line.slice(line.indexOf("; it holds")).includes(dir), "paths relative to the folder");
});

test("Gradescope: with a secret seed, no learner-visible output holds a replay token; a hidden test and extra_data keep them for staff", async () => {
  const lock = submission("starter", ["lock"]);
  const secret = JSON.parse((await leaselab(["grade", lock, ...SEEDS, "--seed", SECRET_SEED, "--format", "gradescope"])).stdout);
  const visible = secret.tests.filter((one) => one.visibility !== "hidden");
  const failing = visible.filter((one) => one.status === "failed");
  assert.ok(failing.length > 0);
  const tokenPattern = /lock@\d+\.\d+\.\d+:[^\s]+/;
  for (const one of [...visible, { output: secret.output }]) assert.doesNotMatch(one.output, tokenPattern, one.name);
  for (const one of failing) assert.match(one.output, /\nreplay: withheld, because this course grades on a secret seed/);
  const hidden = secret.tests.filter((one) => one.visibility === "hidden");
  assert.equal(hidden.length, 1);
  assert.deepEqual([hidden[0].score, hidden[0].max_score], [0, 0]);
  const tokens = Object.values(secret.extra_data.replay_tokens);
  assert.equal(tokens.length, failing.length);
  for (const token of tokens) assert.ok(hidden[0].output.includes(`replay: ${token}`), token);
  assert.equal(secret.score, secret.tests.reduce((sum, one) => sum + one.score, 0));

  // On the default seed (the schedules learners see anyway), each failure shows its token, as before.
  const open = JSON.parse((await leaselab(["grade", lock, ...SEEDS, "--format", "gradescope"])).stdout);
  assert.ok(open.tests.every((one) => one.visibility === "visible"));
  assert.equal(open.extra_data, undefined);
  for (const one of open.tests.filter((entry) => entry.status === "failed")) assert.match(one.output, /\nreplay: lock@/);
});

test("Gradescope and JUnit tell each failure once: the message and the replay token appear once per test; outputs are text", async () => {
  const gradescope = JSON.parse((await leaselab(["grade", starters, ...SEEDS, "--format", "gradescope"])).stdout);
  assert.equal(gradescope.output_format, "text");
  assert.equal(gradescope.test_output_format, "text");
  const count = (text, part) => text.split(part).length - 1;
  const json = JSON.parse((await leaselab(["grade", starters, ...SEEDS, "--format", "json"])).stdout);
  const failures = json.results.flatMap(({ exercise, report }) => report.tests.filter((one) => one.status === "failed").map((one) => ({ ...one, name: `${exercise}: ${one.name}` })));
  assert.ok(failures.length > 10);
  for (const failure of failures) {
    const entry = gradescope.tests.find((one) => one.name === failure.name);
    assert.equal(count(entry.output, failure.counterexample.replayToken), 1, entry.output);
    assert.equal(count(entry.output, failure.message), 1, entry.output);
  }
  const junit = (await leaselab(["grade", starters, ...SEEDS, "--format", "junit"])).stdout;
  const bodies = [...junit.matchAll(/<failure message="[^"]*"[^>]*>([^<]*)<\/failure>/g)].map((match) => match[1]);
  assert.equal(bodies.length, failures.length);
  for (const body of bodies) assert.equal(count(body, "replay: "), 1, body);
});

test("Exercism: a failing test's message is its whole timeline, replay included; output is only what the learner's code printed, cut with the spec's words", async () => {
  const dir = scratch();
  const starter = readFileSync(join(LESSON, "lock/starter.js"), "utf8");
  writeFileSync(join(dir, "lock.js"), `console.log("checking in");\nfor (let i = 0; i < 3; i += 1) console.log("x".repeat(300));\n${starter}`);
  const report = JSON.parse((await leaselab(["grade", dir, ...SEEDS, "--format", "exercism"])).stdout);
  const failing = report.tests.filter((one) => one.status === "fail");
  assert.ok(failing.length > 0);
  for (const one of failing) {
    assert.match(one.message, /^violated: /);
    assert.match(one.message, /\n>> /, "the step where it went wrong");
    assert.match(one.message, /\nreplay: lock@\S+\n?$/);
    assert.ok(one.output.startsWith("p1: checking in\np1: xxx"), one.output);
    assert.ok(one.output.length <= 500);
    assert.match(one.output, /\nOutput was truncated\. Please limit to 500 chars$/);
    assert.doesNotMatch(one.output, /violated|replay|t\(ms\)/, "nothing of the grader's own");
    assert.equal(one.task_id, undefined);
  }
  const quiet = JSON.parse((await leaselab(["grade", submission("starter", ["lock"]), ...SEEDS, "--format", "exercism"])).stdout);
  assert.ok(quiet.tests.every((one) => one.output === undefined), "no output when the code printed nothing");
});

test("console lines across a long run's omitted events: one line stands at the gap, where they were left out", async () => {
  // A resign() that prints, calls the store 600 times, prints again and returns a non-boolean:
  // every test fails in a run of over a thousand events, of which the counterexample leaves the middle out.
  const dir = scratch();
  const hostile = readFileSync(join(ROOT, "tests/fixtures/hostile/election/list-flood-in-resign.js"), "utf8");
  const campaign = hostile.slice(hostile.indexOf("async function enqueue"), hostile.indexOf("export async function resign"));
  writeFileSync(
    join(dir, "election.js"),
    `${campaign}export async function resign(ctx, leadership) {
  console.log("resign begins");
  for (let index = 0; index < 600; index += 1) await ctx.store.get(leadership.key);
  console.log("resign ends");
  await ctx.store.delete(leadership.key, { version: leadership.version });
  return "not a boolean";
}
`,
  );
  const json = JSON.parse((await leaselab(["grade", dir, ...SEEDS, "--format", "json"])).stdout);
  const exercism = JSON.parse((await leaselab(["grade", dir, ...SEEDS, "--format", "exercism"])).stdout);
  const tests = json.results[0].report.tests;
  assert.ok(tests.length > 0 && tests.every((one) => one.status === "failed"));
  let across = 0;
  for (const one of tests) {
    const { omitted, trace } = one.counterexample;
    assert.ok(omitted, `${one.name}: the run is long enough to leave events out`);
    const printed = (events) => events.filter((event) => event.happening?.what === "note" && event.happening.note.note === "console").length;
    const [before, after] = [printed(trace.slice(0, omitted.after)), printed(trace.slice(omitted.after))];
    const { output } = exercism.tests.find((entry) => entry.name === `election: ${one.name}`);
    const lines = output.split("\n");
    const gap = `… (${omitted.count} events not shown, with any lines printed in them; the replay token reproduces every one)`;
    assert.equal(lines.length, before + after + 1, output);
    assert.equal(lines[before], gap, output);
    if (before > 0 && after > 0) {
      across += 1;
      assert.match(output, /^p\d: resign begins\n… \(\d+ events not shown[^\n]*\)\np\d: resign ends$/);
    }
  }
  assert.ok(across > 0, "some counterexample shows console lines on both sides of its gap");
  // The hostile corpus's own long run prints nothing: no gap line without console lines.
  const flood = scratch();
  writeFileSync(join(flood, "election.js"), hostile);
  const quiet = JSON.parse((await leaselab(["grade", flood, ...SEEDS, "--format", "exercism"])).stdout);
  assert.ok(quiet.tests.every((one) => one.output === undefined), "no output when the code printed nothing");
});

test("consoleLinesOf: the gap line goes where the omitted events were, also at either end, and only when something was printed", () => {
  const say = (process, text) => ({ process, happening: { what: "note", note: { note: "console", text } } });
  const call = { process: 0, happening: { what: "call" } };
  const of = (trace, omitted) => consoleLinesOf({ counterexample: { trace, omitted } });
  const gap = "… (500 events not shown, with any lines printed in them; the replay token reproduces every one)";
  assert.deepEqual(of([say(0, "a"), call, say(1, "b")], { after: 2, count: 500 }), ["p1: a", gap, "p2: b"]);
  assert.deepEqual(of([say(0, "a"), call], { after: 2, count: 500 }), ["p1: a", gap]);
  assert.deepEqual(of([call, say(0, "a")], { after: 1, count: 500 }), [gap, "p1: a"]);
  assert.deepEqual(of([call, call], { after: 1, count: 500 }), []);
  assert.deepEqual(of([say(0, "a"), call, say(1, "b")], undefined), ["p1: a", "p2: b"]);
});

test("GitHub: at most one error annotation per exercise file (GitHub shows 10 per step), with the count and the first failure", async () => {
  const result = await leaselab(["grade", starters, ...SEEDS, "--format", "github"], { GITHUB_STEP_SUMMARY: "" });
  assert.equal(result.status, 1);
  const annotations = result.stdout.split("\n").filter((line) => line.startsWith("::error "));
  assert.equal(annotations.length, registry.exercises.length);
  assert.ok(annotations.length < 10);
  const json = JSON.parse((await leaselab(["grade", starters, ...SEEDS, "--format", "json"])).stdout);
  for (const { exercise, path, report } of json.results) {
    const failing = report.tests.filter((one) => one.status !== "passed");
    const annotation = annotations.find((line) => line.startsWith(`::error file=${path.replaceAll(":", "%3A").replaceAll(",", "%2C")},`));
    assert.ok(annotation, `${exercise}: ${annotations.join("\n")}`);
    assert.ok(annotation.includes(`title=${exercise}%3A ${failing.length} of ${report.tests.length} tests failed::`), annotation);
    assert.ok(annotation.includes(failing[0].message.replaceAll("%", "%25")), annotation);
  }
  // The job summary still lists every test (a row each, under its exercise's header row).
  const rows = (result.stdout.match(/^\| .* \|$/gm) ?? []).filter((row) => row !== "| test | result |");
  assert.equal(rows.length, json.results.reduce((sum, { report }) => sum + report.tests.length, 0));
});
