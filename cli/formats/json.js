// The grader's own report, for tools: the submission with every exercise's
// full suite report (tests, counterexamples with traces, replay tokens).
export function renderJson(graded) {
  return `${JSON.stringify({ format: "leaselab-report", version: 1, ...graded }, null, 2)}\n`;
}
