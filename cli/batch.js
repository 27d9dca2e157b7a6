// Grading submissions as a set of independent jobs: one job per exercise
// file (or per part of one, when there are fewer files than threads), run by
// a small pool of grading threads, results in input order whatever order
// they finish in.
//
// A job is one file rather than one submission because the deadline is per
// job (gradingDeadlineMs covers one suite), and because a file that hangs
// or crashes should cost its learner that exercise only: their other files
// are graded as usual. A job that does not finish becomes that file's error
// report; it never stops the batch. Every finished report is the one the
// file would get graded alone (each grading starts from fresh QuickJS
// instances, and a thread that failed is replaced, not reused).
import { gradingDeadlineMs } from "../runner/limits.js";
import { registry } from "./registry.js";
import { GradingThread } from "./grading-thread.js";
import { mergeGrading, placeTests, splitGrading } from "../runner/merge.js";
import { ungradedReason } from "./submissions.js";

/**
 * `[{ name, results: [{ exercise, path, missing?, report }] }]`, one per submission,
 * graded as `plan` says (grading-plan.js: which files, in how many parts, on
 * how many threads). `options`: `{ firstSeed, seeds, deadlineMs,
 * scoresOnly }` (the deadline defaults to gradingDeadlineMs(seeds);
 * `scoresOnly`: each report is kept without its tests' counterexamples and
 * timelines once its file is final, for a batch that shows only scores, so
 * the memory a class holds does not grow with how much its failures say). As grading goes: `onTest(s, f, test)` when file
 * `f` of submission `s` finished a test (in the report's order), `onFile(s,
 * f, report)` when that file's report is final (a refused file's as soon as
 * the grader is up), `onDone(graded)` as each submission completes. Rejects
 * only if the grader itself cannot start (the engines do not load).
 *
 * When there are fewer files than threads allowed, the plan splits each
 * file's grading into parts (runner/merge.js, as the page splits it between
 * its workers), so the other cores are not idle; the merged report is the
 * one the file gets in one piece, byte for byte.
 */
