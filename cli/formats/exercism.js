// Exercism's test-runner results.json, version 3: an overall status, and per
// test a status, message, output (at most 500 characters), test_code and
// task_id (the exercise's place in the lesson).
import { EXERCISE_NAMES } from "../args.js";
import { cut, flatTests } from "./common.js";
import { wellFormedJson } from "./escape.js";

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
    if (entry.status !== "pass") entry.message = test.message;
    if (test.output) entry.output = cut(test.output, 500);
    entry.test_code = test.replayToken ? `// replay this run: ${test.replayToken}` : `// ${test.name}`;
    entry.task_id = EXERCISE_NAMES.indexOf(test.exercise) + 1;
    return entry;
  });
  return `${wellFormedJson(result)}\n`;
}
