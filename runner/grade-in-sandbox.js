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

function editDistance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The export a learner probably meant, for "found `trylock`". */
export function closestName(wanted, names) {
  let best = null;
  for (const name of names) {
    const distance = name.toLowerCase() === wanted.toLowerCase() ? 0 : editDistance(name, wanted);
    if (distance <= 2 && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/**
 * Checks that `source` loads and exports the functions of `spec` (the
 * exercise's registry entry). Returns a list of problems, each one sentence
 * naming the file and what to do.
 */
export function preflight(quickjs, { spec, source, fileName }) {
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
    const problems = [];
    for (const wanted of spec.exports) {
      if (!names.includes(wanted)) {
        const close = closestName(wanted, names);
        const found = close ? `found \`${close}\`` : names.length ? `it exports ${names.map((name) => `\`${name}\``).join(", ")}` : "it exports nothing";
        problems.push(`${fileName} must export \`${wanted}\`; ${found}`);
        continue;
      }
      // Reading an export that was never initialised throws (its `let` was never reached).
      const result = sandbox.guard(() => vm.getProp(namespace, wanted).consume((value) => vm.typeof(value)));
      const kind = result ?? "value that cannot be read";
      if (kind !== "function") problems.push(`${fileName} exports \`${wanted}\` as a ${kind}; it must be a function`);
    }
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
  const problems = preflight(engines.quickjs, { spec, source, fileName: file });
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
