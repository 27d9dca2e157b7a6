// `--require` in a class's batch (from a review of the option): a folder
// with no exercise file is graded as every required exercise missing, not
// a stop for the whole class; without --require such a folder is refused
// alone and the others are still graded; a misnamed file (Lock.js,
// lock (1).js, lock.js.txt) is named in the message with what to rename it
// to; a second --require is refused rather than silently replacing the
// first; and GitHub's annotation for a missing file is not put on a file
// that does not exist.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { misnamedFiles } from "../cli/submissions.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();
const SEEDS = ["--seeds", "5"];

function leaselab(args, env = {}) {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

/** A class folder: alice hands in cas.js and lock.js, carol only a lock.js named Lock.js (so no exercise file at all). */
function classFolder() {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-require-"));
  mkdirSync(join(dir, "alice"));
  mkdirSync(join(dir, "carol"));
  copyFileSync(join(LESSON, "cas/solution.js"), join(dir, "alice/cas.js"));
  copyFileSync(join(LESSON, "lock/solution.js"), join(dir, "alice/lock.js"));
  copyFileSync(join(LESSON, "lock/solution.js"), join(dir, "carol/Lock.js"));
  return dir;
}

const PASSING = registry.exercise("cas").maxScore + registry.exercise("lock").maxScore;

test("--require: a folder with no exercise file is graded as every required exercise missing, and the rest of the class as usual", async () => {
  const dir = classFolder();
  const csv = join(dir, "scores.csv");
  const result = await leaselab(["grade", join(dir, "alice"), join(dir, "carol"), "--require", "cas,lock", ...SEEDS, "--csv", csv]);
  assert.equal(result.status, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /no exercise file found/);
  const rows = readFileSync(csv, "utf8").trim().split("\n");
  assert.deepEqual(rows.slice(1), [`"alice",13,14,,,,${PASSING},${PASSING},true,`, `"carol",0,0,,,,0,${PASSING},false,"cas lock"`]);
  assert.match(result.stdout, /^carol +0\/13 +0\/14 /m);

  // Its report says, per exercise, that the file is missing, and what the folder does hold.
  const alone = await leaselab(["grade", join(dir, "carol"), "--require", "cas,lock", ...SEEDS]);
  assert.equal(alone.status, 1, alone.stderr);
  assert.match(alone.stdout, /error: cas\.js is missing from this submission, and this exercise is required, so it scores 0; add your cas\.js \(named exactly that, beside the other exercise files\) and submit again; this submission holds no exercise file at all \(it holds Lock\.js\), so check that it is the right folder\n  score: 0\/13\n/);
  assert.match(alone.stdout, /error: lock\.js is missing[^\n]*\n  score: 0\/14\n/);
  assert.match(alone.stdout, /carol: 0\/27 points\n$/);
  // An empty folder too.
  const empty = join(dir, "empty");
  mkdirSync(empty);
  const nothing = await leaselab(["grade", empty, "--require", "all", ...SEEDS]);
  assert.equal(nothing.status, 1, nothing.stderr);
  assert.match(nothing.stdout, /election\.js is missing[^\n]*\(it is empty\), so check that it is the right folder/);
});

test("--require none: a folder with no exercise file is refused alone: exit 2 naming it, and the others still graded into the table and the CSV", async () => {
  const dir = classFolder();
  const csv = join(dir, "scores.csv");
  const result = await leaselab(["grade", join(dir, "alice"), join(dir, "carol"), "--require", "none", ...SEEDS, "--csv", csv]);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /carol: no exercise file found; a submission holds cas\.js, .*; it holds Lock\.js \(left out; the rest of the batch is graded\)/);
  assert.deepEqual(readFileSync(csv, "utf8").trim().split("\n").slice(1), [`"alice",13,14,,,,${PASSING},${PASSING},true,`]);
  assert.match(result.stdout, /^alice /m);
  assert.doesNotMatch(result.stdout, /carol/);
  // A class requires every exercise unless told otherwise: carol is graded, every exercise missing.
  const strict = await leaselab(["grade", join(dir, "alice"), join(dir, "carol"), ...SEEDS, "--csv", csv]);
  assert.equal(strict.status, 1, strict.stderr);
  assert.match(readFileSync(csv, "utf8"), /\n"carol",0,0,0,0,0,0,75,false,"cas lock lease fencing election"\n/);
  // Alone, with nothing required, it stops the run: nothing is graded, no CSV is written.
  const alone = join(dir, "alone.csv");
  const single = await leaselab(["grade", join(dir, "carol"), ...SEEDS, "--csv", alone]);
  assert.equal(single.status, 2);
  assert.match(single.stderr, /carol: no exercise file found; .*; it holds Lock\.js\n$/);
  assert.equal(single.stdout, "");
  assert.ok(!existsSync(alone));
});

