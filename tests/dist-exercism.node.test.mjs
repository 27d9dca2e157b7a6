// dist/exercism-test-runner/bin/run.sh held to Exercism's test-runner
// interface (https://exercism.org/docs/building/tooling/test-runners/interface)
// without Docker: `run.sh <slug> <solution-dir> <output-dir>` with the
// package installed from the tarball, then results.json read back against
// the spec's fields, including its error cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { deadlineMessage } from "../runner/limits.js";
import { DIST, envWithoutRust, installPackage, LESSON, requireDist, run, scratchFolder } from "./support/dist.mjs";

const registry = await loadNodeRegistry();
const RUNNER = requireDist(join(DIST, "exercism-test-runner"));
const RUN_SH = join(RUNNER, "bin/run.sh");
const scratch = scratchFolder("exercism");
const prefix = join(scratch, "opt-leaselab");
const env = { ...envWithoutRust(scratch), LEASELAB_PREFIX: prefix };
await installPackage(prefix, env);
let folders = 0;

/** A fresh solution folder holding `files` ({ name: text or bytes }), graded as `slug`; resolves to the run and its results.json. */
async function runner(slug, files) {
  folders += 1;
  const solution = join(scratch, `solution-${folders}`);
  const output = join(scratch, `output-${folders}`);
  mkdirSync(solution, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(solution, name), text);
  // Exercism passes both folders with a trailing slash; the output folder may not exist yet.
  const ran = await run(RUN_SH, [slug, `${solution}/`, `${output}/`], { env });
  return { ran, solution, results: JSON.parse(readFileSync(join(output, "results.json"), "utf8")) };
}

/** The lesson's `solution.js` or `starter.js` of an exercise, as text. */
const lesson = (exercise, which) => readFileSync(join(LESSON, exercise, `${which}.js`), "utf8");
/** A submission that never finishes loading: one built-in call that runs for hours (tests/fixtures/cli). */
const HANGS = readFileSync(new URL("fixtures/cli/hang-in-indexof.js", import.meta.url), "utf8");

/** Every field the spec defines, with the types and values it allows (version 3). */
function assertSpecShape(results) {
  assert.equal(results.version, 3);
  assert.ok(["pass", "fail", "error"].includes(results.status), results.status);
  if (results.status === "error") {
    assert.equal(typeof results.message, "string");
    assert.ok(results.message.length > 0 && results.message.length <= 65535);
  } else {
    assert.ok(results.message === undefined || results.message === null);
    assert.ok(Array.isArray(results.tests) && results.tests.length > 0);
  }
  for (const one of results.tests ?? []) {
    assert.equal(typeof one.name, "string");
    assert.ok(["pass", "fail", "error"].includes(one.status), one.status);
    if (one.status !== "pass") assert.equal(typeof one.message, "string");
    if (one.output !== undefined) assert.ok(typeof one.output === "string" && one.output.length <= 500);
    assert.equal(typeof one.test_code, "string");
    // task_id numbers a task heading of the exercise's instructions.md; leaselab's exercises have none.
    assert.equal(one.task_id, undefined, `${one.name}: task_id ${one.task_id}`);
  }
}

test("the runner folder ships an executable run.sh, a Dockerfile and the tarball", () => {
  assert.ok(statSync(RUN_SH).mode & 0o100, "run.sh is not executable");
  const dockerfile = readFileSync(join(RUNNER, "Dockerfile"), "utf8");
  assert.match(dockerfile, /ENTRYPOINT \["\/opt\/test-runner\/bin\/run\.sh"\]/);
  assert.match(dockerfile, /npm install --prefix \/opt\/leaselab --offline/);
});

test("a passing solution: status pass, every test pass, exit 0", async () => {
  const { ran, results } = await runner("lock", { "lock.js": lesson("lock", "solution") });
  assert.equal(ran.status, 0, ran.stderr);
  assertSpecShape(results);
  assert.equal(results.status, "pass");
  assert.ok(results.tests.every((one) => one.status === "pass"));
});

test("a failing solution: status fail, each failure with its message and its replay token as test_code, exit 0", async () => {
  const { ran, results } = await runner("lock", { "lock.js": lesson("lock", "starter") });
  assert.equal(ran.status, 0, ran.stderr);
  assertSpecShape(results);
  assert.equal(results.status, "fail");
  const failed = results.tests.filter((one) => one.status === "fail");
  assert.ok(failed.length > 0);
  assert.ok(failed.every((one) => one.message.length > 0 && one.test_code.includes(`lock@${registry.graderVersion}:`)), JSON.stringify(failed[0]));
});

const ERRORS = [
  ["a syntax error", "lock", { "lock.js": "export async function lock(ctx) {\n  let x = ;\n}\n" }, /lock\.js:2:\d+: SyntaxError/],
  // In the learner's words: no option of the CLI's, and what the solution does hold.
  ["a missing solution file", "lock", { "README.md": "# lock\n" }, /^lock\.js is missing from this submission, and this exercise is required, so it scores 0; add your lock\.js [^-]*\(it holds README\.md\)/],
  ["a missing export", "lock", { "lock.js": "export const nothing = 1;\n" }, /lock\.js must export `tryLock`; it exports `nothing`/],
  ["an unknown slug", "two-fer", { "two-fer.js": "" }, /--exercise must be one of cas, lock/],
  // Named relative to the solution, never by the runner's own folders.
  ["a file that is not UTF-8", "lock", { "lock.js": Buffer.from([0x65, 0x78, 0xff, 0xfe, 0x0a]) }, /^lock\.js is not valid UTF-8 text; save the file as UTF-8$/],
];
for (const [label, slug, files, message] of ERRORS) {
  test(`${label}: status error with a message that says what to do, exit 0`, async () => {
    const { ran, solution, results } = await runner(slug, files);
    assert.equal(ran.status, 0, ran.stderr);
    assertSpecShape(results);
    assert.equal(results.status, "error");
    assert.match(results.message, message);
    assert.ok(!results.message.includes(solution), `the message shows the runner's paths: ${results.message}`);
  });
}

test("a solution that hangs is stopped by leaselab's own deadline, well inside Exercism's 20 s, and says it took too long", async () => {
  const { ran, results } = await runner("lock", { "lock.js": HANGS });
  assert.equal(ran.status, 0, ran.stderr);
  assert.equal(results.message, deadlineMessage("lock.js", 15_000));
  assert.equal(results.status, "error");
  assertSpecShape(results);
});

test("called without its three arguments, run.sh says how to call it", async () => {
  const ran = await run(RUN_SH, ["lock"], { env });
  assert.equal(ran.status, 2);
  assert.match(ran.stderr, /usage: run\.sh <exercise-slug> <solution-dir> <output-dir>/);
});
