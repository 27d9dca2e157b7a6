// Grading with only Node (issue 17): what a CI job or a grading platform
// pays from an empty folder. Prints the tarball's size, the time to install
// it (offline, empty npm cache, no Rust on PATH) and the time to grade one
// full submission (every exercise's solution) at the default budget, the
// first grading right after the install (cold) and two more.
// Needs `cargo xtask dist` first; `cargo xtask bench` runs it.
import { statSync } from "node:fs";
import { join } from "node:path";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { envWithoutRust, fillSubmission, installPackage, requireDist, ROOT, run, scratchFolder, TARBALL } from "../tests/support/dist.mjs";

const ROUNDS = 3;
const registry = await loadNodeRegistry();
requireDist();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

const installs = [];
const grades = [];
let cold = null;
for (let round = 0; round < ROUNDS; round += 1) {
  const scratch = scratchFolder("bench-dist");
  const env = envWithoutRust(scratch);
  const app = join(scratch, "app");
  const submission = fillSubmission(join(scratch, "submission"), "solution", registry.exercises);
  let start = performance.now();
  await installPackage(app, env);
  installs.push(performance.now() - start);
  const cli = join(app, "node_modules/.bin/leaselab");
  for (let again = 0; again < (round === 0 ? 3 : 1); again += 1) {
    start = performance.now();
    const graded = await run(cli, ["grade", submission], { env, cwd: app });
    const elapsed = performance.now() - start;
    if (graded.status !== 0) throw new Error(`grading the solutions failed:\n${graded.stdout}${graded.stderr}`);
    if (round === 0 && again === 0) cold = elapsed;
    grades.push(elapsed);
  }
}

// The repository's CLI on the same submission, for a ratio that survives a loaded machine.
const repoGrades = [];
const submission = fillSubmission(join(scratchFolder("bench-dist"), "submission"), "solution", registry.exercises);
for (let round = 0; round < ROUNDS; round += 1) {
  const start = performance.now();
  await run(process.execPath, [join(ROOT, "cli/leaselab.mjs"), "grade", submission]);
  repoGrades.push(performance.now() - start);
}

const bytes = statSync(TARBALL).size;
console.log(`tarball ${TARBALL.split("/").pop()}: ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB)`);
console.log(`install from the tarball (offline, empty cache), median of ${ROUNDS}: ${seconds(median(installs))} (${installs.map(seconds).join(", ")})`);
console.log(`grade one full submission (${registry.names.length} exercises, ${registry.defaults.seeds} random schedules each), first after install: ${seconds(cold)}`);
console.log(`grade one full submission, median of ${grades.length}: ${seconds(median(grades))} (${grades.map(seconds).join(", ")})`);
console.log(`the repository's CLI on the same submission, median of ${ROUNDS}: ${seconds(median(repoGrades))} (${repoGrades.map(seconds).join(", ")})`);
console.log(`empty folder to a graded submission (install + first grading): ${seconds(installs[0] + cold)}`);
