// Grading in the JavaScript runner: QuickJS in its own wasm instances
// (quickjs-emscripten) and the loop in `run-case.js`, with the Rust grader
// around it. Lab mode runs learner code this way; `gradeSource` and
// `replaySource` (grade.js) load this module only when the engine broke
// down under a submission, so a page or a CLI thread that never needs it
// never loads quickjs-emscripten. The engine is held to give the same
// reports (tests/engine-parity.node.test.mjs).
import { createCaseRunner, loadModule, ModuleError } from "./run-case.js";
import { sourceSizeProblem } from "./limits.js";
import { registryOf } from "./registry.js";
import { createSandbox, DEFAULT_LIMITS } from "./sandbox.js";

/**
 * Checks, in the JavaScript runner, that `source` loads and exports the
 * functions of `spec` (the exercise's registry entry). Returns a list of
 * problems, each one sentence naming the file and what to do; the exports'
 * problems are worded by the grader's module (`exportProblems`), as the
 * engine words them.
 */
export function preflight({ quickjs, leaselab }, { spec, source, fileName }) {
  const tooLarge = sourceSizeProblem(source, fileName);
  if (tooLarge) return [tooLarge];
  const sandbox = createSandbox(quickjs, { limits: DEFAULT_LIMITS });
  const { vm } = sandbox;
  try {
    let namespace;
    try {
      namespace = loadModule(sandbox, source, fileName);
    } catch (error) {
      if (error instanceof ModuleError) return [error.message];
      throw error;
    }
    // Export names are the learner's text: read them in the VM, well-formed.
    const names = sandbox.guard(() =>
      vm
        .unwrapResult(vm.evalCode("(namespace) => Object.keys(namespace).map((name) => name.toWellFormed ? name.toWellFormed() : name)"))
        .consume((keysOf) => vm.unwrapResult(vm.callFunction(keysOf, vm.undefined, namespace)))
        .consume((keys) => vm.dump(keys)),
    );
    if (names === null) return [`${fileName}: its top-level code ${sandbox.stopped}`];
    // Reading an export that was never initialised throws (its `let` was never reached).
    const kinds = {};
    for (const wanted of spec.exports) {
      if (names.includes(wanted)) kinds[wanted] = sandbox.guard(() => vm.getProp(namespace, wanted).consume((value) => vm.typeof(value))) ?? "value that cannot be read";
    }
    // The sentences are the engine's (engine::preflight::export_problems): one wording for both runners.
    const problems = JSON.parse(leaselab.exportProblems(spec.name, fileName, JSON.stringify(names), JSON.stringify(kinds)));
    if (!sandbox.broken) namespace.dispose();
    return problems;
  } finally {
    sandbox.release();
  }
}

/**
 * `gradeSource` (grade.js) in the JavaScript runner: the same grading, with QuickJS in
 * its own wasm instances (quickjs-emscripten) and the loop in
 * `run-case.js`. Lab mode runs learner code this way; the engine is held to
 * give the same reports (tests/engine-parity.node.test.mjs).
 */
export async function gradeSourceInSandbox(engines, { exercise, source, fileName, options = {}, limits = DEFAULT_LIMITS, onRun, onTest, onFailing }) {
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  const file = fileName ?? spec.file;
  // Fresh QuickJS instances for this submission: nothing an earlier one did can reach them.
  engines.quickjs.beginSubmission();
  await engines.quickjs.refill();
  const problems = preflight(engines, { spec, source, fileName: file });
  if (problems.length > 0) {
    return { exercise, graderVersion: registry.graderVersion, score: 0, maxScore: spec.maxScore, problems, tests: [] };
  }
  const runner = createCaseRunner(engines, { exercise, source, fileName: file, limits });
  try {
    const handOff = { handOff: true };
    const run = (caseJson) => {
      onRun?.();
      return runner.run(caseJson, handOff);
    };
    const reportJson = engines.leaselab.gradeSubmission(exercise, options, run, onTest && ((testJson) => onTest(JSON.parse(testJson))), onFailing);
    return { ...JSON.parse(reportJson), problems: [] };
  } finally {
    runner.dispose();
  }
}

/** One case run in the JavaScript runner: the answer, as `runCaseInEngine` gives it. */
export async function runCaseInSandbox(engines, { exercise, source, fileName, caseJson, limits }) {
  engines.quickjs.beginSubmission();
  await engines.quickjs.refill();
  const runner = createCaseRunner(engines, { exercise, source, fileName, limits });
  try {
    return runner.run(caseJson);
  } finally {
    runner.dispose();
  }
}
