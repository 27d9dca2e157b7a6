// The command-line grader against hostile submissions and hostile inputs
// (issue 12, classes 8 and 9, and batches): files that are not files, links
// out of a submission, sources too large, outputs that cannot be written,
// names and learner text that try to forge a report, a submission that
// hangs inside one built-in call, and a grading thread that dies. Each test
// fails on a grader without the matching defence (most by hanging, which
// the `timeout` of each run turns into a failure).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { DEADLINE_MS_MAX, deadlineMessage, SEEDS_MAX, SOURCE_BYTES_MAX } from "../runner/limits.js";
import { renderText } from "../cli/formats/text.js";
import { renderGithub } from "../cli/formats/github.js";
import { renderJunit } from "../cli/formats/junit.js";
import { renderJson } from "../cli/formats/json.js";
import { renderGradescope } from "../cli/formats/gradescope.js";
import { renderExercism } from "../cli/formats/exercism.js";
import { gradeInParallel } from "../cli/batch.js";
import { gradingPlan } from "../cli/grading-plan.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const FIXTURES = join(ROOT, "tests/fixtures/cli");
const KILLER = join(FIXTURES, "kill-grading-thread.mjs");
const SEEDS = ["--seeds", "5"];

/**
 * Runs the CLI; a run that outlives `timeout` ms is killed and reported as
 * `status: "killed"`. The bound only catches a CLI that never ends: the
 * deadlines under test are the CLI's own (`--timeout`), and a busy machine
 * may take many times the quiet one's seconds.
 */