test("--require: a file named like a missing exercise's (other case, a suffix, another extension) is named, with what to rename it to", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaselab-require-"));
  copyFileSync(join(LESSON, "cas/solution.js"), join(dir, "cas.js"));
  copyFileSync(join(LESSON, "lock/solution.js"), join(dir, "Lock.js"));
  writeFileSync(join(dir, "lease (1).js"), "");
  writeFileSync(join(dir, "lease-final.js"), "");
  writeFileSync(join(dir, "fencing.js.txt"), "");
  mkdirSync(join(dir, "election.js.d"));
  writeFileSync(join(dir, "notes.txt"), "");
  const result = await leaselab(["grade", dir, "--require", "all", ...SEEDS]);
  assert.equal(result.status, 1, result.stderr);
  assert.ok(result.stdout.includes("error: lock.js is missing from this submission, and this exercise is required, so it scores 0; it holds Lock.js: rename it to lock.js (exactly that name) and submit again\n"), result.stdout);
  assert.ok(result.stdout.includes("error: lease.js is missing from this submission, and this exercise is required, so it scores 0; it holds lease (1).js and lease-final.js: rename the one to grade to lease.js (exactly that name) and submit again\n"), result.stdout);
  assert.ok(result.stdout.includes("it holds fencing.js.txt: rename it to fencing.js"), result.stdout);
  // A directory is never a file to rename; with nothing like it, the message says to add the file.
  assert.ok(result.stdout.includes("error: election.js is missing from this submission, and this exercise is required, so it scores 0; add your election.js (named exactly that"), result.stdout);
  assert.doesNotMatch(result.stdout, /notes\.txt/);

  // The heuristic itself: bounded to these three shapes, compared without letter case.
  const names = ["LOCK.JS", "lock (2).js", "Lock_v2.js", "lock.js.bak", "lock.ts", "my-lock.js", "clock.js", "cas.js", "locks.txt", ".lock.js"];
  assert.deepEqual(misnamedFiles(names.map((name) => ({ name, kind: "file" })), registry.exercise("lock")), ["LOCK.JS", "Lock_v2.js", "lock (2).js", "lock.js.bak"]);
});

test("--require given twice is a usage error that says how to give it once, not a silent replacement", async () => {
  const dir = classFolder();
  for (const [args, merged] of [
    [["--require", "lock", "--require", "cas"], "cas,lock"],
    [["--require", "cas,lock,lease", "--require", "fencing,election"], "all"],
  ]) {
    const result = await leaselab(["grade", join(dir, "alice"), ...args, ...SEEDS]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`--require is given twice \\("${args[1]}", then "${args[3]}"\\); give it once, with every exercise it needs, such as --require ${merged}\\n`));
    assert.equal(result.stdout, "");
  }
  const help = await leaselab(["--help"]);
  assert.match(help.stdout, /Give it once/);
});

test("GitHub: a missing file's annotation is on the run, not on a file that does not exist, titled with what is missing", async () => {
  const dir = classFolder();
  const result = await leaselab(["grade", join(dir, "alice"), "--require", "cas,lock,lease", ...SEEDS, "--format", "github"], { GITHUB_STEP_SUMMARY: "" });
  assert.equal(result.status, 1, result.stderr);
  const annotations = result.stdout.split("\n").filter((line) => line.startsWith("::"));
  assert.deepEqual(annotations, ["::error title=lease%3A lease.js is missing::lease.js is missing from this submission, and this exercise is required, so it scores 0; add your lease.js (named exactly that, beside the other exercise files) and submit again"]);
  assert.match(result.stdout, /\| lease\\\.js is missing \| \*\*error\*\*: lease\\\.js is missing/);
});
