// GitHub Actions: one workflow annotation per exercise file with a failing
// test (shown on the file in the pull request), and a Markdown job summary
// with every test. One per file, not one per test: GitHub shows at most 10
// error annotations per step and drops the rest without a word
// (actions/toolkit, docs/problem-matchers.md), and one submission's starters
// fail 33 tests; five files always fit, and each annotation still sits on
// its file, with the count and the first failure, pointing at the summary
// for the others. A file that --require asks for and the submission lacks
// has no file to sit on (an annotation on a path that does not exist is
// shown on nothing): its annotation has no `file`, so GitHub shows it on the
// run, titled "<exercise>: <file> is missing". Learner text is
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
  const annotations = graded.results.flatMap(({ exercise, path, missing }) => {
    const own = tests.filter((test) => test.path === path && test.exercise === exercise);
    const failing = own.filter((test) => test.status !== "passed");
    if (failing.length === 0) return [];
    // A missing file (--require) has no file to sit on: its annotation goes on the run, titled for what is missing.
    if (missing) return [`::error title=${escapeProperty(annotationText(own[0].name))}::${escapeData(annotationText(own[0].message ?? ""))}`];
    const [first] = failing;
    const title = `${exercise}: ${failing.length} of ${own.length} ${own.length === 1 ? "test" : "tests"} failed`;
    const message = failing.length === 1 ? `${first.name}: ${first.message ?? ""}` : `first, ${first.name}: ${first.message ?? ""}\n(the job summary has the other ${failing.length - 1})`;
    return [`::error file=${escapeProperty(annotationText(path))},title=${escapeProperty(annotationText(title))}::${escapeData(annotationText(message))}`];
  });
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