function leaselab(args, { env = {}, nodeArgs = [], timeout = DEADLINE_MS_MAX } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    execFile("node", [...nodeArgs, CLI, ...args], { env: { ...process.env, ...env }, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error ? (error.killed ? "killed" : error.code) : 0;
      resolve({ status, stdout, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const source = (exercise, which) => readFileSync(join(LESSON, exercise, `${which}.js`), "utf8");

/** A folder `parent/name` holding `{ "lock.js": text }`. */
function folder(parent, name, files) {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const scratch = () => mkdtempSync(join(tmpdir(), "leaselab-hostile-"));

/** The one-line messages of a run's standard error (no Node stack trace). */
function assertOneLineErrors(stderr) {
  assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  assert.doesNotMatch(stderr, /node:internal|Error \[ERR_/, "no Node internals");
}

test("a named pipe called lock.js is refused at once, and the other files are still graded", async () => {
  const dir = folder(scratch(), "piped", { "cas.js": source("cas", "solution") });
  execFileSync("mkfifo", [join(dir, "lock.js")]);
  const result = await leaselab(["grade", dir, ...SEEDS, "--format", "json"]);
  assert.equal(result.status, 2, result.stderr);
  assertOneLineErrors(result.stderr);
  assert.match(result.stderr, /^leaselab: .*piped\/lock\.js is a named pipe \(FIFO\), not a regular file; submit .*$/m);
  const report = JSON.parse(result.stdout);
  const byExercise = Object.fromEntries(report.results.map((r) => [r.exercise, r.report]));
  assert.equal(byExercise.cas.score, 13);
  assert.equal(byExercise.lock.score, 0);
  assert.match(byExercise.lock.problems[0], /named pipe/);
});

test("a link in a submission folder is refused wherever it leads (the reference solution scores nothing), as in an archive", async () => {
  const parent = scratch();
  const outside = folder(parent, "elsewhere", { "lock.js": source("lock", "solution") });
  const cheat = folder(parent, "cheat", {});
  symlinkSync(join(outside, "lock.js"), join(cheat, "lock.js"));
  const result = await leaselab(["grade", cheat, ...SEEDS, "--format", "json"]);
  assert.equal(result.status, 2, result.stderr);
  assertOneLineErrors(result.stderr);
  assert.match(result.stderr, /cheat\/lock\.js is a link to .*elsewhere\/lock\.js, not a file; submit the file itself, not a link/);
  assert.equal(JSON.parse(result.stdout).results[0].report.score, 0);

  // A link inside the folder too: unpacked from a zip it is a link on one platform and a copy on another.
  const tidy = folder(parent, "tidy", { "src/lock.js": source("lock", "solution") });
  symlinkSync("src/lock.js", join(tidy, "lock.js"));
  const inside = await leaselab(["grade", tidy, ...SEEDS]);
  assert.equal(inside.status, 2, inside.stderr);
  assert.match(inside.stderr, /tidy\/lock\.js is a link to src\/lock\.js, not a file; submit the file itself/);
  assert.match(inside.stdout, /tidy: 0\/14 points/);
});

test("a link to /dev/zero is never read", async () => {
  const parent = scratch();
  const dir = folder(parent, "zero", {});
  symlinkSync("/dev/zero", join(dir, "lock.js"));
  const linked = await leaselab(["grade", dir, ...SEEDS]);
  assert.equal(linked.status, 2, linked.stderr);
  assert.match(linked.stderr, /zero\/lock\.js is a link to \/dev\/zero, not a file/);
  // Named on the command line, a device is still not a regular file.
  const named = await leaselab(["grade", "/dev/zero", "--exercise", "lock", ...SEEDS]);
  assert.equal(named.status, 2, named.stderr);
  assert.match(named.stderr, /^leaselab: \/dev\/zero is a device, not a regular file; /m);
  assertOneLineErrors(linked.stderr + named.stderr);
});

test("a source over SOURCE_BYTES_MAX is refused by name, size and limit; one at the limit is graded", async () => {
  const parent = scratch();
  const solution = source("lock", "solution");
  const padded = (bytes) => `${solution}\n//${"x".repeat(bytes - Buffer.byteLength(solution) - 3)}`;
  const big = folder(parent, "big", { "lock.js": padded(SOURCE_BYTES_MAX + 1) });
  const atLimit = folder(parent, "at-limit", { "lock.js": padded(SOURCE_BYTES_MAX) });
  assert.equal(readFileSync(join(atLimit, "lock.js")).length, SOURCE_BYTES_MAX);
  const refused = await leaselab(["grade", big, ...SEEDS]);
  assert.equal(refused.status, 2, refused.stderr);
  assertOneLineErrors(refused.stderr);
  assert.ok(
    refused.stderr.includes(`big/lock.js is ${SOURCE_BYTES_MAX + 1} bytes, over the limit of ${SOURCE_BYTES_MAX} bytes`),
    refused.stderr,
  );
  const graded = await leaselab(["grade", atLimit, ...SEEDS]);
  assert.equal(graded.status, 0, graded.stderr);
});

test("--seeds above SEEDS_MAX is a usage error naming the maximum", async () => {
  const result = await leaselab(["grade", join(LESSON, "lock/solution.js"), "--exercise", "lock", "--seeds", String(SEEDS_MAX + 1)]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, new RegExp(`--seeds can be at most ${SEEDS_MAX}; got ${SEEDS_MAX + 1}`));
});

test("an output that cannot be written is one line and exit 2; a batch still writes everything else", async () => {
  const parent = scratch();
  const good = folder(parent, "good", { "lock.js": source("lock", "solution") });
  const other = folder(parent, "other", { "lock.js": source("lock", "solution") });
  const cases = [
    [["--out", "/dev/null/report.txt"], {}, "cannot write /dev/null/report.txt: part of the path is a file, not a folder"],
    [["--out", parent], {}, `cannot write ${parent}: it is a folder`],
    [["--format", "github"], { GITHUB_STEP_SUMMARY: "/dev/null/summary.md" }, "cannot write GITHUB_STEP_SUMMARY (/dev/null/summary.md): part of the path is a file"],
  ];
  for (const [args, env, message] of cases) {
    const result = await leaselab(["grade", good, ...SEEDS, ...args], { env });
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
    assertOneLineErrors(result.stderr);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.ok(result.stderr.startsWith(`leaselab: ${message}`), result.stderr);
  }
  // A batch whose report folder is a file and whose CSV path is a folder: both
  // named, and still the table; with a good CSV path the CSV is written.
  const csv = join(parent, "scores.csv");
  const batch = await leaselab(["grade", good, other, ...SEEDS, "--require", "none", "--out", join(good, "lock.js"), "--csv", parent]);
  assert.equal(batch.status, 2, batch.stderr);
  assertOneLineErrors(batch.stderr);
  assert.match(batch.stderr, /cannot write .*good\/lock\.js: a file is in the way/);
  assert.match(batch.stderr, /cannot write .*: it is a folder/);
  assert.match(batch.stdout, /^submission .*\ngood .*14\/14\nother .*14\/14\n$/);
  const partial = await leaselab(["grade", good, other, ...SEEDS, "--require", "none", "--format", "json", "--out", "/dev/null/reports", "--csv", csv]);
  assert.equal(partial.status, 2);
  assert.equal(readFileSync(csv, "utf8").trim().split("\n").length, 3);
});

test("two submissions with the same folder name get their own reports, rows and CSV lines", async () => {
  const parent = scratch();
  const a = folder(parent, "a/alice", { "lock.js": source("lock", "solution") });
  const b = folder(parent, "b/alice", { "lock.js": source("lock", "starter") });
  const dot = folder(parent, "..hidden", { "lock.js": source("lock", "solution") });
  // Two names, but one file name on a case-insensitive file system.
  const upper = folder(parent, "Bob", { "cas.js": source("cas", "solution") });
  const lower = folder(parent, "bob", { "cas.js": source("cas", "solution") });
  const out = join(parent, "reports");
  const csv = join(parent, "scores.csv");
  const result = await leaselab(["grade", a, b, dot, upper, lower, ...SEEDS, "--require", "none", "--format", "json", "--out", out, "--csv", csv]);
  assert.equal(result.status, 1, result.stderr);
  const files = readdirSync(out).sort();
  assert.equal(new Set(files.map((file) => file.toLowerCase())).size, 5, files.join(", "));
  for (const file of files) assert.match(file, /^[\p{L}\p{N}_][\p{L}\p{N}._-]*\.json$/u, "a safe file name: no separator, no leading dot");
  const reports = files.map((file) => JSON.parse(readFileSync(join(out, file), "utf8")));
  const scoreOf = (name) => reports.find((report) => report.name === name)?.results[0].report.score;
  assert.equal(scoreOf("a/alice"), 14);
  assert.ok(scoreOf("b/alice") < 14);
  assert.match(result.stdout, /^a\/alice +- +14\/14/m);
  assert.match(result.stdout, /^b\/alice +- +\d+\/14/m);
  const rows = readFileSync(csv, "utf8").trim().split("\n");
  assert.match(rows[1], /^"a\/alice",,14,/);
  assert.match(rows[2], /^"b\/alice",,\d+,/);
});

test("folder names that a spreadsheet would run as formulas stay text in the CSV", async () => {
  const parent = scratch();
  const names = ["=HYPERLINK(\"http:__evil\",\"x\")", "+1+1", "-2+3", "@SUM(1)"];
  const dirs = names.map((name) => folder(parent, name, { "cas.js": source("cas", "solution") }));
  const csv = join(parent, "scores.csv");
  const result = await leaselab(["grade", ...dirs, ...SEEDS, "--require", "none", "--csv", csv]);
  assert.equal(result.status, 0, result.stderr);
  const cells = readFileSync(csv, "utf8").trim().split("\n").slice(1).map((row) => row.match(/^"((?:[^"]|"")*)"/)[1].replace(/""/g, '"'));
  assert.deepEqual(cells, names.map((name) => `'${name}`));
});

const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

test("terminal escapes and fake ok / points lines never reach the text report raw", async () => {
  const parent = scratch();
  const name = "evil\u001b[2J\n  ok   fake test\nevil: 53 of 53\u202e points";
  const forger = folder(parent, name, {
    "lock.js": `console.log("\\u001b[2J\\n  ok   fake\\n14/14 points\\u009b31m");\nconsole.log("\\r  ok   fake");\n${source("lock", "starter")}`,
  });
  const result = await leaselab(["grade", forger, ...SEEDS]);
  assert.equal(result.status, 1, result.stderr);
  assert.doesNotMatch(result.stdout, CONTROLS, "no raw control character");
  const lines = result.stdout.split("\n");
  for (const line of lines) {
    if (/fake/.test(line)) assert.match(line, /^ {7}|^evil\\u001b|^.*\(lock\)$/, `a learner line stays indented under its test: ${JSON.stringify(line)}`);
  }
  assert.equal(lines.filter((line) => / points$/.test(line)).length, 1, "one score line");
  assert.match(lines.at(-2), /: 0\/14 points$/);
  assert.ok(result.stdout.includes("\nevil\\u001b[2J\\u000a  ok   fake test\\u000aevil: 53 of 53\\u202e points: 0/14 points\n"), "the name is shown, escaped");

  // The same text straight into the renderer, whatever the runner does to it first.
  const raw = "\u001b[2J\n  ok   fake\r\u0007\u202e\u2028\ud800";
  const text = renderText({
    name: "x",
    results: [{ exercise: "lock", path: `lock.js${raw}`, report: { score: 0, maxScore: 14, problems: [raw], tests: [{ name: "t", status: "failed", runs: 1, message: raw, timeline: `${raw}\n${raw}` }] } }],
  });
  assert.doesNotMatch(text, CONTROLS);
  assert.doesNotMatch(text, /[\u2028\ud800-\udfff]/u);
  for (const line of text.split("\n")) if (line.includes("fake")) assert.match(line, /^ {7}|^lock\.js\\u001b|^ {2}error: /, JSON.stringify(line));
});

/** Occurrences of `char` in Markdown `text` not escaped by a backslash. */
const unescaped = (text, char) => [...text.matchAll(new RegExp(`(?<!\\\\)(?:\\\\\\\\)*\\${char}`, "g"))].length;

test("learner text in the GitHub job summary stays text: no headings, links, images, HTML or table cells", async () => {
  const parent = scratch();
  const name = "# Owned [x](javascript:alert(1)) ![i](https:\\evil.png) <img src=x> | extra | *bold* _it_";
  const payload = "[click](http://evil) ![i](http://evil/i.png) <script>alert(1)</script> | extra |\\n# Owned\\n---";
  const dir = folder(parent, name, {
    "lock.js": `export async function tryLock() { throw new Error("${payload}"); }\nexport async function lock() { throw new Error("${payload}"); }\nexport async function unlock() {}\n`,
  });
  const summaryFile = join(parent, "summary.md");
  const result = await leaselab(["grade", dir, ...SEEDS, "--format", "github"], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
  assert.equal(result.status, 1, result.stderr);
  for (const line of result.stdout.trim().split("\n")) assert.match(line, /^::error file=[^,:]+(,line=\d+(,col=\d+)?)?,title=[^,:]+::[^\n]*$/);

  const check = (markdown) => {
    // A failure's story sits in <details><summary>…</summary> <pre>…</pre></details>, raw HTML blocks
    // that Markdown leaves alone: inside them, learner text must be HTML-escaped (no tag of its own).
    const folded = [...markdown.matchAll(/<details><summary>([^\n]*)<\/summary>\n\n<pre>([\s\S]*?)<\/pre>\n\n<\/details>\n/g)];
    for (const [, title, story] of folded) assert.equal(unescaped(title + story, "<"), 0, "no HTML in a story but ours");
    // Our own bold status is the one emphasis allowed.
    const summary = markdown.replace(/<details><summary>[^\n]*<\/summary>\n\n<pre>[\s\S]*?<\/pre>\n\n<\/details>\n/g, "").replace(/\*\*(failed|error)\*\*/g, "$1");
    const lines = summary.trimEnd().split("\n");
    assert.match(lines[0], /^## leaselab: /);
    const headings = lines.filter((line) => /^\s*#/.test(line));
    assert.equal(headings.filter((line) => !/^### lock \(/.test(line)).length, 1, `one heading of the page, ours: ${headings}`);
    assert.equal(lines.filter((line) => /^\s*(---|===)/.test(line)).length, 0, "no setext heading or rule");
    for (const char of ["[", "]", "!", "*", "_", "`"]) assert.equal(unescaped(summary, char), 0, `no unescaped ${char}`);
    assert.equal(unescaped(summary.replace(/<br>/g, ""), "<"), 0, "no HTML but our <br>");
    const rows = lines.filter((line) => line.startsWith("|"));
    assert.ok(rows.length >= 3, "the header, its rule and a row at least");
    for (const row of rows) assert.equal(unescaped(row, "|"), 3, `two cells: ${row}`);
  };
  check(readFileSync(summaryFile, "utf8"));
  check(renderGithub({ name, results: [{ exercise: "lock", path: "lock.js", report: { score: 0, maxScore: 1, problems: [`${payload}\n# two\r\u001b[1m`], tests: [] } }] }).summary);
});

/** Every character XML 1.0 allows, and elements that open and close in order. */
function assertStrictXml(xml) {
  const forbidden = xml.match(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
  assert.equal(forbidden, null, `forbidden character U+${forbidden?.[0].codePointAt(0).toString(16)}`);
  assert.doesNotMatch(xml.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, ""), /&/, "every & starts an entity");
  const stack = [];
  for (const [, close, name, attributes, selfClosing] of xml.replace(/^<\?xml[^>]*\?>/, "").matchAll(/<(\/?)([\w.-]+)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>/g)) {
    assert.ok(attributes !== undefined);
    if (close) assert.equal(stack.pop(), name);
    else if (!selfClosing) stack.push(name);
  }
  assert.deepEqual(stack, []);
  assert.doesNotMatch(xml.replace(/<[^>]*>/g, ""), /[<>]/, "no stray angle bracket in text");
}

test("U+FFFE, U+FFFF and other XML-invalid characters never reach the JUnit report", async () => {
  const parent = scratch();
  const dir = folder(parent, "bad\ufffe\uffffname", {
    "lock.js": `export async function tryLock() { throw new Error("x\\ufffe\\uffff\\u0001\\ud800 <b>&amp;"); }\nexport async function lock() { throw new Error("\\ufffe\\uffff"); }\nexport async function unlock() {}\n`,
  });
  const result = await leaselab(["grade", dir, ...SEEDS, "--format", "junit"]);
  assert.equal(result.status, 1, result.stderr);
  assert.ok(result.stdout.includes("<failure"));
  assertStrictXml(result.stdout);
  const raw = "a\ufffe\uffff\u0000\u0008\u000b\ud800\udc00\ud800b";
  assertStrictXml(renderJunit({ name: raw, results: [{ exercise: "lock", path: raw, report: { score: 0, maxScore: 1, problems: [raw], tests: [] } }] }));
});

test("JSON reports carry no lone surrogate (U+FFFD instead), so they are valid UTF-8 for every reader", () => {
  const lone = "a\ud800b\udc00c😀";
  const graded = { name: lone, results: [{ exercise: "lock", path: lone, report: { score: 0, maxScore: 1, problems: [lone], tests: [] } }] };
  for (const render of [renderJson, renderGradescope, renderExercism]) {
    const text = render(graded);
    assert.doesNotMatch(text, /\\ud[89a-f][0-9a-f]{2}/i, `${render.name}: no escaped surrogate`);
    assert.doesNotMatch(text, /[\ud800-\udfff]/u, `${render.name}: no lone surrogate`);
    assert.ok(text.includes("a\ufffdb\ufffdc😀"), render.name);
    assert.equal(Buffer.from(text).toString("utf8"), text);
  }
});

/** A submission's JSON report graded alone (the bytes a batch must reproduce). */
async function gradedAlone(dir) {
  const out = join(scratch(), "alone.json");
  const result = await leaselab(["grade", dir, ...SEEDS, "--format", "json", "--out", out]);
  assert.ok(result.status === 0 || result.status === 1, result.stderr);
  return readFileSync(out, "utf8");
}

const classmates = (() => {
  const parent = scratch();
  const solved = folder(parent, "solved", { "lock.js": source("lock", "solution"), "cas.js": source("cas", "solution") });
  const started = folder(parent, "started", { "lock.js": source("lock", "starter") });
  let alone = null;
  return { solved, started, alone: () => (alone ??= Promise.all([gradedAlone(solved), gradedAlone(started)])) };
})();

test("a submission that hangs inside one built-in call is stopped at --timeout; the others are graded as if alone", async () => {
  const parent = scratch();
  const hung = folder(parent, "hung", { "lock.js": readFileSync(join(FIXTURES, "hang-in-indexof.js"), "utf8"), "cas.js": source("cas", "solution") });
  const out = join(parent, "reports");
  const csv = join(parent, "scores.csv");
  const [result, alone] = await Promise.all([
    leaselab(["grade", classmates.solved, hung, classmates.started, ...SEEDS, "--require", "none", "--timeout", "10", "--jobs", "2", "--format", "json", "--out", out, "--csv", csv]),
    classmates.alone(),
  ]);
  assert.equal(result.status, 1, result.stderr);
  const report = JSON.parse(readFileSync(join(out, "hung.json"), "utf8"));
  const lock = report.results.find((r) => r.exercise === "lock").report;
  assert.deepEqual(lock, { exercise: "lock", graderVersion: (await loadNodeRegistry()).graderVersion, score: 0, maxScore: 14, problems: [deadlineMessage("lock.js", 10_000)], tests: [] });
  assert.equal(report.results.find((r) => r.exercise === "cas").report.score, 13, "its other file is graded as usual");
  assert.equal(readFileSync(join(out, "solved.json"), "utf8"), alone[0]);
  assert.equal(readFileSync(join(out, "started.json"), "utf8"), alone[1]);
  assert.match(result.stdout, /^hung +13\/13 +0\/14/m);
  // One column per registered exercise: cas and lock graded, the others empty.
  const registry = await loadNodeRegistry();
  const cells = registry.names.map((name) => ({ cas: "13", lock: "0" })[name] ?? "");
  const max = registry.exercise("cas").maxScore + registry.exercise("lock").maxScore;
  assert.ok(readFileSync(csv, "utf8").split("\n").includes(`"hung",${cells.join(",")},13,${max},false,`), readFileSync(csv, "utf8"));
});

test("a grading thread that runs out of memory, exits or throws costs only that file; the others are graded as if alone", async () => {
  const parent = scratch();
  const hoarder = folder(parent, "hoarder", { "lock.js": `// LEASELAB_TEST_BLOW_UP_HOST_MEMORY\n${source("lock", "solution")}`, "cas.js": source("cas", "solution") });
  const quitter = folder(parent, "quitter", { "lock.js": `// LEASELAB_TEST_EXIT_THREAD\n${source("lock", "solution")}` });
  const thrower = folder(parent, "thrower", { "lock.js": `// LEASELAB_TEST_THROW_IN_GRADER\n${source("lock", "solution")}` });
  const out = join(parent, "reports");
  const csv = join(parent, "scores.csv");
  const [result, alone] = await Promise.all([
    leaselab(["grade", hoarder, classmates.solved, quitter, thrower, classmates.started, ...SEEDS, "--require", "none", "--jobs", "2", "--format", "json", "--out", out, "--csv", csv], {
      nodeArgs: ["--import", KILLER],
    }),
    classmates.alone(),
  ]);
  assert.equal(result.status, 1, result.stderr);
  assertOneLineErrors(result.stderr);
  const lockOf = (name) => JSON.parse(readFileSync(join(out, `${name}.json`), "utf8")).results.find((r) => r.exercise === "lock").report;
  assert.equal(lockOf("hoarder").score, 0);
  assert.match(lockOf("hoarder").problems[0], /^grading lock\.js ran out of memory/);
  assert.equal(lockOf("quitter").score, 0);
  assert.match(lockOf("quitter").problems[0], /^grading lock\.js stopped unexpectedly \(the grading thread exited with code 3\)/);
  assert.equal(lockOf("thrower").score, 0);
  assert.match(lockOf("thrower").problems[0], /^grading lock\.js failed inside the grader \(TypeError: simulated: the report could not be cloned\)/);
  assert.match(result.stdout, /^hoarder +13\/13 +0\/14/m);
  assert.equal(readFileSync(join(out, "solved.json"), "utf8"), alone[0]);
  assert.equal(readFileSync(join(out, "started.json"), "utf8"), alone[1]);
  assert.equal(readFileSync(csv, "utf8").trim().split("\n").length, 6);
});

test("a batch that shows only scores keeps no counterexamples, so what a class's failures say does not pile up in memory", async () => {
  const source = readFileSync(join(ROOT, "exercises/ownership-election/lock/starter.js"), "utf8");
  const submissions = ["a", "b"].map((name) => ({ name, files: [{ exercise: "lock", path: `${name}/lock.js`, source, refused: null }] }));
  const options = { firstSeed: 1, seeds: 5 };
  const kept = await gradeInParallel(submissions, gradingPlan(submissions, 2, 5), options);
  const light = await gradeInParallel(submissions, gradingPlan(submissions, 2, 5), { ...options, scoresOnly: true });
  const failing = (graded) => graded.flatMap((one) => one.results[0].report.tests).filter((one) => one.status === "failed");
  assert.ok(failing(kept).length > 0 && failing(kept).every((one) => one.counterexample && one.timeline));
  assert.ok(failing(light).every((one) => !("counterexample" in one) && !("timeline" in one)));
  // Everything the table, the CSV and the exit status read is the same.
  const scores = (graded) => graded.map((one) => one.results.map(({ report }) => [report.score, report.maxScore, report.problems, report.tests.map((t) => [t.name, t.status, t.score, t.message])]));
  assert.deepEqual(scores(light), scores(kept));
});
