// Grades a learner's source file, or replays one run of it, in the engine
// (crates/engine: QuickJS and the simulation in one wasm module, the
// runner's loop in Rust): its preflight (does it parse, does it export what
// the exercise needs?), then the Rust grader's full suite. When the engine
// breaks down under a submission, the JavaScript runner (grade-in-sandbox.js)
// grades it again.
import { sourceSizeProblem } from "./limits.js";
import { registryOf } from "./registry.js";

/** The JavaScript runner (grade-in-sandbox.js), loaded the first time it is needed. */
const inSandbox = () => import("./grade-in-sandbox.js");

/**
 * Grades `source` for `exercise` in the engine (crates/engine: QuickJS and
 * the simulation in one wasm module, the runner's loop in Rust). Resolves
 * to the suite report (the Rust grader's shape: `{ exercise, score,
 * maxScore, tests: [...] }`), plus `problems`: when the submission could not
 * be run at all (a syntax error, a missing export), one sentence each, and
 * no tests.
 * `onRun()` before each run; `onTest(test)` with each test as soon as it is
 * finished, in the report's order, equal to the report's entry (parsed from
 * the same JSON); `onFailing(name)` as soon as the next test has failed,
 * before its counterexample is shrunk (its verdict is final then; its
 * `onTest` follows). A submission that cannot be run has no tests to hand over.
 *
 * When the engine breaks down under a submission (see `engineBrokeDown`),
 * the submission is graded again in the JavaScript runner, which gives the
 * same report; from then on every grading in this realm runs there.
 */
export async function gradeSource(engines, request) {
  // Without `limits`, the engine's defaults (the JavaScript runner's DEFAULT_LIMITS: tests/engine-vm-sources).
  const { exercise, source, fileName, options = {}, limits, onRun, onTest, onFailing } = request;
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  const file = fileName ?? spec.file;
  const tooLarge = sourceSizeProblem(source, file);
  const notRun = (problems) => ({ exercise, graderVersion: registry.graderVersion, score: 0, maxScore: spec.maxScore, problems, tests: [] });
  if (tooLarge) return notRun([tooLarge]);
  if (engineBrokeDown(engines)) return (await inSandbox()).gradeSourceInSandbox(engines, request);
  /** What the caller was already told, should the engine break down half-way. */
  const told = { tests: [], failing: new Set() };
  const handOver =
    onTest &&
    ((testJson) => {
      const test = JSON.parse(testJson);
      told.tests.push(test);
      onTest(test);
    });
  const announce =
    onFailing &&
    ((name) => {
      told.failing.add(name);
      onFailing(name);
    });
  let graded;
  try {
    graded = JSON.parse(engines.leaselab.gradeInEngine(exercise, source, file, options, limits, handOver, announce, onRun));
  } catch (error) {
    if (!(await brokeDownUnder(engines, error))) throw error;
    return gradeAgainInSandbox(engines, request, told);
  }
  if (graded.problems) return notRun(graded.problems);
  return { ...graded, problems: [] };
}

/**
 * Whether the engine broke down in this realm: a call into it was stopped
 * half-way (V8's native stack ran out under a submission nested too deeply
 * for it, or a trap), so that instance of the grader's module is left
 * mid-call (its stack pointer lowered, its arenas and the grading under way
 * abandoned) and is not used again: `engines.leaselab` is then a spare,
 * fresh instance of the same module (`spareLeaselab`), and every grading
 * and replay here runs in the JavaScript runner (whose QuickJS instances
 * are separate and fresh), with the spare as its grader; the spare's engine
 * is never called. The page's workers and the CLI's threads ask this after
 * each request, and are replaced when it is true, so a fresh engine grades
 * the next submission.
 */
export function engineBrokeDown(engines) {
  return engines.brokeDown !== undefined;
}

/**
 * After `error` came out of a call into the engine: if the call was stopped
 * half-way, the instance is replaced by the spare (above). True when that
 * was V8's native stack running out, the submission's doing, which the
 * JavaScript runner turns into the run's verdict; a trap (a panic, a bad
 * access) is the grader's own failure, and the caller reports it as before.
 */
async function brokeDownUnder(engines, error) {
  if (!engines.leaselab.engineBrokeDown()) return false;
  engines.brokeDown ??= String(error?.message ?? error).slice(0, 200);
  engines.leaselab = await engines.spareLeaselab();
  return error instanceof RangeError;
}

/**
 * The submission graded again in the JavaScript runner after the engine
 * broke down under it. Its report is the engine's (the parity test holds
 * them equal), so the caller is told only what it was not told yet, and the
 * tests already handed over stay in the report as they were.
 * The V8 stack overflow that stopped the engine is, in the JavaScript
 * runner, the run's own verdict ("recursed too deeply…"): the verdict the
 * engine gives on a thread whose native stack is deep enough (the CLI's).
 */
async function gradeAgainInSandbox(engines, request, told) {
  const { onTest, onFailing } = request;
  let finished = 0;
  const report = await (await inSandbox()).gradeSourceInSandbox(engines, {
    ...request,
    onTest:
      onTest &&
      ((test) => {
        finished += 1;
        if (finished > told.tests.length) onTest(test);
      }),
    onFailing:
      onFailing &&
      ((name) => {
        if (!told.failing.has(name) && !told.tests.some((test) => test.name === name)) onFailing(name);
      }),
  });
  if (told.tests.length > 0 && report.tests.length >= told.tests.length) {
    report.tests.splice(0, told.tests.length, ...told.tests);
    report.score = report.tests.reduce((sum, test) => sum + test.score, 0);
  }
  return report;
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
  let answer = null;
  if (!engineBrokeDown(engines)) {
    try {
      answer = engines.leaselab.runCaseInEngine(exercise, source, file, caseJson, limits);
    } catch (error) {
      if (!(await brokeDownUnder(engines, error))) throw error;
    }
  }
  // The engine broke down (now or before): the run again in the JavaScript runner, as in `gradeSource`.
  answer ??= await (await inSandbox()).runCaseInSandbox(engines, { exercise, source, fileName: file, caseJson, limits });
  const execution = JSON.parse(engines.leaselab.executionFromAnswer(exercise, caseJson, answer));
  const violation = JSON.parse(engines.leaselab.checkAnswer(exercise, caseJson, answer));
  const words = JSON.parse(engines.leaselab.describeTrace(JSON.stringify(execution.trace)));
  return { caseJson, execution, violation, words };
}

