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
import { flatTests } from "./common.js";
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
    entry.test_code = test.replayToken ? `// replay this run: ${test.replayToken}` : `// ${test.name}`;
    return entry;
  });
  return `${wellFormedJson(result)}\n`;
}
