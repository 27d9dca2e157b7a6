// A grading thread for the hostile corpus: loads the engines once, grades
// the jobs it was given one after another, and says when each starts, so
// the test that spawned it can tell a hang (terminated from outside) from a
// crash (an exception out of gradeSource) from a verdict. With `replay`, it
// also replays every failing test's counterexample from its replay token
// (what the page's "copy link" does), which must break the same rule in the
// same way: a verdict that depends on what ran before cannot be shown.
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadNodeEngines } from "../../runner/node/engines.js";
import { gradeSource, replaySource } from "../../runner/grade.js";
import { generated } from "./hostile.mjs";

const engines = await loadNodeEngines();
parentPort.postMessage({ type: "ready" });
for (const job of workerData.jobs) {
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
      const expected = JSON.stringify(test.counterexample.violation);
      try {
        const { violation } = await replaySource(engines, { exercise: job.exercise, source, token: test.counterexample.replayToken });
        if (JSON.stringify(violation) !== expected) replays.push({ test: test.name, expected, got: JSON.stringify(violation) });
      } catch (error) {
        replays.push({ test: test.name, expected, got: `the replay threw ${String(error?.message ?? error).slice(0, 300)}` });
      }
    }
    parentPort.postMessage({ type: "report", id: job.id, ms, reportJson: JSON.stringify(report), replays });
  } catch (error) {
    parentPort.postMessage({ type: "crash", id: job.id, ms: performance.now() - started, error: String(error?.stack ?? error).slice(0, 2000) });
  }
}
