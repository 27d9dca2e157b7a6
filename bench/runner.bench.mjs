// Runner benchmark, at the registry's default budget (what learners and
// course staff get): for each exercise, the lesson's reference solution
// graded in the engine in Node, and the native Rust reference (`cargo bench -p grader -- --default-budget-json`),
// measured interleaved, best of ROUNDS; a conventional Vitest suite of the
// lock exercise (bench/conventional/) beside `leaselab grade lock.js`; the
// CLI's cold time and peak memory for one full submission; a batch of
// CLASS_SIZE full submissions. Prints figures; never passes or fails on a
// clock. Writes the per-exercise figures to target/bench/node.json, which
// bench/browser.bench.mjs puts beside Chromium's. `cargo xtask bench` runs it.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";
import { LESSON_DIR as LESSON } from "../web/build/lesson-folder.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = 3;
const CLASS_SIZE = 24;

const engines = await loadNodeEngines();
const registry = registryOf(engines.leaselab);
// The budget learners and course staff get: the registry's default.
const SEEDS = registry.defaults.seeds;
const options = { seeds: SEEDS };
const fmt = (ms) => `${ms.toFixed(0).padStart(6)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(1).padStart(5)}×`;

const native = JSON.parse(execFileSync("cargo", ["bench", "-q", "-p", "grader", "--bench", "suites", "--", "--default-budget-json"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim().split("\n").pop());

console.log(`suites at the default budget (${SEEDS} random seeds + named scenarios), lesson solutions, Node ${process.version}; interleaved, best of ${ROUNDS}`);
console.log(`  exercise  runs   sandboxed   native Rust   sandboxed/native`);
const figures = {};
for (const { name: exercise } of registry.exercises) {
  const source = await readFile(join(LESSON, exercise, "solution.js"), "utf8");
  let sandboxed = Infinity;
  let runs = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    let started = performance.now();
    const report = await gradeSource(engines, { exercise, source, options });
    sandboxed = Math.min(sandboxed, performance.now() - started);
    runs = report.tests.reduce((sum, test) => sum + test.runs, 0);
    if (report.score !== report.maxScore) throw new Error(`${exercise}: the reference solution must pass`);
  }
  const nativeMs = native[exercise]?.ms ?? NaN;
  figures[exercise] = { runs, sandboxedMs: sandboxed, nativeMs };
  console.log(`  ${exercise.padEnd(8)} ${String(runs).padStart(5)} ${fmt(sandboxed)}    ${nativeMs.toFixed(1).padStart(7)} ms   ${ratio(sandboxed, nativeMs)}`);
}

/** Wall seconds and peak resident KiB of a command (GNU time), best wall of `rounds`. */
function timed(args, rounds, env = {}) {
  let best = null;
  for (let round = 0; round < rounds; round += 1) {
    const result = spawnSync("/usr/bin/time", ["-f", "%e %M", ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env } });
    const [seconds, kib] = result.stderr.trim().split("\n").pop().split(" ").map(Number);
    if (best === null || seconds < best.seconds) best = { seconds, kib, status: result.status, stdout: result.stdout };
  }
  return best;
}