export async function gradeInParallel(submissions, plan, options, { onDone, onTest, onFile } = {}) {
  const { firstSeed, seeds } = options;
  const deadlineMs = options.deadlineMs ?? gradingDeadlineMs(seeds);
  const reports = submissions.map((submission) => submission.files.map(() => null));
  // When and how long each file was graded (JUnit's time and timestamp): kept beside the report, which stays the grader's, byte for byte.
  const timings = submissions.map((submission) => submission.files.map(() => null));
  // Refused and missing files (submissions.js) are not graded; they get their error report at the end.
  const { files, parts, threads } = plan;
  const requests = parts === 1 ? [{ firstSeed, seeds }] : splitGrading({ firstSeed, seeds }, parts);
  // One job per part of each file: the files in order, each file's parts together.
  const queue = files.flatMap((one) => {
    // `grading`: the threads grading its parts now, stopped if another part fails.
    const file = { ...one, partReports: requests.map(() => null), partTimings: requests.map(() => null), grading: new Set(), startedAt: null };
    if (onTest) {
      file.order = inOrder((test) => onTest(one.s, one.f, test));
      file.place = placeTests(parts, registry.exercise(one.file.exercise).tests.length);
    }
    return requests.map((request, part) => ({ file, part, request }));
  });
  const unfinished = submissions.map((submission) => submission.files.filter((file) => ungradedReason(file) === null).length);

  let maxScores = null;
  const graded = (s) => ({
    name: submissions[s].name,
    results: submissions[s].files.map((file, f) => ({
      exercise: file.exercise,
      path: file.path,
      // A file --require asks for and the submission lacks: `path` is where it should have been.
      ...(file.missing ? { missing: true } : {}),
      report: reports[s][f] ?? errorReport(file.exercise, maxScores[file.exercise], ungradedReason(file)),
      ...(timings[s][f] ? { timing: timings[s][f] } : {}),
    })),
  });
  /** A file's report is final, once: a part that finishes after another part of its file failed is dropped. */
  const settle = (file, report) => {
    const { s, f } = file;
    if (reports[s][f] !== null) return;
    // A file graded in one part has each test's time; a split file only its own.
    const single = file.partTimings?.length === 1 ? file.partTimings[0] : null;
    timings[s][f] = { startedAt: file.startedAt ?? Date.now(), seconds: (Date.now() - (file.startedAt ?? Date.now())) / 1000, testSeconds: single?.testMs.map((ms) => ms / 1000) ?? null };
    // The parts' reports are not needed once the file's is known; the queue still holds the file.
    file.partReports = null;
    file.partTimings = null;
    reports[s][f] = options.scoresOnly ? withoutStories(report) : report;
    onFile?.(s, f, report);
    unfinished[s] -= 1;
    if (unfinished[s] === 0) onDone?.(graded(s));
  };
  /** Part `part` of `file` finished a test: the tests of the whole file this makes known, handed on in order. */
  const handOver = (file, part) => {
    if (!file.place) return null;
    let index = 0;
    return (test) => {
      const placed = file.place(part, index, test);
      index += 1;
      if (reports[file.s][file.f] !== null) return;
      for (const { position, test: known } of placed) file.order(position, known);
    };
  };

  const live = new Set();
  const startThread = async () => {
    const thread = await GradingThread.start();
    live.add(thread);
    if (maxScores === null) {
      maxScores = thread.maxScores;
      submissions.forEach((submission, s) => {
        submission.files.forEach((file, f) => {
          if (ungradedReason(file) !== null) onFile?.(s, f, graded(s).results[f].report);
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
        const { file, part, request } = queue[next++];
        // A thread that died while idle is replaced before it can be blamed on this file.
        if (!thread.alive) {
          await retire(thread);
          thread = await startThread();
        }
        file.grading.add(thread);
        file.startedAt ??= Date.now();
        const outcome = await thread.grade(file.file, request, deadlineMs, handOver(file, part));
        file.grading.delete(thread);
        if (outcome.report) {
          // A part that finishes after its file was settled (another part failed) is dropped.
          if (file.partReports !== null) {
            file.partReports[part] = outcome.report;
            file.partTimings[part] = outcome.timing ?? null;
            if (file.partReports.every((report) => report !== null)) settle(file, mergeGrading(file.partReports));
          }
        } else {
          settle(file, errorReport(file.file.exercise, thread.maxScores[file.file.exercise], outcome.problem));
          // The file's verdict is known: its other parts would only be dropped.
          for (const sibling of file.grading) sibling.stop();
          await retire(thread);
          thread = null;
          if (next < queue.length) thread = await startThread();
        }
      }
    } catch (error) {
      // The grader cannot start a thread: nothing more can be graded, so stop the others too.
      fatal ??= error;
      await Promise.all([...live].map(retire));
    } finally {
      if (thread) await retire(thread);
    }
  };

  await Promise.all(Array.from({ length: threads }, slot));
  if (fatal) throw fatal;
  submissions.forEach((submission, s) => {
    if (submission.files.every((file) => ungradedReason(file) !== null)) onDone?.(graded(s));
  });
  return submissions.map((_, s) => graded(s));
}

/** A report with only what a table of scores and a class report's counts need: each test's name, verdict, score, message and the rule it broke. */
function withoutStories(report) {
  return {
    ...report,
    tests: report.tests.map(({ counterexample, timeline, ...test }) => (counterexample?.violation ? { ...test, rule: counterexample.violation.invariant } : test)),
  };
}

/** Calls `emit(item)` for the items given at positions 0, 1, 2, … in that order, whatever order they are given in. */
function inOrder(emit) {
  const waiting = new Map();
  let next = 0;
  return (position, item) => {
    waiting.set(position, item);
    while (waiting.has(next)) {
      emit(waiting.get(next));
      waiting.delete(next);
      next += 1;
    }
  };
}

/**
 * The report of a file that was refused or is missing, ran out of time or
 * memory, or broke the grader: the shape the runner gives a file that could
 * not be run (no tests, one problem), so every format shows it as an error
 * scoring 0. Made here, in the main thread, which has the registry already;
 * the grading threads never need it.
 */
function errorReport(exercise, maxScore, problem) {
  return { exercise, graderVersion: registry.graderVersion, score: 0, maxScore, problems: [problem], tests: [] };
}
