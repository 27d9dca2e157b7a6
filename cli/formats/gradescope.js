// Gradescope's autograder results.json: an overall score and one entry per
// test with its score, max_score, status, output and visibility.
import { flatTests, totals } from "./common.js";
import { wellFormedJson } from "./escape.js";

export function renderGradescope(graded) {
  const { score } = totals(graded);
  const tests = flatTests(graded).map((test) => ({
    name: test.name,
    score: test.score,
    max_score: test.maxScore,
    status: test.status === "passed" ? "passed" : "failed",
    output: test.status === "passed" ? "" : [test.message, test.output, test.replayToken ? `replay: ${test.replayToken}` : ""].filter(Boolean).join("\n\n"),
    visibility: "visible",
  }));
  return `${wellFormedJson({ score, output: `leaselab graded ${graded.results.map((r) => r.exercise).join(", ")}`, visibility: "visible", stdout_visibility: "hidden", tests })}\n`;
}
