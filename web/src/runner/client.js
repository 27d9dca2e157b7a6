// The page's handle on the grading worker: promises for results, a callback
// for progress, and one worker for the whole page, started on first use.

let worker = null;
let nextId = 1;
const waiting = new Map();

function ensureWorker() {
  if (worker) return worker;
  worker = new Worker(new URL("./grader-worker.js", import.meta.url), { type: "module" });
  worker.addEventListener("message", (event) => {
    const message = event.data;
    const entry = waiting.get(message.id);
    if (!entry) return;
    if (message.type === "progress") {
      entry.onProgress?.(message.runs);
      return;
    }
    if (message.type === "log") {
      entry.onProgress?.(message.line);
      return;
    }
    waiting.delete(message.id);
    if (message.type === "error") entry.reject(new Error(message.message));
    else entry.resolve(message.report ?? message.replay ?? message.lab);
  });
  worker.addEventListener("error", (event) => {
    for (const entry of waiting.values()) entry.reject(new Error(`the grader stopped: ${event.message ?? "unknown error"}`));
    waiting.clear();
    worker = null;
  });
  return worker;
}

function send(request, onProgress) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, onProgress });
    ensureWorker().postMessage({ ...request, id });
  });
}

/** Grades `source` for `exercise`; resolves to the suite report. */
export function gradeInWorker({ exercise, source, options, onProgress }) {
  return send({ type: "grade", exercise, source, options }, onProgress);
}

/** Replays one failing run from its token; resolves to `{ caseJson, execution, violation, timeline }`. */
export function replayInWorker({ exercise, source, token }) {
  return send({ type: "replay", exercise, source, token });
}

/** Lab mode: runs `source` against the etcd at `endpoint`; `onLog(line)` as it happens. */
export function labInWorker({ exercise, source, endpoint, onLog }) {
  return send({ type: "lab", exercise, source, endpoint }, onLog);
}
