// GitHub Actions: one workflow annotation per exercise file with a failing
// test (shown on the file in the pull request), and a Markdown job summary
// with every test. One per file, not one per test: GitHub shows at most 10
// error annotations per step and drops the rest without a word
// (actions/toolkit, docs/problem-matchers.md), and one submission's starters
// fail 33 tests; five files always fit, and each annotation still sits on
// its file, with the count and the first failure, pointing at the summary
// for the others. When the failure's message names a place in the file
// (`lock.js:6:13: SyntaxError …`), the annotation sits on that line and
// column. A file that the submission lacks has no file to sit on (an
// annotation on a path that does not exist is shown on nothing): its
// annotation has no `file`, so GitHub shows it on the run, titled
// "<exercise>: <file> is missing".
//
// The summary has a section per exercise (its score, then a row per test,
// named once), and under it each failure's story: the counterexample's
// timeline and its replay token, folded in a <details> block. A course that
// grades on a secret seed (`secretSeed`) gets the stories without tokens, as
// on Gradescope, since a token carries the seed.
//
// Learner text is escaped for each place: workflow-command encoding in
// annotations (so it cannot end the command or start another), Markdown
// escapes in table cells (so it cannot make headings, links, images, HTML or
// cells), HTML escapes inside <pre>.
import { basename } from "node:path";
import { markdown, visibleLines } from "./escape.js";
import { flatTests, totals, withoutReplayLine } from "./common.js";

/** Workflow commands need %, CR and LF escaped in messages and properties. */
function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text) {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** Lines kept (as %0A), terminal control characters shown as escapes. */
const annotationText = (text) => visibleLines(text).join("\n");

/** Text inside <pre> in the summary: lines kept, control characters as escapes, HTML inert. */
const preText = (text) =>
  visibleLines(text)
    .map((line) => line.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"))
    .join("\n");

/** `{ line, col }` where `message` names a place in the file called `name` (`lock.js:6:13`), or null. */
export function placeIn(message, name) {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`(?:^|[\\s(/])${escaped}:(\\d+)(?::(\\d+))?`).exec(message ?? "");
  if (!match) return null;
  return { line: Number(match[1]), col: match[2] ? Number(match[2]) : null };
}

const WITHHELD = "replay: withheld, because this course grades on a secret seed and a replay token would reveal it";

/** `{ annotations, summary }`: commands for standard output, Markdown for $GITHUB_STEP_SUMMARY. */
export function renderGithub(graded, { secretSeed = false } = {}) {
  const tests = flatTests(graded);
  const annotations = graded.results.flatMap(({ exercise, path, missing }) => {
    const own = tests.filter((test) => test.path === path && test.exercise === exercise);
    const failing = own.filter((test) => test.status !== "passed");
    if (failing.length === 0) return [];
    // A missing file (--require) has no file to sit on: its annotation goes on the run, titled for what is missing.
    if (missing) return [`::error title=${escapeProperty(annotationText(own[0].name))}::${escapeData(annotationText(own[0].message ?? ""))}`];
    const [first] = failing;
    const title = `${exercise}: ${failing.length} of ${own.length} ${own.length === 1 ? "test" : "tests"} failed`;
    const message = failing.length === 1 ? `${first.name}: ${first.message ?? ""}` : `first, ${first.name}: ${first.message ?? ""}\n(the job summary has the other ${failing.length - 1}, each with its timeline)`;
    const place = placeIn(first.message, basename(path));
    const at = place ? `,line=${place.line}${place.col ? `,col=${place.col}` : ""}` : "";
    return [`::error file=${escapeProperty(annotationText(path))}${at},title=${escapeProperty(annotationText(title))}::${escapeData(annotationText(message))}`];
  });
  const { score, maxScore } = totals(graded);
  const lines = [`## leaselab: ${markdown(graded.name)} scored ${score}/${maxScore}`, ""];
  for (const { exercise, path, report } of graded.results) {
    const own = tests.filter((test) => test.path === path && test.exercise === exercise);
    lines.push(`### ${markdown(exercise)} (${markdown(path)}): ${report.score}/${report.maxScore}`, "", "| test | result |", "|---|---|");
    for (const test of own) {
      const title = test.title ?? test.name;
      lines.push(`| ${markdown(title)} | ${test.status === "passed" ? "passed" : `**${test.status}**: ${markdown(test.message ?? "")}`} |`);
    }
    lines.push("");
    for (const test of own.filter((one) => one.status !== "passed" && one.story !== one.message)) {
      const story = secretSeed && test.replayToken ? `${withoutReplayLine(test.story, test.replayToken)}\n${WITHHELD}` : test.story;
      lines.push(`<details><summary>${preText(test.title ?? test.name)}: the failing run${test.replayToken && !secretSeed ? " and its replay token" : ""}</summary>`, "", `<pre>${preText(story.trimEnd())}</pre>`, "", "</details>", "");
    }
  }
  return { annotations: `${annotations.join("\n")}${annotations.length ? "\n" : ""}`, summary: `${lines.join("\n")}\n` };
}
