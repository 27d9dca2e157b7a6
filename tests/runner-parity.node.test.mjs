// The JavaScript harness is the Rust harness's twin: running the lesson's
// solution.js in the sandbox must give byte for byte the trace that the Rust
// reference solution gives under the same case. This is what makes a
// browser verdict the same as the grader's own, and it catches any drift in
// call order, notes or timing between the two harnesses.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { createCaseRunner } from "../runner/run-case.js";
import { loadNodeRegistry } from "../runner/node/engines.js";

const registry = await loadNodeRegistry();

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

/** Every case a grading would run (named scenarios and `seeds` random ones). */
function casesOf(exercise, seeds) {
  const cases = [];
  engines.leaselab.gradeSubmission(exercise, { seeds }, (caseJson) => {
    cases.push(caseJson);
    return answerOfReference(exercise, caseJson);
  });
  return cases;
}

/**
 * The cas contract leaves version numbers free (they must only grow and
 * never repeat), and solution.js numbers them differently from the Rust
 * reference; so cas traces are compared with each version replaced by its
 * rank of first appearance. Everything else must match exactly.
 */
function comparable(exercise, executionJson) {
  if (exercise !== "cas") return executionJson;
  const ranks = new Map();
  return JSON.stringify(JSON.parse(executionJson), (key, value) => {
    if (key === "version" && Number.isInteger(value)) {
      if (!ranks.has(value)) ranks.set(value, ranks.size + 1);
      return ranks.get(value);
    }
    return value;
  });
}

/** What the runner would hand back for the reference (cas: a recording, else the execution). */
function answerOfReference(exercise, caseJson) {
  const execution = engines.leaselab.referenceExecution(exercise, caseJson);
  if (exercise !== "cas") return execution;
  // The cas grader reads recordings; rebuild one from the reference's own trace.
  const trace = JSON.parse(execution).trace;
  const answers = trace.filter((event) => event.happening.what === "complete").map((event) => event.happening.reply);
  return JSON.stringify({ answers, failure: null, console: [] });
}

for (const exercise of registry.names) {
  test(`${exercise}: solution.js in the sandbox traces exactly like the Rust reference`, async () => {
    await engines.quickjs.refill();
    const source = readFileSync(new URL(`../exercises/ownership-election/${exercise}/solution.js`, import.meta.url), "utf8");
    const runner = createCaseRunner(engines, { exercise, source, fileName: registry.exercise(exercise).file });
    try {
      const cases = casesOf(exercise, 40);
      assert.ok(cases.length >= 40);
      let compared = 0;
      for (const caseJson of cases) {
        const fromJavaScript = comparable(exercise, engines.leaselab.executionFromAnswer(exercise, caseJson, runner.run(caseJson)));
        const fromRust = comparable(exercise, engines.leaselab.referenceExecution(exercise, caseJson));
        if (fromJavaScript !== fromRust) {
          const [js, rust] = [JSON.parse(fromJavaScript).trace, JSON.parse(fromRust).trace];
          const at = js.findIndex((event, index) => JSON.stringify(event) !== JSON.stringify(rust[index]));
          assert.fail(`case ${JSON.parse(caseJson).scenario} differs at event ${at}:\n JS:   ${JSON.stringify(js[at])}\n Rust: ${JSON.stringify(rust[at])}`);
        }
        compared += 1;
      }
      assert.equal(compared, cases.length);
    } finally {
      runner.dispose();
    }
  });
}
