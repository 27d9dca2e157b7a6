// The grader in a browser Web Worker, so the page stays responsive while a
// suite runs. The page talks to it through client.js, which sends one
// request at a time and terminates this worker if a request outlasts its
// hard deadline.
//
// Messages in:  { type: "module", module }                        (first: the grader's compiled WebAssembly.Module,
//                                                              which the page downloads once for every worker)
//               { id, type: "load" }                               (load the engines now, grade nothing)
//               { id, type: "grade", exercise, source, options }
//               { id, type: "replay", exercise, source, token }
//               { id, type: "lab", exercise, source, endpoint }       (lab mode: a real etcd)
// Messages out: { id, type: "started", fileName, maxScore, graderVersion, tests }  (engines loaded; learner code runs next;
//                                                              tests: the suite's test names, in order)
//               { id, type: "progress", runs }                (while grading)
//               { id, type: "failing", index, name }           (while grading: the index-th test of this worker's
//                                                              report has failed; its story is being shrunk)
//               { id, type: "test", index, test }              (while grading: the index-th test of this
//                                                              worker's report, as soon as it is finished)
//               { id, type: "result", loaded: true }           (load)
//               { id, type: "result", report }                 (grade)
//               { id, type: "result", replay: { caseJson, execution, violation, words, title } }
//                                                             (title: the test the token's scenario names, or null)
//               { id, type: "log", line: { atMs, who, text } }  (lab mode, as it happens)
//               { id, type: "result", lab: { stoppedBecause } }
//               { id, type: "error", message }                 (the grader itself failed)
import { loadEngines } from "../../../runner/engine.js";
import { gradeSource, replaySource } from "../../../runner/grade.js";
import { registryOf } from "../../../runner/registry.js";

/** The grader's module, compiled by the page (grader-module.js) and sent as this worker's first message. */
let receiveModule;
const graderModule = new Promise((resolve) => {
  receiveModule = resolve;
});

let engines = null;
/** The engines' loading, shared: a request that arrives while it is under way waits for it instead of loading them again. */
let loading = null;

self.addEventListener("message", async (event) => {
  const request = event.data;
  if (request?.type === "module") {
    receiveModule(request.module);
    return;
  }
  try {
    // A loading that failed is forgotten, so the next request tries again.
    loading ??= graderModule.then((module) => loadEngines({ leaselabWasm: module })).catch((error) => {
      loading = null;
      throw error;
    });
    engines ??= await loading;
    announceStart(request);
    if (request.type === "load") {
      self.postMessage({ id: request.id, type: "result", loaded: true });
    } else if (request.type === "grade") {
      let runs = 0;
      const onRun = () => {
        runs += 1;
        // Progress every few runs: posting is cheap, but not free.
        if (runs % 8 === 0) self.postMessage({ id: request.id, type: "progress", runs });
      };
      let finished = 0;
      // Each test as soon as it is finished, so the page can show a failure while the rest still run.
      const onTest = (test) => self.postMessage({ id: request.id, type: "test", index: finished++, test });
      // A failure as soon as it is found, before its shrinking (hundreds of runs, at times): the next test to finish.
      const onFailing = (name) => self.postMessage({ id: request.id, type: "failing", index: finished, name });
      const report = await gradeSource(engines, { exercise: request.exercise, source: request.source, options: request.options ?? {}, onRun, onTest, onFailing });
      self.postMessage({ id: request.id, type: "result", report });
    } else if (request.type === "replay") {
      const replay = await replaySource(engines, { exercise: request.exercise, source: request.source, token: request.token });
      // The test the run belongs to, by the scenario its token names (`exercise@version:scenario:…`), so the page can name it.
      const scenario = request.token.split(":")[1];
      const title = registryOf(engines.leaselab).exercises.find((spec) => spec.name === request.exercise)?.tests.find((test) => test.id === scenario)?.title ?? null;
      self.postMessage({ id: request.id, type: "result", replay: { ...replay, title } });
    } else if (request.type === "lab") {
      const onLog = (line) => self.postMessage({ id: request.id, type: "log", line });
      // Lab mode's host (etcd's gateway, timers) loads only when a lab runs.
      const { runLab } = await import("../../../runner/lab-run.js");
      const lab = await runLab(engines, { exercise: request.exercise, source: request.source, endpoint: request.endpoint, onLog });
      self.postMessage({ id: request.id, type: "result", lab });
    } else {
      throw new Error(`unknown request type ${request.type}`);
    }
  } catch (error) {
    self.postMessage({ id: request.id, type: "error", message: error instanceof Error ? error.message : String(error) });
  }
});

/**
 * Tells the client, before any learner code runs, what it needs to word a
 * "took too long" verdict itself if this worker has to be terminated: the
 * file's name and the exercise's points; and the suite's test names, which
 * the page lists (each pending until its verdict arrives) and which place
 * the tests of a split grading. An unknown exercise says nothing here;
 * grading it fails at once with its own message.
 */
function announceStart(request) {
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercises.find((exercise) => exercise.name === request.exercise);
  if (!spec) return;
  self.postMessage({ id: request.id, type: "started", fileName: spec.file, maxScore: spec.maxScore, graderVersion: registry.graderVersion, tests: spec.tests.map((test) => test.title) });
}
