// A thread that grades, or replays, one submission through `gradeSource`
// (or `replaySource`) and says what the caller was told along the way: the
// tests handed over one by one, the failures announced, whether the engine
// broke down in this thread, and whether the grader's spare instance took
// the first one's place. The test that spawns it chooses the
// thread's native stack, so a grading can meet a browser worker's small
// stack or the CLI's larger one.
import { parentPort, workerData } from "node:worker_threads";
import { loadNodeEngines } from "../../runner/node/engines.js";
import { engineBrokeDown, gradeSource, replaySource } from "../../runner/grade.js";

const engines = await loadNodeEngines();
/** The grader module's first instance: after a breakdown, the spare takes its place. */
const first = engines.leaselab;
const { exercise, seeds, then = [] } = workerData;
const answers = [];
for (const { source, token } of [workerData, ...then]) {
  if (token) {
    answers.push({ replay: await replaySource(engines, { exercise, source, token }), brokeDown: engineBrokeDown(engines), spare: engines.leaselab !== first });
    continue;
  }
  const handedOver = [];
  const announced = [];
  const report = await gradeSource(engines, {
    exercise,
    source,
    options: { seeds },
    onTest: (test) => handedOver.push(test),
    onFailing: (name) => announced.push(name),
  });
  answers.push({ report, handedOver, announced, brokeDown: engineBrokeDown(engines), spare: engines.leaselab !== first });
}
parentPort.postMessage(answers);
