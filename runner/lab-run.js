// Lab mode: the learner's lock, lease or election code against a real etcd,
// in real time. The engine runs the code (the same sandbox and harness as
// grading, `LabRun` in crates/engine); only the host differs: instead of
// the simulation deciding when each call completes, this sends the calls
// to etcd (etcd-gateway.js) and hands each reply back when etcd answers,
// `sleep` is a real timer and `now()` the real clock. Nothing is graded:
// the learner watches their code take, hold and release a real lock, lead
// and renew, or queue for leadership.
import { createEtcdGateway } from "./etcd-gateway.js";
import { registryOf } from "./registry.js";

/**
 * Runs `source` (an exercise whose registry entry has a `labRun`) against
 * etcd at `endpoint`. `onLog` receives `{ atMs, who, text }` lines as
 * things happen. Resolves to `{ stoppedBecause }` when every process is
 * done or the lab's time is up.
 */
export async function runLab(engines, { exercise, source, endpoint, onLog, fetch: fetchImpl }) {
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  const lab = spec.labRun;
  if (!lab) {
    const labbed = registry.exercises.filter((entry) => entry.labRun).map((entry) => entry.name);
    throw new Error(`lab mode runs the ${labbed.join(" and ")} exercises, not ${exercise}`);
  }
  const gateway = createEtcdGateway(endpoint, fetchImpl ? { fetch: fetchImpl } : {});
  // Fail early, with the reason, if etcd cannot be reached.
  await gateway.get("leaselab/lab-probe");

  const startedAt = performance.now();
  const now = () => Math.round(performance.now() - startedAt);
  const log = (who, text) => onLog?.({ atMs: now(), who, text });
  const aborts = new Set();
  const timers = new Set();
  const finished = new Set();
  let stoppedBecause = null;
  /** A trap in the engine (its module is then left mid-call): rethrown at the end, so the host replaces it. */
  let trapped = null;
  let settle;
  const done = new Promise((resolve) => {
    settle = resolve;
  });
  const stop = (reason) => {
    if (stoppedBecause) return;
    stoppedBecause = reason;
    for (const controller of aborts) controller.abort();
    for (const timer of timers) clearTimeout(timer);
    settle({ stoppedBecause });
  };

  const perform = async (call) => {
    switch (call.op) {
      case "get":
        return gateway.get(call.key);
      case "cas":
        return gateway.compareAndSwap(call.key, call.nextValue, call.currentValue ?? null, call.version ?? null, call.ttlMs ?? null);
      case "delete":
        return gateway.delete(call.key, call.version ?? null);
      case "list":
        return gateway.list(call.prefix);
      case "watch": {
        const controller = new AbortController();
        aborts.add(controller);
        try {
          return await gateway.watch(call.key, call.afterVersion, controller.signal);
        } finally {
          aborts.delete(controller);
        }
      }
      case "sleep":
        return new Promise((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve({ reply: "slept" });
          }, call.ms);
          timers.add(timer);
        });
      default:
        throw new Error(`unknown call ${call.op}`);
    }
  };

  let run = null;
  /** What the code did in a step: calls go to etcd, notes to the log. */
  const handle = (eventsJson) => {
    for (const event of JSON.parse(eventsJson)) {
      const who = `p${event.process + 1}`;
      if (event.kind === "call") {
        if (event.call.op !== "sleep") log(who, `calls ${event.words}`);
        perform(event.call).then(
          (reply) => {
            if (stoppedBecause) return;
            const replyJson = JSON.stringify(reply);
            if (event.call.op !== "sleep") log(who, `gets ${engines.leaselab.describeReply(replyJson)}`);
            inEngine(() => handle(run.deliver(event.id, event.process, now(), replyJson)));
          },
          (error) => stop(error.message),
        );
      } else if (event.kind === "note") {
        // The grader's words for notes, as in every timeline.
        if (event.note.note !== "calling") log(who, event.words);
      } else if (event.kind === "finished") {
        finished.add(event.process);
        log(who, "is done");
        if (finished.size === lab.processes) stop("every process is done");
      } else if (event.kind === "stopped") {
        stop(event.reason);
      }
    }
  };

  /** Runs `step` in the engine; what it throws ends the lab, and a trap is kept to be rethrown. */
  const inEngine = (step) => {
    try {
      step();
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) trapped ??= error;
      stop(error.message);
    }
  };

  const limit = setTimeout(() => stop(`the lab's ${lab.durationMs / 1000} s are up`), lab.durationMs);
  try {
    inEngine(() => {
      run = new engines.leaselab.LabRun(exercise, source, spec.file, now());
      handle(run.firstEvents());
    });
    const result = await done;
    if (trapped) throw trapped;
    return result;
  } finally {
    clearTimeout(limit);
    // The lab may end with calls still under way: their replies find it stopped. After a trap, the
    // module is left mid-call and is never used again, this handle included.
    if (!trapped) run?.free();
  }
}
