// The CLI's text report for one submission, printed as it is graded: each
// test's lines as soon as the test finishes, in the files' order, and in the
// end exactly the bytes of the whole report (what `--out` writes). Other
// formats and batches are written whole, as before (cli.node.test.mjs).
//
// No timing: to see a line printed while grading still runs, the file's
// second test calls a `tryLock` stuck inside one built-in call
// (support/stall.mjs: minutes long), so the grading cannot end
// before the test has looked; the first test fails at once, and its lines
// are what must be on screen. The file's deadline (`--timeout`) is only the
// bound that ends a CLI which never prints them, as only a broken one nears.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, copyFileSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { STALL } from "./support/stall.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();

// The first named scenario (lock, work, unlock) fails on the missing TTL; the second calls tryLock, which never returns.
const STUCK_SECOND = `${STALL}
export async function tryLock(ctx, key, ttlMs) {
  return stall() >= 0 ? { version: 0 } : null;
}

export async function lock(ctx, key, ttlMs) {
  while (true) {
    const result = await ctx.store.compareAndSwap(key, ctx.name, null);
    if (result.ok) return { version: result.version };
    await ctx.sleep(100);
  }
}

export async function unlock(ctx, key, version) {
  await ctx.store.delete(key);
  return true;
}
`;

test("one submission's text: a test's lines are printed as soon as it finishes, while the file's next test still runs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-stream-"));
  writeFileSync(join(dir, "lock.js"), STUCK_SECOND);
  const first = registry.exercise("lock").tests[0].title;
  const child = spawn(process.execPath, [CLI, "grade", dir, "--timeout", "300"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.setEncoding("utf8");
  try {
    // The state to reach: the first test's story printed up to its replay token (its last line).
    await new Promise((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (/\n {7}replay: lock@[^\n]*\n/.test(stdout)) resolve();
      });
      child.on("exit", (code) => reject(new Error(`the CLI ended (status ${code}) before printing the first test's story: ${stdout}`)));
    });
    assert.equal(child.exitCode, null, "the grading still runs");
    const lines = stdout.split("\n");
    assert.equal(lines[0], `${join(dir, "lock.js")} (lock)`);
    assert.equal(lines[1], `  FAIL ${first}`);
    assert.ok(lines.slice(2, -1).every((line) => line.startsWith("       ")), "only the first test's story follows, indented under it");
    assert.doesNotMatch(stdout, /score:|points/, "no score before the file is graded");
  } finally {
    child.kill();
  }
});

test("a whole submission's text printed as it was graded is byte for byte the report written at the end, in the files' order", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-stream-"));
  // Files finish in any order (graded in parallel); one cannot be run at all.
  for (const name of registry.names) copyFileSync(join(LESSON, name, "starter.js"), join(dir, `${name}.js`));
  copyFileSync(join(LESSON, "lease/solution.js"), join(dir, "lease.js"));
  writeFileSync(join(dir, "fencing.js"), "export const broken = (");
  const run = (args) => new Promise((resolve) => execFile(process.execPath, [CLI, "grade", dir, "--seeds", "20", ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => resolve({ status: error ? error.code : 0, stdout })));
  const out = join(dir, "report.txt");
  const [streamed, written] = await Promise.all([run([]), run(["--out", out])]);
  assert.equal(streamed.status, 1);
  assert.equal(written.status, 1);
  assert.equal(written.stdout, "");
  assert.equal(streamed.stdout, readFileSync(out, "utf8"));
  const heads = streamed.stdout.split("\n").filter((line) => line.startsWith(dir));
  assert.deepEqual(heads, registry.exercises.map(({ name, file }) => `${join(dir, file)} (${name})`));
});
