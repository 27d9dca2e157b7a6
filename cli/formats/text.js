// The readable report: a score per exercise, a line per test, and for each
// failure its one-line story, the minimal counterexample as a timeline, and
// the replay token.
import { totals } from "./common.js";

export function renderText(graded) {
  const lines = [];
  for (const { exercise, path, report } of graded.results) {
    lines.push(`${path} (${exercise}): ${report.score}/${report.maxScore}`);
    for (const problem of report.problems) lines.push(`  error: ${problem}`);
    for (const test of report.tests) {
      const mark = test.status === "passed" ? "ok  " : "FAIL";
      lines.push(`  ${mark} ${test.name}${test.runs > 1 ? ` (${test.runs} schedules)` : ""}`);
      if (test.status !== "passed") {
        // The timeline starts with the message; without one, print the message alone.
        const story = test.timeline ?? test.message;
        for (const line of story.trimEnd().split("\n")) lines.push(`       ${line}`);
      }
    }
    lines.push("");
  }
  const { score, maxScore } = totals(graded);
  lines.push(`${graded.name}: ${score}/${maxScore} points`);
  return `${lines.join("\n")}\n`;
}
