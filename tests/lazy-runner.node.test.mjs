// The JavaScript runner (runner/grade-in-sandbox.js, run-case.js, sandbox.js)
// and quickjs-emscripten serve lab mode and the fallback after the engine
// breaks down, nothing else: a grading that needs neither must not load
// them, in a Node process (the CLI's threads) or in the page's worker.
// Loading them costs each grading thread 10-20 ms and about 4.5 MiB at
// start, and the page's worker 85 KB of script (BENCHMARKS.md, issue 18's
// ninth pass); a static import added back anywhere on the way makes this
// test fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lessonFile } from "../web/build/lesson-folder.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = join(ROOT, "web/dist");
/** What only lab mode and the fallback need. */
const RUNNER_ONLY = [/quickjs-emscripten/, /runner\/grade-in-sandbox\.js$/, /runner\/run-case\.js$/, /runner\/sandbox\.js$/, /runner\/lab-run\.js$/];

/** A module of the repository, by URL, for the scripts below. */
const here = (path) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);

/** The URLs a fresh Node process resolves while it runs `script` (an ES module's text). */
function modulesResolvedBy(script) {
  const scratch = mkdtempSync(join(tmpdir(), "leaselab-imports-"));
  const record = join(scratch, "resolved.txt");
  const file = join(scratch, "script.mjs");
  writeFileSync(file, script);
  try {
    execFileSync(process.execPath, ["--import", "./tests/support/record-imports.mjs", file], {
      cwd: ROOT,
      env: { ...process.env, RECORD_IMPORTS: record },
      encoding: "utf8",
    });
    return [...new Set(readFileSync(record, "utf8").split("\n").filter(Boolean))];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

test("a grading and a replay in Node load neither the JavaScript runner nor quickjs-emscripten", () => {
  const solution = lessonFile("lock", "solution.js");
  const starter = lessonFile("lock", "starter.js");
  const resolved = modulesResolvedBy(`
    import { readFileSync } from "node:fs";
    import { loadNodeEngines } from ${here("runner/node/engines.js")};
    import { gradeSource, replaySource } from ${here("runner/grade.js")};
    const engines = await loadNodeEngines();
    const passing = await gradeSource(engines, { exercise: "lock", source: readFileSync(${JSON.stringify(solution)}, "utf8"), options: { seeds: 2 } });
    if (passing.score !== passing.maxScore) throw new Error("the lesson's solution did not pass");
    const source = readFileSync(${JSON.stringify(starter)}, "utf8");
    const failing = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 2 } });
    const { counterexample } = failing.tests.find((entry) => entry.counterexample);
    await replaySource(engines, { exercise: "lock", source, token: counterexample.replayToken });`);
  assert.ok(resolved.some((url) => url.endsWith("/runner/grade.js")), "the recorder saw the grading's modules");
  const loaded = resolved.filter((url) => RUNNER_ONLY.some((pattern) => pattern.test(url)));
  assert.deepEqual(loaded, []);
});

test("the CLI's grading thread loads neither, either", () => {
  const resolved = modulesResolvedBy(`
    import { GradingThread } from ${here("cli/grading-thread.js")};
    const thread = await GradingThread.start();
    await thread.stop();`);
  // A worker thread's own imports go through the same hooks (they are registered for the process).
  assert.ok(resolved.some((url) => url.endsWith("/cli/worker.js")), "the recorder saw the thread's modules");
  assert.deepEqual(resolved.filter((url) => RUNNER_ONLY.some((pattern) => pattern.test(url))), []);
});

/** The files the page's grading worker loads before it runs anything: its script and what that imports, statically. */
function workerStartFiles() {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(DIST, file), "utf8");
    for (const [, imported] of text.matchAll(/(?:\bimport\s*|\bfrom\s*)"\.\/([^"]+\.js)"/g)) visit(imported);
  };
  visit("grader-worker.js");
  return [...seen];
}

test("the page's grading worker starts without the JavaScript runner, quickjs-emscripten or lab mode; they are chunks it loads when needed", () => {
  const files = workerStartFiles();
  const text = files.map((file) => readFileSync(join(DIST, file), "utf8")).join("\n");
  // Words only those modules have: quickjs-emscripten's context class, the sandbox's realm prelude, lab mode's gateway.
  for (const word of ["QuickJSContext", "PRELUDE", "createEtcdGateway", "lab-probe"]) {
    assert.ok(!text.includes(word), `the worker's start (${files.join(", ")}) includes ${word}`);
  }
  const all = readFileSync(join(DIST, "grader-worker.js"), "utf8");
  assert.match(all, /import\("\.\/grade-in-sandbox-[^"]+\.js"\)/, "the JavaScript runner is a chunk the worker imports when needed");
  assert.match(all, /import\("\.\/lab-run-[^"]+\.js"\)/, "lab mode too");
});
