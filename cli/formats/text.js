// The readable report: per exercise file a head line, a line per test and,
// for each failure, its one-line story, the minimal counterexample as a
// timeline and the replay token, then the file's score; last, the
// submission's total.
//
// It is built from pieces in the order they become known (a file's head,
// each test as it finishes, the file's score), so that a single submission
// can be printed as it is graded (text-stream.js) with exactly the bytes
// `renderText` gives for the finished report.
//
// Only this file starts report lines. Everything a submission controls (its
// path, messages, console output inside timelines) is shown with control
// characters as visible escapes, and every line of it is indented under its
// test, so no learner text can clear the screen, recolour it, or pass for an
// "ok" line or a score.
import { visible, visibleLines } from "./escape.js";
import { storyOf, totals } from "./common.js";

const STORY_INDENT = "       ";

/** A file's first line: which file, graded as which exercise. */
export function textFileHead({ exercise, path }) {
  return `${visible(path)} (${exercise})\n`;
}

/** One test's lines: its verdict, and for a failure its story. */
export function textTest(test) {
  const mark = test.status === "passed" ? "ok  " : "FAIL";
  const lines = [`  ${mark} ${visible(test.name)}${test.runs > 1 ? ` (${test.runs} schedules)` : ""}`];
  if (test.status !== "passed") {
    for (const line of visibleLines(storyOf(test).trimEnd())) lines.push(`${STORY_INDENT}${line}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A file's last lines, once its report is final: why it could not be graded (if so), its score, a blank line. */
export function textFileTail(report) {
  const lines = [];
  for (const problem of report.problems) {
    const [first, ...rest] = visibleLines(problem);
    lines.push(`  error: ${first}`, ...rest.map((line) => `${STORY_INDENT}  ${line}`));
  }
  lines.push(`  score: ${report.score}/${report.maxScore}`, "");
  return `${lines.join("\n")}\n`;
}

/** The submission's total, the report's last line. */
export function textTotal(graded) {
  const { score, maxScore } = totals(graded);
  return `${visible(graded.name)}: ${score}/${maxScore} points\n`;
}

export function renderText(graded) {
  let text = "";
  for (const result of graded.results) text += textFileHead(result) + result.report.tests.map(textTest).join("") + textFileTail(result.report);
  return text + textTotal(graded);
}
