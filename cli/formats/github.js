// GitHub Actions: one workflow annotation per failing test (shown on the
// file in the pull request), and a Markdown job summary.
import { flatTests, totals } from "./common.js";

/** Workflow commands need %, CR and LF escaped in messages and properties. */
function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text) {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `{ annotations, summary }`: commands for standard output, Markdown for $GITHUB_STEP_SUMMARY. */
export function renderGithub(graded) {
  const tests = flatTests(graded);
  const annotations = tests
    .filter((test) => test.status !== "passed")
    .map((test) => `::error file=${escapeProperty(test.path)},title=${escapeProperty(test.name)}::${escapeData(test.message)}`);
  const { score, maxScore } = totals(graded);
  const summary = [
    `## leaselab: ${graded.name} scored ${score}/${maxScore}`,
    "",
    "| exercise | test | result |",
    "|---|---|---|",
    ...tests.map((test) => `| ${test.exercise} | ${test.name.replace(/\|/g, "\\|")} | ${test.status === "passed" ? "passed" : `**${test.status}**: ${test.message.replace(/\|/g, "\\|")}`} |`),
    "",
  ].join("\n");
  return { annotations: `${annotations.join("\n")}${annotations.length ? "\n" : ""}`, summary: `${summary}\n` };
}
