// A thread that grades, or replays, one submission through `gradeSource`
// (or `replaySource`) and says what the caller was told along the way: the
// tests handed over one by one, the failures announced, and whether the
// engine broke down in this thread. The test that spawns it chooses the
// thread's native stack, so a grading can meet a browser worker's small
// stack or the CLI's larger one.
import { parentPort, workerData } from "node:worker_threads";
import { loadNodeEngines } from "../../runner/node/engines.js";
import { engineBrokeDown, gradeSource, replaySource } from "../../runner/grade.js";

const engines = await loadNodeEngines();
const { exercise, seeds, then = [] } = workerData;
const answers = [];
for (const { source, token } of [workerData, ...then]) {
  if (token) {
    answers.push({ replay: await replaySource(engines, { exercise, source, token }), brokeDown: engineBrokeDown(engines) });
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
  answers.push({ report, handedOver, announced, brokeDown: engineBrokeDown(engines) });
}
parentPort.postMessage(answers);
