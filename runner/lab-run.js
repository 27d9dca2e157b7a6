// Lab mode: the learner's lock, lease or election code against a real etcd, in real
// time. The same sandbox and the same harness as grading; only the host
// differs: instead of the simulation deciding when each call completes, the
// calls go to etcd (etcd-gateway.js) and settle when etcd answers, `sleep`
// is a real timer and `now()` the real clock. Nothing is graded: the learner
// watches their code take, hold and release a real lock, lead and renew, or
// queue for leadership.
import { HARNESS_SOURCE, parseOutbox } from "./harness.js";
import { createEtcdGateway } from "./etcd-gateway.js";
import { loadModule } from "./run-case.js";
import { registryOf } from "./registry.js";
import { createSandbox, DEFAULT_LIMITS } from "./sandbox.js";

/**
 * Runs `source` (an exercise whose registry entry has a `labRun`) against
 * etcd at `endpoint`. `onLog`
 * receives `{ atMs, who, text }` lines as things happen. Resolves to
 * `{ stoppedBecause }` when every process is done or the lab's time is up.
 */
export async function runLab(engines, { exercise, source, endpoint, onLog, fetch: fetchImpl }) {
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  // What the lab runs comes from the grader's registry, as the tests do.
  const lab = spec.labRun;
  if (!lab) {
    const labbed = registry.exercises.filter((entry) => entry.labRun).map((entry) => entry.name);
    throw new Error(`lab mode runs the ${labbed.join(" and ")} exercises, not ${exercise}`);
  }
  const fileName = spec.file;
  const gateway = createEtcdGateway(endpoint, fetchImpl ? { fetch: fetchImpl } : {});
  // Fail early, with the reason, if etcd cannot be reached.
  await gateway.get("leaselab/lab-probe");

  await engines.quickjs.refill(1);
  const sandbox = createSandbox(engines.quickjs, { limits: DEFAULT_LIMITS });
  const { vm } = sandbox;
  const startedAt = performance.now();
  const now = () => Math.round(performance.now() - startedAt);
  const nows = () => Array.from({ length: lab.processes }, now).join(",");
  const log = (who, text) => onLog?.({ atMs: now(), who, text });
  const aborts = new Set();
  const timers = new Set();
  const finished = new Set();
  const requests = new Map();
  let nextCall = 0;
  let stoppedBecause = null;
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

  const harnessMain = vm.unwrapResult(vm.evalCode(HARNESS_SOURCE, "harness.js"));
  const owned = [vm.newString(exercise), vm.newString(fileName), vm.newString(spec.key)];
  const harness = vm.unwrapResult(vm.callFunction(harnessMain, vm.undefined, ...owned, sandbox.tools));
  for (const handle of [...owned, harnessMain]) handle.dispose();
  const functions = Object.fromEntries(["begin", "start", "deliver", "flush"].map((name) => [name, vm.getProp(harness, name)]));

  // Every call into the harness starts a step of the code (it runs until it
  // waits for etcd again, see `handleOutbox`): the backstop counts from there.
  const callHarness = (fn, ...values) => {
    sandbox.restartClock();
    const result = vm.callFunction(fn, harness, ...values);
    for (const value of values) if (value.alive) value.dispose();
    if (result.error) {
      const info = sandbox.describeThrown(result.error);
      result.error.dispose();
      stop(`the code stopped: ${info.limit ?? (info.error ? `${info.name}: ${info.message}` : info.text)}`);
      return null;
    }
    return result.value;
  };

  const perform = async (process, call) => {
    switch (call.op) {
      case "get":
        return gateway.get(call.key);
      case "cas":
        return gateway.compareAndSwap(call.key, call.nextValue, call.currentValue, call.version, call.ttlMs);
      case "delete":
        return gateway.delete(call.key, call.version);
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

  /** Runs what the code queued: calls go to etcd, notes to the log. */
  const handleOutbox = () => {
    sandbox.drainJobs();
    if (sandbox.stopped) return stop(`${fileName} ${sandbox.stopped}`);
    const text = callHarness(functions.flush)?.consume((value) => vm.getString(value));
    if (!text) return;
    for (const [kind, process, payload] of parseOutbox(text)) {
      const who = `p${process + 1}`;
      if (kind === "c") {
        const id = nextCall++;
        const call = JSON.parse(payload);
        requests.set(id, call);
        if (call.op !== "sleep") log(who, `calls ${engines.leaselab.describeCall(payload)}`);
        perform(process, call).then(
          (reply) => {
            if (stoppedBecause) return;
            if (call.op !== "sleep") log(who, `gets ${engines.leaselab.describeReply(JSON.stringify(reply))}`);
            const delivery = engines.leaselab.packDelivery(id, process, nows(), JSON.stringify(reply));
            callHarness(functions.deliver, vm.newString(delivery))?.dispose();
            handleOutbox();
          },
          (error) => stop(error.message),
        );
      } else if (kind === "n") {
        const note = JSON.parse(payload);
        // The grader's words for notes, as in every timeline.
        if (note.note !== "calling") log(who, engines.leaselab.describeNote(payload));
      } else if (kind === "f") {
        finished.add(process);
        log(who, "is done");
        if (finished.size === lab.processes) stop("every process is done");
      } else if (kind === "s") {
        stop(`${fileName} ${payload}`);
      }
    }
  };

  const limit = setTimeout(() => stop(`the lab's ${lab.durationMs / 1000} s are up`), lab.durationMs);
  try {
    callHarness(functions.begin, vm.newString(JSON.stringify(lab.workload)))?.dispose();
    for (let process = 0; process < lab.processes && !stoppedBecause; process += 1) {
      const namespace = loadModule(sandbox, source, fileName);
      callHarness(functions.start, vm.newNumber(process), namespace, vm.newString(nows()))?.dispose();
      handleOutbox();
    }
    return await done;
  } catch (error) {
    stop(error.message);
    return { stoppedBecause };
  } finally {
    clearTimeout(limit);
    for (const fn of Object.values(functions)) fn.dispose();
    harness.dispose();
    // The lab may end with the code mid-call: never free a runtime in that state.
    sandbox.stop("the lab ended");
    sandbox.release();
  }
}
