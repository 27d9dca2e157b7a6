// The page's handle on the grading workers: promises for results, a callback
// for progress.
//
// Every grading and replay has a hard deadline, enforced here, outside the
// worker: the sandbox's own limits fire only between bytecodes, so one long
// built-in call in learner code (a pathological `indexOf`) can keep the
// worker busy for minutes, and only terminating the worker ends it. When the
// deadline fires, the worker is terminated, the request gets the learner-
// facing "took too long" verdict, and the next request starts a fresh worker.
//
// Requests go to a worker one at a time; the rest wait here, not in the
// worker's queue. So a deadline counts only the time its own request ran
// (not the time it waited behind another exercise's grading), and
// terminating a worker never loses a request that had not started: those are
// simply sent to the fresh worker.
//
// Lab mode has a worker of its own: a lab run lasts seconds of real time
// against a real etcd, and sharing a worker would let a grading's long
// synchronous stretch freeze the lab's real-time processes, and a grading's
// deadline kill a lab run that did nothing wrong.
import { DEADLINE_MS_MAX, deadlineMessage, gradingDeadlineMs } from "../../../runner/limits.js";

/** A request stopped by its hard deadline; `message` is the learner-facing verdict. */
export class DeadlineError extends Error {
  constructor(message) {
    super(message);
    this.name = "DeadlineError";
  }
}

let nextId = 1;

/** One worker at a time, restarted after a deadline or a crash, and the requests waiting for it. */
function createLane() {
  let worker = null;
  /** The request posted to `worker` and not yet answered. */
  let active = null;
  /** Requests not yet posted, oldest first. */
  const queued = [];

  function startWorker() {
    const own = new Worker(new URL("./grader-worker.js", import.meta.url), { type: "module" });
    // A terminated worker may still have events on their way: only the current one's count.
    own.addEventListener("message", (event) => {
      if (own === worker) onMessage(event.data);
    });
    own.addEventListener("error", (event) => {
      if (own !== worker) return;
      // Handled here: the request that was running gets the reason, so the browser need not report it too.
      event.preventDefault();
      died(`the grader stopped unexpectedly${event.message ? ` (${event.message})` : ""}`);
    });
    own.addEventListener("messageerror", () => {
      if (own === worker) died("the grader sent an answer the page could not read");
    });
    return own;
  }

  function pump() {
    if (active || queued.length === 0) return;
    const job = queued.shift();
    worker ??= startWorker();
    active = job;
    job.timer = setTimeout(() => expired(job), job.deadlineMs);
    try {
      worker.postMessage({ ...job.message, id: job.id });
    } catch (error) {
      // A request that cannot be sent (say, a function among its options) fails alone, at once, and the queue moves on.
      settle(job, () => job.reject(error));
    }
  }

  /** Ends the active request and sends the next one (to the same worker, if it still runs). */
  function settle(job, outcome) {
    clearTimeout(job.timer);
    if (active === job) active = null;
    outcome();
    pump();
  }

  function onMessage(message) {
    const job = active;
    if (!job || message.id !== job.id) return;
    switch (message.type) {
      case "started":
        job.started = message;
        job.onStarted?.();
        return;
      case "progress":
        job.onProgress?.(message.runs);
        return;
      case "log":
        job.onProgress?.(message.line);
        return;
      case "error":
        settle(job, () => job.reject(new Error(message.message)));
        return;
      default:
        settle(job, () => job.resolve(message.report ?? message.replay ?? message.lab));
    }
  }

  /** The worker is gone for good: the running request fails with `reason`; the queued ones go to a fresh worker. */
  function died(reason) {
    stopWorker();
    const job = active;
    if (job) settle(job, () => job.reject(new Error(reason)));
  }

  function expired(job) {
    if (active !== job) return;
    stopWorker();
    settle(job, () => job.onDeadline());
  }

  function stopWorker() {
    worker?.terminate();
    worker = null;
  }

  /**
   * Queues `message` for the worker. If `deadlineMs` passes before the
   * answer, `onDeadline(job)` settles the promise; `job.started` is the
   * worker's "started" message, or null if none came.
   */
  function send(message, { deadlineMs, onStarted, onProgress, onDeadline }) {
    return new Promise((resolve, reject) => {
      const job = { id: nextId++, message, deadlineMs, onStarted, onProgress, resolve, reject, timer: null, started: null };
      job.onDeadline = () => onDeadline(job);
      queued.push(job);
      pump();
    });
  }

  return { send };
}

