// Which of V8's WebAssembly compilers the grading threads run the grader's
// module with, chosen once per CLI process from the size of the job.
//
// V8 first compiles each wasm function with its baseline compiler
// (Liftoff), then recompiles the hot ones with its optimising compiler
// (TurboFan) on background threads: for the grader's module about 480
// functions and over a CPU-second of compiling (QuickJS's interpreter loop
// alone needs 23 MB of compiler memory), which the optimised code's speed
// pays back many times over in a class's batch. One submission does not:
// on a 2-core machine both cores are grading, the compiler takes its CPU
// from them, and the job is over about when the optimised code arrives; the
// baseline code alone finishes sooner, in much less memory. BENCHMARKS.md
// ("An eleventh pass") has the measurements and the crossover.
//
// The choice changes how fast a grading runs, never what it finds: the
// engine's budgets count QuickJS's bytecodes, not time, and wasm computes
// the same results whichever compiler made its code (every file of the
// hostile corpus gets the same report both ways). Only the hard deadline is
// real time: code that spends its time inside QuickJS's built-ins runs up
// to about 3 times as long in baseline code (the corpus's slowest file that
// ends within the deadline took 8 s optimised and 17 s baseline).
import { setFlagsFromString } from "node:v8";

/**
 * The random runs in a whole job up to which the baseline compiler alone is
 * faster. Measured (2 cores, and 1 with `taskset`): while every core grades,
 * both compilers break even at about 2,000 runs, one core or two, since the
 * optimising compiler's CPU comes out of the grading's; one full submission
 * at the default budget is 1,000, a class hundreds of thousands. With a core
 * left idle (`--jobs 1` on 2 cores), the optimising compiler pays from about
 * 500 runs; auto does not count on idle cores, which only `--jobs` below
 * the cores leaves here. Not measured beyond 2 cores.
 */
export const BASELINE_ONLY_RUNS_MAX = 1500;

/** True when a job of `files` exercise files, `seeds` random runs each, is short enough that the optimising compiler would cost more than it saves. */
export function baselineOnlyPays({ files, seeds }) {
  return files > 0 && files * seeds <= BASELINE_ONLY_RUNS_MAX;
}

/** "baseline" or "optimised": what `--wasm-tier option` means for a job graded as `plan` says (grading-plan.js), `seeds` random runs per file. */
export function chooseWasmTier(option, plan, seeds) {
  if (option !== "auto") return option;
  return baselineOnlyPays({ files: plan.files.length, seeds }) ? "baseline" : "optimised";
}

/**
 * Makes every WebAssembly module compiled from now on in this process,
 * grading threads included, use the baseline compiler only. V8's flags are
 * the process's, so this is for the CLI's own process, before its first
 * grading thread starts; it cannot be undone for modules already compiled.
 */
export function useBaselineCompilerOnly() {
  setFlagsFromString("--liftoff-only");
}
