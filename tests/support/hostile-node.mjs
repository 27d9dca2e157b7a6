// Grading hostile files in Node without trusting them: every grading runs
// in a worker thread (or, for the hangs only an outside deadline can stop,
// in the CLI as a child process) that the test terminates when its hard
// timeout passes, so a hang fails one test instead of stalling the suite,
// and a crash of the runner is caught and reported as such.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKER_URL = new URL("./hostile-worker.mjs", import.meta.url);

/** Time allowed for a thread to load the engines before its first job. */
const LOAD_MS = 120_000;

/**
 * One grading thread (one engines instance) that grades jobs (`{ id,
 * exercise, options, path+generate | source, timeoutMs, replay }`) one at a
 * time, each under its own hard timeout. `grade(job)` resolves to the job's
 * outcome: `{ kind: "report", report, reportChars, ms, replays, stderr }`
 * (replays: the failing tests whose replay differed; stderr: what the
 * engines printed while it was graded), `{ kind: "crash", error, ms,
 * stderr }` (gradeSource threw), `{ kind: "timeout", ms, stderr }` (the
 * thread was terminated: a hang) or `{ kind: "died", error, stderr }` (the
 * thread itself failed). After a timeout the thread is gone (`alive` is
 * false) and every later job is `{ kind: "not-run" }`; a thread that died
 * while no job was being graded (or never loaded) gives later jobs its
 * death instead.
 */
export class GradingThread {
  constructor({ heapMb = 1536 } = {}) {
    this.worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: heapMb }, stderr: true });
    this.alive = true;
    /** Ended on purpose (`close`): its exit is not a death. */
    this.closed = false;
    /** What the thread printed that no job has claimed yet (a dying thread's last words). */
    this.stderr = "";
    this.worker.stderr.on("data", (chunk) => {
      this.stderr += chunk;
    });
    /** Why the thread is gone, when it went before or between jobs: the outcome of every job after. */
    this.death = null;
    this.ready = new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.death = { kind: "died", error: `the thread did not load the engines in ${LOAD_MS / 1000} s` };
        this.close();
        resolve();
      }, LOAD_MS);
      this.worker.once("message", () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    /** The job being graded: `{ id, timeoutMs, resolve, startedAt, timer }`, or null. */
    this.current = null;
    this.crash = null;
    this.worker.on("message", (message) => this.#receive(message));
    this.worker.on("error", (error) => {
      this.crash = error;
    });
    this.worker.on("exit", () => {
      this.alive = false;
      const died = { kind: "died", error: String(this.crash?.stack ?? this.crash ?? "the thread exited").slice(0, 2000) };
      if (this.current !== null) this.#end(died);
      else if (!this.closed) this.death ??= died;
    });
    /** Jobs are graded one after another. */
    this.queue = Promise.resolve();
  }

  grade(job) {
    const result = this.queue.then(async () => {
      await this.ready;
      if (!this.alive) return this.death ?? { kind: "not-run" };
      return new Promise((resolve) => {
        this.current = { id: job.id, timeoutMs: job.timeoutMs, resolve, startedAt: performance.now(), timer: null };
        const { timeoutMs, ...sent } = job;
        this.worker.postMessage({ type: "job", job: sent });
      });
    });
    this.queue = result;
    return result;
  }

  /** Ends the thread (its work is done). */
  close() {
    this.alive = false;
    this.closed = true;
    return this.worker.terminate();
  }

  #receive(message) {
    const current = this.current;
    if (current === null || message.id !== current.id) return;
    if (message.type === "start") {
      current.startedAt = performance.now();
      current.timer = setTimeout(() => {
        this.#end({ kind: "timeout", ms: performance.now() - current.startedAt });
        this.close();
      }, current.timeoutMs);
      return;
    }
    if (message.type === "report") {
      this.#end({ kind: "report", report: JSON.parse(message.reportJson), reportChars: message.reportJson.length, ms: message.ms, replays: message.replays, stderr: message.stderr });
    } else if (message.type === "crash") {
      this.#end({ kind: "crash", error: message.error, ms: message.ms, stderr: message.stderr });
    }
  }

  /** Settles the current job (if any) with `outcome`. */
  #end(outcome) {
    const current = this.current;
    if (current === null) return;
    this.current = null;
    clearTimeout(current.timer);
    current.resolve({ ...outcome, stderr: (outcome.stderr ?? "") + this.stderr });
    this.stderr = "";
  }
}

/**
 * Grades `jobs` in order in one fresh thread (one engines instance), as a
 * class's batch is graded. Resolves to a Map id → outcome (see
 * `GradingThread`); a job after one that hung or died is `{ kind: "not-run" }`.
 */
export async function gradeInThread(jobs, options = {}) {
  const thread = new GradingThread(options);
  const outcomes = new Map();
  for (const job of jobs) outcomes.set(job.id, await thread.grade(job));
  await thread.close();
  return outcomes;
}

/**
 * A lane: jobs graded one after another in one thread, as the CLI grades a
 * class, except that a thread that hung, died or crashed is replaced by a
 * fresh one for the next job (so one failure costs only its own file), as
 * the CLI replaces a thread whose grading did not end normally.
 */
export class GradingLane {
  constructor(options = {}) {
    this.options = options;
    this.thread = null;
  }

  async grade(job) {
    if (this.thread === null || !this.thread.alive) this.thread = new GradingThread(this.options);
    const outcome = await this.thread.grade(job);
    if (outcome.kind === "crash") {
      await this.thread.close();
      this.thread = null;
    }
    return outcome;
  }

  close() {
    return this.thread?.close();
  }
}

/** Does the CLI have the hard deadline (`--timeout`) the hangs need? */
export function cliHasTimeout() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["cli/leaselab.mjs", "--help"], { cwd: ROOT });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.on("close", () => resolve(/--timeout/.test(text)));
  });
}

/**
 * Grades one file through the CLI (`--format json --timeout S`), killing
 * the CLI if it outlives `hardMs`. Resolves to `{ kind: "report", report,
 * reportChars, ms }`, `{ kind: "timeout", ms }` or `{ kind: "crash",
 * error, ms }` (no JSON report: exit status and stderr).
 */
export function gradeViaCli(entry, { timeoutSeconds = 10, hardMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const args = ["cli/leaselab.mjs", "grade", entry.path, "--exercise", entry.exercise, "--format", "json", "--seeds", String(entry.seeds), "--timeout", String(timeoutSeconds)];
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, hardMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (killed) return resolve({ kind: "timeout", ms });
      try {
        const report = JSON.parse(stdout).results[0].report;
        resolve({ kind: "report", report, reportChars: JSON.stringify(report).length, ms, exitCode: code });
      } catch {
        resolve({ kind: "crash", error: `exit ${code}: ${(stderr || stdout).slice(0, 1500)}`, ms });
      }
    });
  });
}
