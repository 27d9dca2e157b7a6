// A grading thread for batch runs: loads the engines once, then grades the
// submissions it is sent, one at a time.
import { parentPort } from "node:worker_threads";
import { loadNodeEngines } from "../web/src/runner/node.js";
import { gradeSubmission } from "./grade-submission.js";

const engines = loadNodeEngines();

parentPort.on("message", async ({ index, submission, options }) => {
  try {
    parentPort.postMessage({ index, graded: await gradeSubmission(await engines, submission, options) });
  } catch (error) {
    parentPort.postMessage({ index, error: error instanceof Error ? error.message : String(error) });
  }
});
