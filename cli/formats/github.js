// GitHub Actions: one workflow annotation per failing test (shown on the
// file in the pull request), and a Markdown job summary. Learner text is
// escaped for each: workflow-command encoding in annotations (so it cannot
// end the command or start another), Markdown escapes in the summary (so it
// cannot make headings, links, images, HTML or table cells).
import { markdown, visibleLines } from "./escape.js";
import { flatTests, totals } from "./common.js";

/** Workflow commands need %, CR and LF escaped in messages and properties. */
function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text) {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** Lines kept (as %0A), terminal control characters shown as escapes. */
const annotationText = (text) => visibleLines(text).join("\n");

/** `{ annotations, summary }`: commands for standard output, Markdown for $GITHUB_STEP_SUMMARY. */
export function renderGithub(graded) {
  const tests = flatTests(graded);
  const annotations = tests
    .filter((test) => test.status !== "passed")
    .map((test) => `::error file=${escapeProperty(annotationText(test.path))},title=${escapeProperty(annotationText(test.name))}::${escapeData(annotationText(test.message ?? ""))}`);
  const { score, maxScore } = totals(graded);
  const summary = [
    `## leaselab: ${markdown(graded.name)} scored ${score}/${maxScore}`,
    "",
    "| exercise | test | result |",
    "|---|---|---|",
    ...tests.map((test) => `| ${markdown(test.exercise)} | ${markdown(test.name)} | ${test.status === "passed" ? "passed" : `**${test.status}**: ${markdown(test.message ?? "")}`} |`),
    "",
  ].join("\n");
  return { annotations: `${annotations.join("\n")}${annotations.length ? "\n" : ""}`, summary: `${summary}\n` };
}
