// Exercism's test-runner results.json, version 3
// (https://exercism.org/docs/building/tooling/test-runners/interface): an
// overall status, and per test a status, a message, an output and test_code.
//
// The spec gives each field one job. `message` is what the learner reads
// when a test fails, and is not limited in length: it holds the whole story
// (the timeline, from `violated: …` to `replay: …`; the runner bounds its
// length). `output` is only what the learner's own code printed, at most 500
// characters, cut with the spec's wording. `task_id` is left out: it numbers
// a task heading of an exercise's instructions.md, and these exercises have
// no numbered tasks.
import { basename } from "node:path";
import { flatTests } from "./common.js";
import { registry } from "../registry.js";
import { wellFormedJson } from "./escape.js";

/** The spec's limit on a test's `output`, and what it asks a cut output to end with. */
const OUTPUT_CHARS_MAX = 500;
const TRUNCATED = "Output was truncated. Please limit to 500 chars";

/** Console lines as one `output` of at most OUTPUT_CHARS_MAX characters (code points kept whole). */
function outputOf(lines) {
  const text = lines.join("\n");
  if (text.length <= OUTPUT_CHARS_MAX) return text;
  let kept = "";
  for (const char of text) {
    if (kept.length + char.length > OUTPUT_CHARS_MAX - TRUNCATED.length - 1) break;
    kept += char;
  }
  return `${kept}\n${TRUNCATED}`;
}

/**
 * What the test does, for `test_code`: leaselab's tests are simulations, not
 * code the learner could read, so it says in words which scenario runs the
 * learner's functions and which rule it checks, and for a failure the
 * command that replays the very run.
 */
function testCode(test) {
  const lines = [`// ${test.title ?? test.name}`];
  if (test.status === "error") {
    lines.push(`// Loads ${basename(test.path)} as an ES module and checks that it exports the functions the exercise's README names.`);
    return lines.join("\n");
  }
  lines.push(`// Runs your ${test.exercise} functions in leaselab's simulation (several processes on an etcd-like store, with pauses, delays, clock drift and crashes) and checks every rule of the README's "What the tests check".`);
  if (test.rule && test.status !== "passed") {
    const statement = registry.exercise(test.exercise)?.rules.find((rule) => rule.id === test.rule)?.statement;
    if (statement) lines.push(`// Broken here: ${test.rule}: ${statement}`);
  }
  if (test.replayToken) lines.push(`// Replay this run: npx leaselab replay ${test.replayToken} ${basename(test.path)}`);
  return lines.join("\n");
}

export function renderExercism(graded) {
  const tests = flatTests(graded);
  const problems = graded.results.flatMap(({ report }) => report.problems);
  const result = { version: 3 };
  if (problems.length > 0) {
    result.status = "error";
    result.message = problems.join("\n");
  } else {
    result.status = tests.every((test) => test.status === "passed") ? "pass" : "fail";
  }
  result.tests = tests.map((test) => {
    const entry = { name: test.name, status: test.status === "passed" ? "pass" : test.status === "error" ? "error" : "fail" };
    if (entry.status !== "pass") entry.message = test.story;
    if (test.consoleLines.length > 0) entry.output = outputOf(test.consoleLines);
    entry.test_code = testCode(test);
    return entry;
  });
  return `${wellFormedJson(result)}\n`;
}