// A conventional suite of the lock exercise (Vitest, fake timers, an
// in-memory store, the same number of schedules), beside leaselab's grading
// of the same file: cold CLI process, and warm in-process.
const lockFile = join(LESSON, "lock", "solution.js");
const vitestJson = join(tmpdir(), `leaselab-vitest-${process.pid}.json`);
const vitest = timed(["npx", "vitest", "run", "--root", "bench/conventional", "--reporter=json", `--outputFile=${vitestJson}`], ROUNDS, { LEASELAB_SOLUTION: lockFile, LEASELAB_SEEDS: String(SEEDS) });
const vitestReport = JSON.parse(readFileSync(vitestJson, "utf8"));
rmSync(vitestJson, { force: true });
const vitestTestMs = vitestReport.testResults.reduce((sum, file) => sum + file.assertionResults.reduce((inner, test) => inner + (test.duration ?? 0), 0), 0);
const lockCli = timed(["node", "cli/leaselab.mjs", "grade", lockFile, "--exercise", "lock"], ROUNDS);
console.log(`conventional Vitest suite of lock (${vitestReport.numPassedTests}/${vitestReport.numTotalTests} schedules passed, fake timers, no faults but delays): ${vitest.seconds.toFixed(2)} s wall, ${vitestTestMs.toFixed(0)} ms of tests`);
console.log(`  leaselab grade lock.js (cold process, ${SEEDS} schedules + scenarios): ${lockCli.seconds.toFixed(2)} s wall; Vitest wall / leaselab wall ${ratio(vitest.seconds, lockCli.seconds)}`);
// What any Node CLI of this grader could reach: a cold process that only
// loads the engines (reads, compiles with the baseline compiler one file's
// grading uses, instantiates) and grades nothing.
const floor = timed(["node", "--liftoff-only", "--input-type=module", "-e", 'await (await import("./runner/node/engines.js")).loadNodeEngines()'], ROUNDS);
if (floor.status !== 0) throw new Error(`loading the engines in a cold process exited ${floor.status}`);
console.log(`  the floor for a Node CLI (a cold process that loads the engines and grades nothing): ${floor.seconds.toFixed(2)} s; Vitest wall / floor ${ratio(vitest.seconds, floor.seconds)}`);
console.log(`  leaselab's sandboxed lock suite in-process: ${figures.lock.sandboxedMs.toFixed(0)} ms; Vitest test time / leaselab suite ${ratio(vitestTestMs, figures.lock.sandboxedMs)}`);
// What any JavaScript grader of this simulation could reach: the goal
// of 10× Vitest's test time is only reachable if this ratio is 10× or more.
console.log(`  native Rust (${figures.lock.nativeMs.toFixed(1)} ms): Vitest test time / native ${ratio(vitestTestMs, figures.lock.nativeMs)}`);
const vitestFigures = { wallSeconds: vitest.seconds, testMs: vitestTestMs, cliSeconds: lockCli.seconds, cliFloorSeconds: floor.seconds };

// One full submission (every exercise), cold CLI process; then a class.
const submission = (index) => {
  const dir = mkdtempSync(join(tmpdir(), `leaselab-bench-${index}-`));
  for (const { name, file } of registry.exercises) copyFileSync(join(LESSON, name, "solution.js"), join(dir, file));
  return dir;
};
const one = submission(0);
// As shipped (--wasm-tier auto, which picks V8's baseline compiler alone for
// one submission), and with the optimising compiler too, rounds alternated
// so the ratio holds on a busy machine.
const coldRounds = { auto: [], optimised: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const tier of ["auto", "optimised"]) coldRounds[tier].push(timed(["node", "cli/leaselab.mjs", "grade", one, "--wasm-tier", tier], 1));
}
const coldFigures = (rounds) => {
  if (rounds.some((round) => round.status !== 0)) throw new Error(`leaselab grade of the lesson's solutions exited ${rounds.find((round) => round.status !== 0).status}`);
  return { seconds: Math.min(...rounds.map((round) => round.seconds)), kib: Math.max(...rounds.map((round) => round.kib)) };
};
const cold = coldFigures(coldRounds.auto);
const coldOptimised = coldFigures(coldRounds.optimised);
console.log(`CLI, one full submission (${registry.exercises.length} exercises), cold process, best of ${ROUNDS}: ${cold.seconds.toFixed(2)} s wall, peak resident at most ${(cold.kib / 1024).toFixed(0)} MiB`);
console.log(`  with V8's optimising compiler too (--wasm-tier optimised), alternated: ${coldOptimised.seconds.toFixed(2)} s, at most ${(coldOptimised.kib / 1024).toFixed(0)} MiB`);
const dirs = [one];
for (let index = 1; index < CLASS_SIZE; index += 1) dirs.push(submission(index));
const batch = timed(["node", "cli/leaselab.mjs", "grade", ...dirs], 1);
if (batch.status !== 0) throw new Error(`the batch exited ${batch.status}`);
const perSecond = CLASS_SIZE / batch.seconds;
console.log(`CLI batch: ${CLASS_SIZE} full submissions in ${batch.seconds.toFixed(1)} s on ${availableParallelism()} cores (${perSecond.toFixed(2)} submissions/s; 200 would take ~${(200 / perSecond).toFixed(0)} s), peak resident ${(batch.kib / 1024).toFixed(0)} MiB`);
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
const cliFigures = { coldSeconds: cold.seconds, coldPeakMiB: cold.kib / 1024, coldOptimisedSeconds: coldOptimised.seconds, coldOptimisedPeakMiB: coldOptimised.kib / 1024, batchSize: CLASS_SIZE, batchSeconds: batch.seconds, batchPeakMiB: batch.kib / 1024 };

mkdirSync(join(ROOT, "target", "bench"), { recursive: true });
writeFileSync(join(ROOT, "target", "bench", "node.json"), `${JSON.stringify({ seeds: SEEDS, exercises: figures, vitest: vitestFigures, cli: cliFigures }, null, 2)}\n`);
