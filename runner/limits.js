// The limits a submission is graded under, in one place: the page's worker,
// the CLI and the tests all read them from here.
//
// Inside the sandbox, the step budget, the job budget, the memory cap and the
// stack cap end a run with a named verdict (sandbox.js). They fire only
// between bytecodes, so one long built-in call (a pathological `indexOf`, a
// huge BigInt's `toString`) can outlast them: the hard deadline below is
// enforced outside the VM, by terminating the thread that grades (the CLI's
// worker thread, the page's Web Worker). It never decides the verdict of a
// well-behaved submission, which finishes in a small fraction of it.

/** The largest learner source accepted, in bytes of UTF-8 (a solution is a few KB). */
export const SOURCE_BYTES_MAX = 256 * 1024;

/** The most random schedules one grading may ask for (`--seeds`, the page's options). */
export const SEEDS_MAX = 10_000;

/**
 * The hard deadline for grading one exercise file of a submission, in
 * milliseconds of real time: generous (a passing lease suite takes well under
 * a second per 100 schedules on a 2-core machine), growing with the number
 * of schedules.
 */
export function gradingDeadlineMs(seeds = 100) {
  return 20_000 + 200 * Math.min(Math.max(seeds, 1), SEEDS_MAX);
}

/**
 * The longest hard deadline a caller may ask for (`deadlineMs` of the page's
 * `grade()`): a host on a slow or busy machine, or a test whose subject is a
 * verdict rather than the deadline, may give grading more time than
 * `gradingDeadlineMs`, but never unbounded time: grading always ends.
 */
export const DEADLINE_MS_MAX = 10 * 60_000;

/** The learner-facing verdict when the hard deadline fires. */
export function deadlineMessage(fileName, deadlineMs) {
  return `${fileName} took too long: grading it was stopped after ${Math.round(deadlineMs / 1000)} s of real time. Some call in your code never returned (a loop inside a built-in such as indexOf, repeat or a huge number's toString?)`;
}

/** A source over the cap never reaches the VM (copying 200 MB into a 32 MiB engine fails in raw wasm errors). */
export function sourceSizeProblem(source, fileName) {
  const bytes = new TextEncoder().encode(source).length;
  if (bytes <= SOURCE_BYTES_MAX) return null;
  return `${fileName} is ${formatBytes(bytes)}; a solution may be at most ${formatBytes(SOURCE_BYTES_MAX)} (a solution is a few KB: is this the right file?)`;
}

function formatBytes(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
