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
// LEASELAB_PREFIX (default /opt/leaselab, where the Dockerfile installs the
// package) says where leaselab is installed, for tests.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const USAGE = "usage: run.sh <exercise-slug> <solution-dir> <output-dir>";
const PREFIX = process.env.LEASELAB_PREFIX || "/opt/leaselab";
const CLI = join(PREFIX, "node_modules", "leaselab", "cli", "leaselab.mjs");
/** The spec caps the top-level message at 65535 characters. */
const MESSAGE_CHARS_MAX = 65535;

const [slug, solutionDir, outputDir, ...extra] = process.argv.slice(2);
if (!slug || !solutionDir || !outputDir || extra.length > 0) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
mkdirSync(outputDir, { recursive: true });
const results = join(outputDir, "results.json");
rmSync(results, { force: true });

const graded = existsSync(CLI)
  ? spawnSync(process.execPath, [CLI, "grade", solutionDir, "--exercise", slug, "--format", "exercism", "--out", results], {
      stdio: ["ignore", "inherit", "pipe"],
      encoding: "utf8",
    })
  : { status: null, stderr: `leaselab: ${CLI} is missing; install the leaselab package there (see the Dockerfile) or set LEASELAB_PREFIX\n` };
process.stderr.write(graded.stderr ?? "");

if (!existsSync(results)) {
  // The spec asks for paths relative to the solution, as <solution-dir>/…,
  // never the runner's own folders.
  const folder = solutionDir.replace(/\/+$/, "");
  const message = (graded.stderr ?? "")
    .split("\n")
    .filter((line) => line.startsWith("leaselab: "))
    .map((line) => line.slice("leaselab: ".length).split(folder).join("<solution-dir>"))
    .join("\n");
  const reason = message || `the grader stopped (${graded.error?.message ?? `exit status ${graded.status}`})`;
  writeFileSync(results, `${JSON.stringify({ version: 3, status: "error", message: reason.slice(0, MESSAGE_CHARS_MAX), tests: [] }, null, 2)}\n`);
}
