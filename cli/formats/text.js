// The readable report: a score per exercise, a line per test, and for each
// failure its one-line story, the minimal counterexample as a timeline, and
// the replay token.
//
// Only this file starts report lines. Everything a submission controls (its
// path, messages, console output inside timelines) is shown with control
// characters as visible escapes, and every line of it is indented under its
// test, so no learner text can clear the screen, recolour it, or pass for an
// "ok" line or a score.
import { visible, visibleLines } from "./escape.js";
import { totals } from "./common.js";

const STORY_INDENT = "       ";

export function renderText(graded) {
  const lines = [];
  for (const { exercise, path, report } of graded.results) {
    lines.push(`${visible(path)} (${exercise}): ${report.score}/${report.maxScore}`);
    for (const problem of report.problems) {
      const [first, ...rest] = visibleLines(problem);
      lines.push(`  error: ${first}`, ...rest.map((line) => `${STORY_INDENT}  ${line}`));
    }
    for (const test of report.tests) {
      const mark = test.status === "passed" ? "ok  " : "FAIL";
      lines.push(`  ${mark} ${visible(test.name)}${test.runs > 1 ? ` (${test.runs} schedules)` : ""}`);
      if (test.status !== "passed") {
        // The timeline starts with the message; without one, print the message alone.
        const story = test.timeline ?? test.message ?? "";
        for (const line of visibleLines(story.trimEnd())) lines.push(`${STORY_INDENT}${line}`);
      }
    }
    lines.push("");
  }
  const { score, maxScore } = totals(graded);
  lines.push(`${visible(graded.name)}: ${score}/${maxScore} points`);
  return `${lines.join("\n")}\n`;
}
