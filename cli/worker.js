// A grading thread: loads the engines once, says it is ready (with each
// exercise's maximum score, which the parent needs to report a file this
// thread could not finish), then grades the files it is sent, one at a time,
// posting each test as it finishes (`{ test }`) and then the report.
// The parent may terminate it at any moment (batch.js); nothing here needs
// to survive that.
import { parentPort } from "node:worker_threads";
import { loadNodeEngines } from "../runner/node/engines.js";
import { registryOf } from "../runner/registry.js";
import { gradeFile } from "./grade-file.js";

// A failure here is the grader's, not a submission's: it reaches the parent
// as the thread's error before it was ready, and the run stops (exit 2).
const engines = await loadNodeEngines();

parentPort.postMessage({ ready: true, maxScores: Object.fromEntries(registryOf(engines.leaselab).exercises.map((exercise) => [exercise.name, exercise.maxScore])) });

parentPort.on("message", async ({ file, options }) => {
  let reply;
  try {
    reply = { report: await gradeFile(engines, file, options, (test) => parentPort.postMessage({ test })) };
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

/** One line about a thrown value, without trusting it to stringify. */
function describe(error) {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.split("\n")[0].slice(0, 300);
  } catch {
    return "an error that cannot be described";
  }
}
