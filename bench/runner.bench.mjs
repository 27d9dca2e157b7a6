// Runner benchmark: how long a whole suite takes to grade the lesson's
// reference solution in Node (each exercise, at the registry's default budget), and
// how many submissions per second a batch grades on all cores. Prints
// figures; never passes or fails on a clock. `cargo xtask bench` runs it.
import { copyFileSync, mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";
import { LESSON_DIR as LESSON } from "../web/build/lesson-folder.mjs";
import { loadSubmissions } from "../cli/submissions.js";
import { gradeInParallel } from "../cli/batch.js";

const ROUNDS = 3;

const engines = await loadNodeEngines();
const registry = registryOf(engines.leaselab);
// The budget learners and course staff get: the registry's default.
const SEEDS = registry.defaults.seeds;
console.log(`suite timings in Node ${process.version} (${SEEDS} random seeds + named scenarios; best of ${ROUNDS})`);
for (const { name: exercise } of registry.exercises) {
  const source = await readFile(join(LESSON, exercise, "solution.js"), "utf8");
  let best = Infinity;
  let runs = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const report = await gradeSource(engines, { exercise, source, options: { seeds: SEEDS } });
    best = Math.min(best, performance.now() - started);
    runs = report.tests.reduce((sum, test) => sum + test.runs, 0);
    if (report.score !== report.maxScore) throw new Error(`${exercise}: the reference solution must pass`);
  }
  console.log(`  ${exercise.padEnd(8)} ${String(runs).padStart(4)} runs in ${best.toFixed(0).padStart(5)} ms  (${(best / runs).toFixed(2)} ms/run)`);
}

// A class: CLASS_SIZE copies of the full set of solutions, graded in a worker pool.
const CLASS_SIZE = 12;
const dirs = [];
for (let index = 0; index < CLASS_SIZE; index += 1) {
  const dir = mkdtempSync(join(tmpdir(), `leaselab-bench-${index}-`));
  for (const { name, file } of registry.exercises) copyFileSync(join(LESSON, name, "solution.js"), join(dir, file));
  dirs.push(dir);
}
const submissions = await loadSubmissions(dirs, { exercise: null });
const jobs = availableParallelism();
const started = performance.now();
await gradeInParallel(submissions, { firstSeed: 1, seeds: SEEDS }, jobs);
const seconds = (performance.now() - started) / 1000;
console.log(`batch: ${CLASS_SIZE} submissions (all four exercises each) in ${seconds.toFixed(1)} s on ${jobs} threads: ${(CLASS_SIZE / seconds).toFixed(2)} submissions/s (200 would take ~${(200 / (CLASS_SIZE / seconds)).toFixed(0)} s)`);
