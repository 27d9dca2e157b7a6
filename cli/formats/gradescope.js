// Gradescope's autograder results.json
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/): an
// overall score and one entry per test with its score, max_score, status,
// output and visibility. Outputs are "text" (shown as they are, in a <pre>):
// the timelines are column-aligned, which Gradescope's default
// simple_format would not keep.
//
// Learners read this file. A replay token carries the seed it was graded on,
// so when the course grades on a secret seed (`secretSeed`: any seed but the
// default, as --seed or the bundle's config.json sets it) no learner-visible
// output holds one: each failing test says the replay is withheld, and the
// tokens go to one test with visibility "hidden" (the spec: never shown to
// students; instructors see every test) and to `extra_data` (stored with the
// results, never shown to students).
import { flatTests, totals, withoutReplayLine } from "./common.js";
import { wellFormedJson } from "./escape.js";

const WITHHELD = "replay: withheld, because this course grades on a secret seed and a replay token would reveal it";

/** The line above the tests: what was graded, what is missing, and what could not be graded, in words. */
function topOutput(graded, by) {
  const gradedNames = graded.results.filter((r) => r.report.problems.length === 0).map((r) => r.exercise);
  const missing = graded.results.filter((r) => r.missing).map((r) => r.exercise);
  const broken = graded.results.filter((r) => !r.missing && r.report.problems.length > 0).map((r) => r.exercise);
  const parts = [];
  if (gradedNames.length > 0) parts.push(`leaselab graded ${gradedNames.join(", ")}${by}`);
  else parts.push(`leaselab could not grade any exercise of this submission${by}`);
  if (missing.length > 0) parts.push(`Missing, so scoring 0: ${missing.join(", ")} (each test below says which file to add)`);
  if (broken.length > 0) parts.push(`Not graded, so scoring 0: ${broken.join(", ")} (each test below says why)`);
  return parts.join(". ") + ".";
}

export function renderGradescope(graded, { secretSeed = false } = {}) {
  const { score } = totals(graded);
  const flat = flatTests(graded);
  const tests = flat.map((test) => ({
    name: test.name,
    score: test.score,
    max_score: test.maxScore,
    status: test.status === "passed" ? "passed" : "failed",
    output: test.status === "passed" ? "" : secretSeed && test.replayToken ? `${withoutReplayLine(test.story, test.replayToken)}\n${WITHHELD}` : test.story,
    visibility: "visible",
  }));
  const withTokens = flat.filter((test) => test.status !== "passed" && test.replayToken);
  let extraData;
  if (secretSeed && withTokens.length > 0) {
    tests.push({
      name: "replay tokens (for course staff: hidden from learners, as they carry the secret seed)",
      score: 0,
      max_score: 0,
      status: "passed",
      output: withTokens.map((test) => `${test.name}\n  replay: ${test.replayToken}`).join("\n"),
      visibility: "hidden",
    });
    extraData = { replay_tokens: Object.fromEntries(withTokens.map((test) => [test.name, test.replayToken])) };
  }
  // The grader's version, as every report carries it: a regrade under another version may differ.
  const versions = [...new Set(graded.results.map((r) => r.report.graderVersion).filter(Boolean))];
  const by = versions.length > 0 ? ` with grader ${versions.join(", ")}` : "";
  const output = topOutput(graded, by);
  const results = { score, output, output_format: "text", test_output_format: "text", visibility: "visible", stdout_visibility: "hidden", tests };
  if (extraData) results.extra_data = extraData;
  return `${wellFormedJson(results)}\n`;
}
