// Exercism's test-runner interface
// (https://exercism.org/docs/building/tooling/test-runners/interface):
//   run.sh <exercise-slug> <solution-dir> <output-dir>
// The slug is a leaselab exercise's name (cas, lock, lease, fencing,
// election); the solution directory holds its file (lock.js for lock). The
// leaselab CLI grades it and writes results.json (version 3); when it
// cannot (an unknown slug, no solution file), this script writes the
// "error" result itself, with the CLI's message, so the learner always
// reads what to do. Exit status 0 whenever results.json was written.
//
// The CLI runs in the solution directory and grades ".", so every path in
// its messages is relative to the solution ("lock.js is not valid UTF-8
// text"), never the runner's own folders, as the spec asks.
//
// LEASELAB_PREFIX (default /opt/leaselab, where the Dockerfile installs the
// package) says where leaselab is installed, for tests.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const USAGE = "usage: run.sh <exercise-slug> <solution-dir> <output-dir>";
const PREFIX = process.env.LEASELAB_PREFIX || "/opt/leaselab";
const CLI = join(PREFIX, "node_modules", "leaselab", "cli", "leaselab.mjs");
/** The spec caps the top-level message at 65535 characters. */
const MESSAGE_CHARS_MAX = 65535;
/**
 * The CLI's deadline for grading the solution, in seconds of real time.
 * Exercism stops a test run after 20 s, start-up included, and the learner
 * then reads only that it timed out; leaselab's own deadline must fire well
 * before, so a submission that hangs (stuck inside one built-in call) gets
 * leaselab's "took too long" message instead. Node and the grader start in
 * about a second (more on a cold, busy machine), and a passing solution
 * grades in about one more, far inside this.
 */
const GRADING_DEADLINE_SECONDS = 15;

const [slug, solutionDir, outputDir, ...extra] = process.argv.slice(2);
if (!slug || !solutionDir || !outputDir || extra.length > 0) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
mkdirSync(outputDir, { recursive: true });
const results = resolve(outputDir, "results.json");
rmSync(results, { force: true });

/** `{ status, stderr }` of grading the solution, or of why it could not start. */
function grade() {
  if (!(statSync(solutionDir, { throwIfNoEntry: false })?.isDirectory() ?? false)) {
    return { status: null, stderr: "leaselab: <solution-dir> is not a directory; pass the folder that holds the solution\n" };
  }
  if (!existsSync(CLI)) {
    return { status: null, stderr: `leaselab: ${CLI} is missing; install the leaselab package there (see the Dockerfile) or set LEASELAB_PREFIX\n` };
  }
  return spawnSync(process.execPath, [CLI, "grade", ".", "--exercise", slug, "--format", "exercism", "--out", results, "--timeout", String(GRADING_DEADLINE_SECONDS)], {
    cwd: solutionDir,
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
  });
}

const graded = grade();
process.stderr.write(graded.stderr ?? "");

if (!existsSync(results)) {
  // The CLI names the solution directory "." (it grades it from inside);
  // the spec's name for it is <solution-dir>.
  const message = (graded.stderr ?? "")
    .split("\n")
    .filter((line) => line.startsWith("leaselab: "))
    .map((line) => line.slice("leaselab: ".length).replace(/^\.(?=[:/])/, "<solution-dir>"))
    .join("\n");
  const reason = message || `the grader stopped (${graded.error?.message ?? `exit status ${graded.status}`})`;
  writeFileSync(results, `${JSON.stringify({ version: 3, status: "error", message: reason.slice(0, MESSAGE_CHARS_MAX), tests: [] }, null, 2)}\n`);
}
