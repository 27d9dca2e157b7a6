// The grader's own report, for tools: the submission with every exercise's
// full suite report (tests, counterexamples with traces, replay tokens).
import { wellFormedJson } from "./escape.js";

export function renderJson(graded) {
  return `${wellFormedJson({ format: "leaselab-report", version: 1, ...graded })}\n`;
}