const grading = createLane();
const lab = createLane();

/**
 * The deadline for a request: `limit`, or the caller's `deadlineMs`, at most
 * `DEADLINE_MS_MAX`. Shorter lets a test reach the "took too long" verdict
 * quickly; longer lets a caller on a loaded machine keep a costly but finite
 * submission (a memory bomb takes seconds a run) from being cut short, so
 * that its verdict is the grader's and not the clock's. Grading still always
 * ends.
 */
function deadlineFor(limit, deadlineMs) {
  if (deadlineMs === undefined) return limit;
  if (typeof deadlineMs !== "number" || !(deadlineMs > 0) || !Number.isFinite(deadlineMs)) {
    throw new RangeError(`deadlineMs must be a positive number of milliseconds, not ${String(deadlineMs)}`);
  }
  return Math.min(deadlineMs, DEADLINE_MS_MAX);
}

/**
 * When the deadline fires before the worker said it started (it was still
 * loading its engines), no learner code ran yet: blaming the submission
 * would be wrong, so the request fails as the grader's own problem.
 */
function notStarted(job) {
  job.reject(new Error(`the grader did not start within ${Math.round(job.deadlineMs / 1000)} s`));
}

/**
 * Grades `source` for `exercise`; resolves to the suite report. If grading
 * outlasts its deadline (`gradingDeadlineMs` of the seeds, or the caller's
 * `deadlineMs`), it resolves to a report with the "took too long" problem,
 * shaped like any report of a submission that could not be run.
 * `onStarted()` when the grader has loaded and the code is about to run;
 * `onProgress(runs)` as runs finish.
 */
export async function gradeInWorker({ exercise, source, options, deadlineMs, onStarted, onProgress }) {
  // The caller names the budget (the page passes the registry's default,
  // `lesson.grading.seeds`), so the deadline is computed from what runs.
  const gradeOptions = { ...options };
  if (!Number.isSafeInteger(gradeOptions.seeds)) throw new TypeError("gradeInWorker needs options.seeds, a whole number: the page passes the grader's default budget");
  const { seeds } = gradeOptions;
  return grading.send(
    { type: "grade", exercise, source, options: gradeOptions },
    {
      deadlineMs: deadlineFor(gradingDeadlineMs(seeds), deadlineMs),
      onStarted,
      onProgress,
      onDeadline: (job) => {
        if (!job.started) return notStarted(job);
        // The same keys, in the same order, as the grader's report for a submission that could not be run (grade.js).
        job.resolve({
          exercise,
          graderVersion: job.started.graderVersion,
          score: 0,
          maxScore: job.started.maxScore,
          problems: [deadlineMessage(job.started.fileName, job.deadlineMs)],
          tests: [],
        });
      },
    },
  );
}

/**
 * Replays one failing run from its token; resolves to `{ caseJson,
 * execution, violation }`. Rejects with a `DeadlineError` (its message the
 * learner-facing verdict) if the run outlasts the deadline of one schedule.
 */
export async function replayInWorker({ exercise, source, token, deadlineMs }) {
  return grading.send(
    { type: "replay", exercise, source, token },
    {
      deadlineMs: deadlineFor(gradingDeadlineMs(1), deadlineMs),
      onDeadline: (job) => (job.started ? job.reject(new DeadlineError(deadlineMessage(job.started.fileName, job.deadlineMs))) : notStarted(job)),
    },
  );
}

/**
 * Lab mode: runs `source` against the etcd at `endpoint`; `onLog(line)` as
 * it happens. A lab run ends itself within seconds; the default grading
 * deadline is only the backstop for code stuck inside one built-in call.
 */
export async function labInWorker({ exercise, source, endpoint, onLog, deadlineMs }) {
  return lab.send(
    { type: "lab", exercise, source, endpoint },
    {
      deadlineMs: deadlineFor(gradingDeadlineMs(), deadlineMs),
      onProgress: onLog,
      onDeadline: (job) =>
        job.started
          ? job.reject(new DeadlineError(`${job.started.fileName} kept running for ${Math.round(job.deadlineMs / 1000)} s without returning, so the lab was stopped. Some call in your code never returned (a loop inside a built-in such as indexOf?)`))
          : notStarted(job),
    },
  );
}
