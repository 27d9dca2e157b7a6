// Grading submissions as a set of independent jobs: one job per exercise
// file, run by a small pool of grading threads, results in input order
// whatever order they finish in.
//
// A job is one file rather than one submission because the deadline is per
// file (gradingDeadlineMs covers one suite), and because a file that hangs
// or crashes should cost its learner that exercise only: their other files
// are graded as usual. A job that does not finish becomes that file's error
// report; it never stops the batch. Every finished report is the one the
// file would get graded alone (each grading starts from fresh QuickJS
// instances, and a thread that failed is replaced, not reused).
import { gradingDeadlineMs } from "../runner/limits.js";
import { registry } from "./registry.js";
import { GradingThread } from "./grading-thread.js";

/**
 * `[{ name, results: [{ exercise, path, report }] }]`, one per submission.
 * `options`: `{ firstSeed, seeds, deadlineMs }` (the deadline defaults to
 * gradingDeadlineMs(seeds)). As grading goes: `onTest(s, f, test)` when file
 * `f` of submission `s` finished a test, `onFile(s, f, report)` when that
 * file's report is final (a refused file's as soon as the grader is up),
 * `onDone(graded)` as each submission completes. Rejects only if the grader
 * itself cannot start (the engines do not load).
 */
export async function gradeInParallel(submissions, options, jobs, { onDone, onTest, onFile } = {}) {
  const { firstSeed, seeds } = options;
  const deadlineMs = options.deadlineMs ?? gradingDeadlineMs(seeds);
  const reports = submissions.map((submission) => submission.files.map(() => null));
  // Refused files (submissions.js) are not graded; they get their error report at the end.
  const queue = [];
  submissions.forEach((submission, s) => {
    submission.files.forEach((file, f) => {
      if (!file.refused) queue.push({ s, f, file });
    });
  });
  const unfinished = submissions.map((submission) => submission.files.filter((file) => !file.refused).length);

  let maxScores = null;
  const graded = (s) => ({
    name: submissions[s].name,
    results: submissions[s].files.map((file, f) => ({
      exercise: file.exercise,
      path: file.path,
      report: reports[s][f] ?? errorReport(file.exercise, maxScores[file.exercise], file.refused),
    })),
  });

  const live = new Set();
  const startThread = async () => {
    const thread = await GradingThread.start();
    live.add(thread);
    if (maxScores === null) {
      maxScores = thread.maxScores;
      submissions.forEach((submission, s) => {
        submission.files.forEach((file, f) => {
          if (file.refused) onFile?.(s, f, graded(s).results[f].report);
        });
      });
    }
    return thread;
  };
  const retire = (thread) => {
    live.delete(thread);
    return thread.stop();
  };

  let next = 0;
  let fatal = null;
  const slot = async () => {
    let thread = null;
    try {
      thread = await startThread();
      while (fatal === null && next < queue.length) {
        const { s, f, file } = queue[next++];
        // A thread that died while idle is replaced before it can be blamed on this file.
        if (!thread.alive) {
          await retire(thread);
          thread = await startThread();
        }
        const outcome = await thread.grade(file, { firstSeed, seeds }, deadlineMs, onTest && ((test) => onTest(s, f, test)));
        reports[s][f] = outcome.report ?? errorReport(file.exercise, thread.maxScores[file.exercise], outcome.problem);
        onFile?.(s, f, reports[s][f]);
        if (!outcome.report) {
          await retire(thread);
          thread = null;
          if (next < queue.length) thread = await startThread();
        }
        unfinished[s] -= 1;
        if (unfinished[s] === 0) onDone?.(graded(s));
      }
    } catch (error) {
      // The grader cannot start a thread: nothing more can be graded, so stop the others too.
      fatal ??= error;
      await Promise.all([...live].map(retire));
    } finally {
      if (thread) await retire(thread);
    }
  };

  await Promise.all(Array.from({ length: gradingThreads(jobs, queue.length) }, slot));
  if (fatal) throw fatal;
  submissions.forEach((submission, s) => {
    if (submission.files.every((file) => file.refused)) onDone?.(graded(s));
  });
  return submissions.map((_, s) => graded(s));
}

/**
 * How many grading threads a job of `files` files (refused ones not
 * counted) starts with `jobs` allowed: at least one, even if every file was
 * refused, because a thread knows the maximum scores.
 */
export function gradingThreads(jobs, files) {
  return Math.max(1, Math.min(jobs, files));
}

/**
 * The report of a file that was refused, ran out of time or memory, or broke
 * the grader: the shape the runner gives a file that could not be run (no
 * tests, one problem), so every format shows it as an error scoring 0. Made
 * here, in the main thread, which has the registry already; the grading
 * threads never need it.
 */
function errorReport(exercise, maxScore, problem) {
  return { exercise, graderVersion: registry.graderVersion, score: 0, maxScore, problems: [problem], tests: [] };
}
