// A grading thread for the hostile corpus: loads the engines once, then
// grades the jobs it is sent one after another, and says when each starts,
// so the test that spawned it can tell a hang (terminated from outside)
// from a crash (an exception out of gradeSource) from a verdict. With
// `replay`, it also replays every failing test's counterexample from its
// replay token (what the page's "copy link" does), which must break the
// same rule in the same way: a verdict that depends on what ran before it
// cannot be shown.
//
// What the engines print while a job is graded (QuickJS prints its aborts)
// is kept and sent with that job's outcome, so a thread that grades many
// files says which one made it print.
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { loadNodeEngines } from "../../runner/node/engines.js";
import { gradeSource, replaySource } from "../../runner/grade.js";
import { generated } from "./hostile.mjs";

let printed = "";
process.stderr.write = (chunk, encoding, callback) => {
  printed += String(chunk);
  if (typeof encoding === "function") encoding();
  else if (typeof callback === "function") callback();
  return true;
};
/** What was printed since the last call. */
function takePrinted() {
  const text = printed;
  printed = "";
  return text;
}

async function grade(job) {
  takePrinted();
  parentPort.postMessage({ type: "start", id: job.id });
  const started = performance.now();
  try {
    // Built here, not sent: a generated 200 MB source never crosses threads.
    const source = job.source ?? generated(readFileSync(job.path, "utf8"), job.generate);
    const report = await gradeSource(engines, { exercise: job.exercise, source, options: job.options });
    const ms = performance.now() - started;
    const replays = [];
    for (const test of job.replay ? report.tests : []) {
      if (!test.counterexample) continue;
      // A report that leaves events out of a long run counts its violation's index in the events it shows; the replay has them all.
      const { violation: reported, omitted } = test.counterexample;
      const expected = JSON.stringify(omitted && reported.traceIndex !== null ? { ...reported, traceIndex: reported.traceIndex + omitted.count } : reported);
      try {
        const { violation } = await replaySource(engines, { exercise: job.exercise, source, token: test.counterexample.replayToken });
        if (JSON.stringify(violation) !== expected) replays.push({ test: test.name, expected, got: JSON.stringify(violation) });
      } catch (error) {
        replays.push({ test: test.name, expected, got: `the replay threw ${String(error?.message ?? error).slice(0, 300)}` });
      }
    }
    parentPort.postMessage({ type: "report", id: job.id, ms, reportJson: JSON.stringify(report), replays, stderr: takePrinted() });
  } catch (error) {
    parentPort.postMessage({ type: "crash", id: job.id, ms: performance.now() - started, error: String(error?.stack ?? error).slice(0, 2000), stderr: takePrinted() });
  }
}

const engines = await loadNodeEngines();
let queue = Promise.resolve();
parentPort.on("message", (message) => {
  if (message.type === "job") queue = queue.then(() => grade(message.job));
});
parentPort.postMessage({ type: "ready" });
