// Grades a learner's source file: first a preflight (does it parse, does it
// export what the exercise needs?), then the Rust grader's full suite, with
// every case run in the sandbox by `runCase`.
import { createCaseRunner, loadModule, ModuleError } from "./run-case.js";
import { SOURCE_BYTES_MAX } from "./limits.js";
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
  const tooLarge = sizeProblem(source, fileName);
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

/** A source over the cap never reaches the VM (copying 200 MB into a 32 MiB engine fails in raw wasm errors). */
function sizeProblem(source, fileName) {
  const bytes = new TextEncoder().encode(source).length;
  if (bytes <= SOURCE_BYTES_MAX) return null;
  return `${fileName} is ${formatBytes(bytes)}; a solution may be at most ${formatBytes(SOURCE_BYTES_MAX)} (a solution is a few KB: is this the right file?)`;
}

function formatBytes(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

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
  const { exercise, source, fileName, options = {}, limits = DEFAULT_LIMITS, onRun, onTest, onFailing } = request;
  const registry = registryOf(engines.leaselab);
  const spec = registry.exercise(exercise);
  const file = fileName ?? spec.file;
  const tooLarge = sizeProblem(source, file);
  const notRun = (problems) => ({ exercise, graderVersion: registry.graderVersion, score: 0, maxScore: spec.maxScore, problems, tests: [] });
  if (tooLarge) return notRun([tooLarge]);
  if (engineBrokeDown(engines)) return gradeSourceInSandbox(engines, request);
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
  const report = await gradeSourceInSandbox(engines, {
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
 * `gradeSource` in the JavaScript runner: the same grading, with QuickJS in
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

/**
 * Replays one run from its replay token (the "copy link" of a failing
 * test): the same case, the same source, the same trace. Resolves to
 * `{ caseJson, execution, violation, words }`, with `execution` the `{ ending,
 * trace }` the grader checked, `violation` null if the run passes now, and
 * `words` the grader's sentence for each trace event.
 */
export async function replaySource(engines, { exercise, source, token, fileName, limits = DEFAULT_LIMITS }) {
  const spec = registryOf(engines.leaselab).exercise(exercise);
  const file = fileName ?? spec.file;
  const tooLarge = sizeProblem(source, file);
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
  answer ??= await runCaseInSandbox(engines, { exercise, source, fileName: file, caseJson, limits });
  const execution = JSON.parse(engines.leaselab.executionFromAnswer(exercise, caseJson, answer));
  const violation = JSON.parse(engines.leaselab.checkAnswer(exercise, caseJson, answer));
  const words = JSON.parse(engines.leaselab.describeTrace(JSON.stringify(execution.trace)));
  return { caseJson, execution, violation, words };
}

/** One case run in the JavaScript runner: the answer, as `runCaseInEngine` gives it. */
async function runCaseInSandbox(engines, { exercise, source, fileName, caseJson, limits }) {
  engines.quickjs.beginSubmission();
  await engines.quickjs.refill();
  const runner = createCaseRunner(engines, { exercise, source, fileName, limits });
  try {
    return runner.run(caseJson);
  } finally {
    runner.dispose();
  }
}
