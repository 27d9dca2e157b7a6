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
// A grading is split across a pool of workers, one per core (at most
// GRADING_WORKERS_MAX): each grades some of the named scenarios and a range
// of the random seeds, and the parts' reports are merged into the report one
// worker would give, byte for byte (runner/merge.js). The deadline covers
// the whole request; when it fires, every worker of the pool is terminated.
// Each test reaches the caller as soon as it is known, before the merge:
// a named scenario when the worker that owns it finishes it, the random
// schedules when their merged verdict can no longer change (`placeTests`);
// and before that, as soon as a worker finds a failing run, the news that
// the test fails (`failingPosition`), while its story is being shrunk.
//
// Lab mode has a worker of its own: a lab run lasts seconds of real time
// against a real etcd, and sharing a worker would let a grading's long
// synchronous stretch freeze the lab's real-time processes, and a grading's
// deadline kill a lab run that did nothing wrong.
//
// The workers get the grader's module compiled, from the page
// (grader-module.js): it is downloaded once, not once per worker. A request
// waits here until the module is in (through a network that fails and comes
// back), and only then goes to the workers, so its deadline never counts a
// download; the workers themselves start at once, so their scripts download
// beside the module.
import { DEADLINE_MS_MAX, deadlineMessage, gradingDeadlineMs } from "../../../runner/limits.js";
import { failingPosition, mergeGrading, PARTS_MAX, placeTests, splitGrading } from "../../../runner/merge.js";
import { GraderNetworkError, graderModule, graderModuleNow } from "./grader-module.js";

/** A request stopped by its hard deadline; `message` is the learner-facing verdict. */
export class DeadlineError extends Error {
  constructor(message) {
    super(message);
    this.name = "DeadlineError";
  }
}

let nextId = 1;

/**
 * Workers for one request at a time, restarted after a deadline or a crash,
 * and the requests waiting for them. A request is one message to one worker,
 * or (a grading split across the lane's `size` workers) one message per
 * worker, answered when every part has answered, with `merge(answers)`.
 */
