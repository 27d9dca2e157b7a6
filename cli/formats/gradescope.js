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
  // The grader's version, as every report carries it: a regrade under another version may differ.
  const versions = [...new Set(graded.results.map((r) => r.report.graderVersion).filter(Boolean))];
  const by = versions.length > 0 ? ` with grader ${versions.join(", ")}` : "";
  const output = `leaselab graded ${graded.results.map((r) => r.exercise).join(", ")}${by}`;
  return `${wellFormedJson({ score, output, visibility: "visible", stdout_visibility: "hidden", tests })}\n`;
}
