// The grader's own report, for tools: the submission with every exercise's
// full suite report (tests, counterexamples with traces, replay tokens).
// Grading times (which JUnit reports) are left out: the same submission
// gives the same JSON, byte for byte.
import { wellFormedJson } from "./escape.js";

export function renderJson(graded) {
  const results = graded.results.map(({ timing, ...result }) => result);
  return `${wellFormedJson({ format: "leaselab-report", version: 1, ...graded, results })}\n`;
}