function createLane(size = 1) {
  /** The workers, by slot; null until a request needs one. */
  const workers = Array.from({ length: size }, () => null);
  /** The request posted to the workers and not yet answered. */
  let active = null;
  /** Requests not yet posted, oldest first. */
  const queued = [];
  /** How many requests were ever sent. */
  let sent = 0;

  /** Workers that have been sent the grader's module (always their first message). */
  const hasModule = new WeakSet();

  /** Sends `worker` the grader's module, once, if it is in. */
  function sendModule(worker) {
    const module = graderModuleNow();
    if (!module || hasModule.has(worker)) return;
    hasModule.add(worker);
    worker.postMessage({ type: "module", module });
  }

  /** Starts the worker for `slot`; it gets the grader's module now or, if it is not in yet, before its first request. */
  function startWorker(slot) {
    const own = new Worker(new URL("./grader-worker.js", import.meta.url), { type: "module" });
    sendModule(own);
    let heard = false;
    // A terminated worker may still have events on their way: only the current ones count.
    own.addEventListener("message", (event) => {
      heard = true;
      if (own === workers[slot]) onMessage(slot, event.data);
    });
    own.addEventListener("error", (event) => {
      if (own !== workers[slot]) return;
      // Handled here: the request that was running gets the reason, so the browser need not report it too.
      event.preventDefault();
      // A worker that failed before saying anything, with no error of its own, never got its script: the network's doing.
      if (!heard && !event.message) died(new GraderNetworkError("the grader's script could not be downloaded"));
      else died(`the grader stopped unexpectedly${event.message ? ` (${event.message})` : ""}`);
    });
    own.addEventListener("messageerror", () => {
      if (own === workers[slot]) died("the grader sent an answer the page could not read");
    });
    return own;
  }

  /** Set while the lane waits for the grader's module before it can post anything. */
  let awaitingModule = false;

  function pump() {
    if (active || queued.length === 0) return;
    if (!graderModuleNow()) {
      // The workers' scripts download meanwhile; the requests wait for the module.
      queued[0].parts.forEach((_, slot) => {
        workers[slot] ??= startWorker(slot);
      });
      if (awaitingModule) return;
      awaitingModule = true;
      // Network failures are retried inside graderModule(); a rejection means no retry can help.
      graderModule().then(
        () => {
          awaitingModule = false;
          pump();
        },
        (error) => {
          awaitingModule = false;
          for (const job of queued.splice(0)) job.reject(error);
        },
      );
      return;
    }
    const job = queued.shift();
    active = job;
    job.timer = setTimeout(() => expired(job), job.deadlineMs);
    job.answers = job.parts.map(() => undefined);
    job.runs = job.parts.map(() => 0);
    try {
      job.parts.forEach((message, slot) => {
        workers[slot] ??= startWorker(slot);
        sendModule(workers[slot]);
        workers[slot].postMessage({ ...message, id: job.id });
      });
    } catch (error) {
      // A request that cannot be sent (say, a function among its options) fails alone, at once, and the queue moves on.
      settle(job, () => job.reject(error));
    }
  }

  /** Ends the active request and sends the next one (to the same workers, if they still run). */
  function settle(job, outcome) {
    clearTimeout(job.timer);
    if (active === job) active = null;
    outcome();
    pump();
  }

  function onMessage(slot, message) {
    const job = active;
    if (!job || message.id !== job.id) return;
    switch (message.type) {
      case "started":
        if (job.started) return;
        job.started = message;
        // Every part announces the same suite; the first to start places the tests of all of them.
        if (message.tests) job.placeTest = placeTests(job.parts.length, message.tests.length);
        job.onStarted?.({ tests: message.tests ?? [] });
        return;
      case "failing":
        if (job.started?.tests) job.onFailing?.(failingPosition(job.parts.length, job.started.tests.length, slot, message.index), message.name);
        return;
      case "test":
        for (const { position, test } of job.placeTest?.(slot, message.index, message.test) ?? []) job.onTest?.(test, position);
        return;
      case "progress":
        job.runs[slot] = message.runs;
        job.onProgress?.(job.runs.reduce((sum, runs) => sum + runs, 0));
        return;
      case "log":
        job.onProgress?.(message.line);
        return;
      case "error":
        // The grader failed mid-call (in the engine: a trap may leave its wasm
        // instance half-way through): like the CLI's threads, a worker whose
        // request did not end normally is not used again.
        died(message.message);
        return;
      default:
        job.answers[slot] = message.report ?? message.replay ?? message.lab ?? message.loaded;
        if (job.answers.every((answer) => answer !== undefined)) settle(job, () => job.resolve(job.merge(job.answers)));
    }
  }

  /** A worker is gone for good: the running request fails with `reason` (text, or an Error); the queued ones go to fresh workers. */
  function died(reason) {
    stopWorkers();
    const job = active;
    if (job) settle(job, () => job.reject(reason instanceof Error ? reason : new Error(reason)));
  }

  function expired(job) {
    if (active !== job) return;
    stopWorkers();
    settle(job, () => job.onDeadline());
  }

  function stopWorkers() {
    workers.forEach((worker, slot) => {
      worker?.terminate();
      workers[slot] = null;
    });
  }

  /**
   * Queues `message` (or `parts`, one message per worker, whose answers
   * `merge` makes one) for the workers. If `deadlineMs` passes before the
   * answer, `onDeadline(job)` settles the promise; `job.started` is a
   * worker's "started" message, or null if none came.
   */
  function send(message, { parts = [message], merge = (answers) => answers[0], deadlineMs, onStarted, onProgress, onTest, onFailing, onDeadline }) {
    sent += 1;
    return new Promise((resolve, reject) => {
      const job = { id: nextId++, parts, merge, deadlineMs, onStarted, onProgress, onTest, onFailing, resolve, reject, timer: null, started: null, placeTest: null };
      job.onDeadline = () => onDeadline(job);
      queued.push(job);
      pump();
    });
  }

  /**
   * Starts the workers and loads their engines now, ahead of a request:
   * only when the lane is idle and has no workers yet (a first use, or
   * after a deadline or a crash ended them). A request made meanwhile
   * waits for the loading, as it would have loaded them itself; one whose
   * loading fails or outlasts `deadlineMs` is forgotten: the workers are
   * ended and the next request starts fresh ones, and meets the problem
   * itself if it is still there.
   */
  function prepare(message, deadlineMs) {
    if (active || queued.length > 0 || workers.some((worker) => worker !== null)) return null;
    return send(message, { parts: workers.map(() => message), merge: () => true, deadlineMs, onDeadline: (job) => job.resolve(false) }).catch(() => false);
  }

  return { send, prepare, sentCount: () => sent, size };
}

/**
 * How many workers share a grading: one per core the browser reports, at
 * most GRADING_WORKERS_MAX (runner/merge.js's PARTS_MAX), one where the
 * browser does not say.
 */
export const GRADING_WORKERS_MAX = PARTS_MAX;
const gradingWorkers = Math.max(1, Math.min(GRADING_WORKERS_MAX, Math.floor(globalThis.navigator?.hardwareConcurrency ?? 1)));

