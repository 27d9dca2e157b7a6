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
 * Grades `jobs` (`{ id, exercise, options, path+generate | source, timeoutMs,
 * replay }`) in order, in one fresh thread (one engines instance). Resolves
 * to a Map id → outcome: `{ kind: "report", report, reportChars, ms,
 * replays }` (replays: the failing tests whose replay differed), `{ kind:
 * "crash", error, ms }` (gradeSource threw), `{ kind: "timeout", ms }` (the
 * thread was terminated: a hang), `{ kind: "died", error }` (the thread
 * itself failed) or `{ kind: "not-run" }` (a job before it hung or died).
 * The Map's `stderr` is everything the thread printed.
 */
export function gradeInThread(jobs, { heapMb = 1536 } = {}) {
  return new Promise((resolve) => {
    const outcomes = new Map();
    const worker = new Worker(WORKER_URL, { workerData: { jobs: jobs.map(({ timeoutMs, ...job }) => job) }, resourceLimits: { maxOldGenerationSizeMb: heapMb }, stderr: true });
    // What the engines print (QuickJS prints its aborts there), for the whole thread.
    let stderr = "";
    worker.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const stderrEnded = new Promise((resolve) => worker.stderr.on("end", resolve));
    let current = null;
    let startedAt = 0;
    let timer = setTimeout(() => expire(), LOAD_MS);
    let crash = null;
    const expire = () => {
      if (current !== null) outcomes.set(current, { kind: "timeout", ms: performance.now() - startedAt });
      worker.terminate();
    };
    worker.on("message", (message) => {
      clearTimeout(timer);
      if (message.type === "start") {
        current = message.id;
        startedAt = performance.now();
        timer = setTimeout(expire, jobs.find((job) => job.id === message.id).timeoutMs);
        return;
      }
      if (message.type === "report") {
        const report = JSON.parse(message.reportJson);
        outcomes.set(message.id, { kind: "report", report, reportChars: message.reportJson.length, ms: message.ms, replays: message.replays });
      } else if (message.type === "crash") {
        outcomes.set(message.id, { kind: "crash", error: message.error, ms: message.ms });
      }
      current = null;
    });
    worker.on("error", (error) => {
      crash = error;
    });
    worker.on("exit", () => {
      clearTimeout(timer);
      if (current !== null && !outcomes.has(current)) outcomes.set(current, { kind: "died", error: String(crash?.stack ?? crash ?? "the thread exited").slice(0, 2000) });
      for (const job of jobs) if (!outcomes.has(job.id)) outcomes.set(job.id, { kind: "not-run" });
      // The last of stderr may trail the exit; a terminated thread's stream may never end.
      Promise.race([stderrEnded, new Promise((done) => setTimeout(done, 1_000))]).then(() => {
        outcomes.stderr = stderr;
        resolve(outcomes);
      });
    });
    // No jobs left: the thread's work is done (it keeps no handles open, but end it regardless).
    worker.on("message", (message) => {
      if ((message.type === "report" || message.type === "crash") && outcomes.size === jobs.length) worker.terminate();
    });
  });
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
