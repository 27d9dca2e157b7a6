// Which of V8's WebAssembly compilers the grading threads run the grader's
// module with, chosen once per CLI process from the size of the job.
//
// V8 first compiles each wasm function with its baseline compiler
// (Liftoff), then recompiles the hot ones with its optimising compiler
// (TurboFan) on background threads. For the grader's module that is about
// 480 functions and 1.2 CPU-s of compiling (QuickJS's interpreter loop alone
// needs 23 MB of compiler memory), and the optimised code runs a warm
// grading about 1.6 times as fast as the baseline code. A class's batch
// earns that back many times over. One submission does not: on a 2-core
// machine both cores are grading, so the compiler takes its CPU from them,
// and the job is over about when the optimised code arrives. Measured
// (BENCHMARKS.md, "An eleventh pass", 8 runs alternated): one full
// submission cold 0.80 s and 134 MiB with both compilers, 0.65 s and 93 MiB
// with the baseline alone; two submissions take the same time either way;
// six take 2.1 s with both and 2.9 s with the baseline alone.
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
 * The random runs per grading thread up to which the baseline compiler
 * alone is faster. Measured on 2 cores, the crossover lies between about
 * 400 runs per thread (one thread, so a core is free for the optimising
 * compiler; lease's runs are the costly ones) and 1,000 (every core
 * grading): one full submission at the default budget is about 500.
 */
export const BASELINE_ONLY_RUNS_PER_THREAD = 600;

/**
 * True when a job of `files` exercise files, `seeds` random runs each, on
 * `threads` grading threads is short enough that the optimising compiler
 * would cost more than it saves.
 */
export function baselineOnlyPays({ files, seeds, threads }) {
  if (files === 0 || threads === 0) return false;
  return (files * seeds) / threads <= BASELINE_ONLY_RUNS_PER_THREAD;
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
