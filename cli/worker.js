// A grading thread: loads the engines once, says it is ready (with each
// exercise's maximum score, which the parent needs to report a file this
// thread could not finish), then grades the files it is sent, one at a time,
// posting each test as it finishes (`{ test }`) and then the report.
// The parent may terminate it at any moment (batch.js); nothing here needs
// to survive that.
import { parentPort } from "node:worker_threads";
import { loadNodeEngines } from "../runner/node/engines.js";
import { replaySource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";
import { gradeFile } from "./grade-file.js";

// A failure here is the grader's, not a submission's: it reaches the parent
// as the thread's error before it was ready, and the run stops (exit 2).
const engines = await loadNodeEngines();

parentPort.postMessage({ ready: true, maxScores: Object.fromEntries(registryOf(engines.leaselab).exercises.map((exercise) => [exercise.name, exercise.maxScore])) });

parentPort.on("message", async ({ file, options, replay }) => {
  let reply;
  try {
    if (replay) {
      reply = { timeline: await replayTimeline(replay) };
      parentPort.postMessage(reply);
      return;
    }
    // Each test's time is from the end of the one before it (tests finish in the report's order).
    const testMs = [];
    let last = performance.now();
    const report = await gradeFile(engines, file, options, (test) => {
      const now = performance.now();
      testMs.push(Math.round(now - last));
      last = now;
      parentPort.postMessage({ test });
    });
    reply = { report, timing: testMs.length === report.tests.length ? { testMs } : null };
  } catch (error) {
    reply = { error: describe(error) };
  }
  try {
    parentPort.postMessage(reply);
  } catch (error) {
    // A report that cannot be copied to the parent (structured clone) is the grader's failure for this file.
    parentPort.postMessage({ error: describe(error) });
  }
});

/**
 * One run again from its replay token, as its timeline text: the grader's
 * own rendering of a counterexample (the same words as every report), made
 * from the replayed trace. `{ text, violated }`.
 */
async function replayTimeline({ exercise, source, token, fileName }) {
  const { caseJson, execution, violation, words } = await replaySource(engines, { exercise, source, token, fileName });
  const counterexample = {
    replayToken: token,
    processes: JSON.parse(caseJson).plan?.processes ?? 1,
    trace: execution.trace,
    ending: execution.ending,
    // A run that breaks no rule now is rendered with an empty violation that marks no event; its first line is replaced below.
    violation: violation ?? { invariant: "", message: "", traceIndex: null, atMs: 0, process: null },
    shrunkFromEvents: execution.trace.length,
    words,
  };
  let text = engines.leaselab.renderCounterexample(JSON.stringify(counterexample));
  if (!violation) text = `passes: this run breaks no rule now\n${text.slice(text.indexOf("\n") + 1)}`;
  return { text, violated: violation !== null };
}

/** One line about a thrown value, without trusting it to stringify. */
function describe(error) {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.split("\n")[0].slice(0, 300);
  } catch {
    return "an error that cannot be described";
  }
}