const grading = createLane(gradingWorkers);
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
 * Loads the grading workers' engines before the first "Run tests" asks for
 * them: a learner who starts editing will soon run the tests, and a fresh
 * page's first grading otherwise starts by downloading and compiling them
 * (on a 2-core machine, a first "Run tests" after the focus went to the
 * editor took 0.5–0.8 s instead of 0.7–1.2 s; see BENCHMARKS.md). With
 * `warmUpWith` (`{ exercise, source }`, the exercise's starter), the loaded
 * workers then warm up on it (`WARM_UP`, below); nothing the learner sees
 * is graded. The page calls it when the learner puts the focus in an
 * editor or points at "Run tests"; reading the lesson never loads them.
 */
export function prepareGrading(warmUpWith = null) {
  const loading = grading.prepare({ type: "load" }, gradingDeadlineMs(1));
  if (loading === null) return;
  warmUpProgress = { state: "loading", gradings: 0 };
  const sentSoFar = grading.sentCount();
  loading.then((loaded) => {
    if (loaded && warmUpWith) return warmUp(warmUpWith, sentSoFar);
    warmUpProgress.state = loaded ? "done" : "stopped";
  });
}

/**
 * After loading, the workers grade the exercise's starter a few times at a
 * tiny budget, and throw the reports away. A fresh worker runs its first
 * gradings slowly: the browser has not yet optimised the runner's code or
 * QuickJS's and the simulation's hottest functions. Warmed while the learner
 * types, the first "Run tests" 3 s after the focus went to an editor took
 * 0.55–0.7 of the time (lock 445–469 → 247–313 ms, lease 653–655 →
 * 428–464 ms on a 2-core machine; later runs unchanged: BENCHMARKS.md). Six
 * warm-up gradings instead of three were no better. Each warm-up
 * grading is short (about 0.1 s in a warm worker, since the budget is one
 * seed and a few shrinking runs), and none starts once the learner asked
 * for anything: a "Run tests" waits at most for the one under way. The
 * starter is the lesson's own code, so it always ends.
 */
export const WARM_UP = Object.freeze({ gradings: 3, options: Object.freeze({ seeds: 1, shrinkAttemptsMax: 4 }) });

/** Where the warm-up is: `{ state: "none" | "loading" | "warming" | "done" | "stopped", gradings }` (gradings finished). */
let warmUpProgress = { state: "none", gradings: 0 };

/** The warm-up's progress (a copy), for tests and the curious: `window.leaselab.warmUp()`. */
export function warmUpState() {
  return { ...warmUpProgress };
}

/** Warms the loaded workers up; `sentByUs` is how many requests the lane had when the loading was sent. */
async function warmUp({ exercise, source }, sentByUs) {
  const progress = warmUpProgress;
  progress.state = "warming";
  for (let round = 0; round < WARM_UP.gradings; round += 1) {
    // A learner's request came: it runs (or ran) in workers already loaded, and warms them itself.
    if (grading.sentCount() !== sentByUs) {
      progress.state = "stopped";
      return;
    }
    sentByUs += 1;
    const message = { type: "grade", exercise, source, options: { ...WARM_UP.options } };
    const parts = splitGrading(message.options, grading.size).map((options) => ({ ...message, options }));
    const finished = await grading
      .send(message, { parts, merge: () => true, deadlineMs: gradingDeadlineMs(WARM_UP.options.seeds), onDeadline: (job) => job.resolve(false) })
      .catch(() => false);
    if (!finished) {
      progress.state = "stopped";
      return;
    }
    progress.gradings += 1;
  }
  progress.state = "done";
}

/**
 * Grades `source` for `exercise`; resolves to the suite report. If grading
 * outlasts its deadline (`gradingDeadlineMs` of the seeds, or the caller's
 * `deadlineMs`), it resolves to a report with the "took too long" problem,
 * shaped like any report of a submission that could not be run.
 * `onStarted({ tests })` when the grader has loaded and the code is about to
 * run (`tests`: the suite's test names, in order); `onProgress(runs)` as runs
 * finish; `onTest(test, position)` with each test as soon as it is known, the
 * very entry the report will hold at `position` (a worker pool finishes its
 * parts independently, so positions may arrive out of order);
 * `onFailing(position, name)` as soon as the test at `position` is known to
 * fail, before its story is shrunk (it may come after that test's `onTest`
 * when another worker found the failure first: ignore it then).
 */
export async function gradeInWorker({ exercise, source, options, deadlineMs, onStarted, onProgress, onTest, onFailing }) {
  // The caller names the budget (the page passes the registry's default,
  // `lesson.grading.seeds`), so the deadline is computed from what runs.
  const gradeOptions = { ...options };
  if (!Number.isSafeInteger(gradeOptions.seeds)) throw new TypeError("gradeInWorker needs options.seeds, a whole number: the page passes the grader's default budget");
  const { seeds } = gradeOptions;
  const message = { type: "grade", exercise, source, options: gradeOptions };
  // Split across the lane's workers: each grades some scenarios and a range
  // of the seeds; the merged report is the one a single worker would give.
  const split = grading.size > 1 ? { parts: splitGrading(gradeOptions, grading.size).map((options) => ({ ...message, options })), merge: mergeGrading } : {};
  return grading.send(
    message,
    {
      ...split,
      deadlineMs: deadlineFor(gradingDeadlineMs(seeds), deadlineMs),
      onStarted,
      onProgress,
      onTest,
      onFailing,
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
