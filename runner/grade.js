// Grades a learner's source file, or replays one run of it, in the engine
// (crates/engine: QuickJS and the simulation in one wasm module, the run
// loop in Rust): its preflight (does it parse, does it export what the
// exercise needs?), then the Rust grader's full suite.
import { sourceSizeProblem } from "./limits.js";
import { registryOf } from "./registry.js";

/**
 * Grades `source` for `exercise`. Resolves to the suite report (the Rust
 * grader's shape: `{ exercise, score, maxScore, tests: [...] }`), plus
 * `problems`: when the submission could not be run at all (a syntax error,
 * a missing export), one sentence each, and no tests.
 * `onRun()` before each run; `onTest(test)` with each test as soon as it is
 * finished, in the report's order, equal to the report's entry (parsed from
 * the same JSON); `onFailing(name)` as soon as the next test has failed,
 * before its counterexample is shrunk (its verdict is final then; its
 * `onTest` follows). A submission that cannot be run has no tests to hand over.
 */
export async function gradeSource(engines, request) {
  const { exercise, source, fileName, options = {}, limits, onRun, onTest, onFailing } = request;
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  const file = fileName ?? spec.file;
  const tooLarge = sourceSizeProblem(source, file);
  const notRun = (problems) => ({ exercise, graderVersion: registry.graderVersion, score: 0, maxScore: spec.maxScore, problems, tests: [] });
  if (tooLarge) return notRun([tooLarge]);
  const handOver = onTest && ((testJson) => onTest(JSON.parse(testJson)));
  const graded = JSON.parse(engines.leaselab.gradeInEngine(exercise, source, file, options, limits, handOver, onFailing, onRun));
  if (graded.problems) return notRun(graded.problems);
  return { ...graded, problems: [] };
}

/**
 * Replays one run from its replay token (the "copy link" of a failing
 * test): the same case, the same source, the same trace. Resolves to
 * `{ caseJson, execution, violation, words }`, with `execution` the `{ ending,
 * trace }` the grader checked, `violation` null if the run passes now, and
 * `words` the grader's sentence for each trace event.
 */
export async function replaySource(engines, { exercise, source, token, fileName, limits }) {
  const spec = registryOf(engines.leaselab).exercise(exercise);
  const file = fileName ?? spec.file;
  const tooLarge = sourceSizeProblem(source, file);
  if (tooLarge) throw new Error(tooLarge);
  const caseJson = engines.leaselab.caseFromToken(exercise, token);
  const answer = engines.leaselab.runCaseInEngine(exercise, source, file, caseJson, limits);
  const execution = JSON.parse(engines.leaselab.executionFromAnswer(exercise, caseJson, answer));
  const violation = JSON.parse(engines.leaselab.checkAnswer(exercise, caseJson, answer));
  const words = JSON.parse(engines.leaselab.describeTrace(JSON.stringify(execution.trace)));
  return { caseJson, execution, violation, words };
}
