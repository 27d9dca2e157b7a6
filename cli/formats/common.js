// Shared helpers for the report formats.
import { basename } from "node:path";

/**
 * What a failing test says, once: its timeline, which begins with the
 * message (`violated: …`) and ends with the replay token (`replay: …`), or
 * the message alone when the test has no counterexample. A format prints
 * this, not the message and token again beside it.
 */
export function storyOf(test) {
  return test.timeline ?? test.message ?? "";
}

/**
 * The lines the learner's code printed (console.log and the like) in the run
 * a failing test's counterexample shows, each as `p1: text` (which process
 * printed it); none for a test without a counterexample. The sandbox has
 * already made each line single-line text.
 *
 * A very long run's counterexample leaves events out of its middle
 * (`counterexample.omitted`: the trace shows the first `after` events, then
 * `count` are left out, then the rest), and whatever the code printed in
 * them with them. When it printed anything in the events shown, one line
 * `… (N events not shown: …)` stands where they were, even with every shown
 * line on one side of it: the learner then knows their output is not whole
 * there, and where.
 */
export function consoleLinesOf(test) {
  const lines = [];
  const omitted = test.counterexample?.omitted ?? null;
  let gap = null;
  for (const [index, event] of (test.counterexample?.trace ?? []).entries()) {
    if (omitted && index === omitted.after) gap = lines.length;
    const note = event.happening?.what === "note" ? event.happening.note : null;
    // Processes are p1, p2, … as the timeline names them (timeline.rs); the sandbox's console is always a process's.
    if (note?.note === "console") lines.push(`${Number.isInteger(event.process) ? `p${event.process + 1}` : "store"}: ${note.text}`);
  }
  if (omitted && lines.length > 0) lines.splice(gap ?? lines.length, 0, omittedLine(omitted.count));
  return lines;
}

/** The line that stands for the events a long counterexample leaves out, among its console lines. */
export function omittedLine(count) {
  return `… (${count} events not shown, with any lines printed in them; the replay token reproduces every one)`;
}

/** `story` without its last line when that line is `replay: <token>` (timeline.rs ends every timeline so). */
export function withoutReplayLine(story, token) {
  const lines = story.trimEnd().split("\n");
  if (token && lines.at(-1) === `replay: ${token}`) lines.pop();
  return lines.join("\n");
}

/**
 * Every test of a graded submission, flattened, with its exercise and file:
 * `{ exercise, path, missing, name, title, status, score, maxScore, message,
 * story, consoleLines, replayToken, rule }` (`name` is `<exercise>: <title>`;
 * `rule`: ruleOf). A file that could not be graded (refused,
 * missing, did not load) is one test with status "error" whose message and
 * story are its problems; a missing file's (`missing`: --require asked for
 * it and the submission lacks it) is named `<exercise>: <file> is missing`.
 */
export function flatTests(graded) {
  const tests = [];
  for (const { exercise, path, missing = false, report } of graded.results) {
    if (report.problems.length > 0) {
      const problems = report.problems.join("\n");
      // A missing file (--require) never loaded: its test is named for what is wrong.
      const title = missing ? `${basename(path)} is missing` : "loads and exports its functions";
      const name = `${exercise}: ${title}`;
      tests.push({ exercise, path, missing, name, status: "error", score: 0, maxScore: report.maxScore, message: problems, story: problems, consoleLines: [], replayToken: null, rule: ruleOf(null, { missing }), title });
      continue;
    }
    for (const test of report.tests) {
      tests.push({
        exercise,
        path,
        missing,
        name: `${exercise}: ${test.name}`,
        status: test.status,
        score: test.score,
        maxScore: test.maxScore,
        message: test.message,
        story: storyOf(test),
        consoleLines: consoleLinesOf(test),
        replayToken: test.counterexample?.replayToken ?? null,
        rule: ruleOf(test),
        title: test.name,
      });
    }
  }
  return tests;
}

/** The submission's score and maximum; points scaled to hundredths (cli/points.js) add up to hundredths. */
export function totals(graded) {
  let score = 0;
  let maxScore = 0;
  for (const { report } of graded.results) {
    score += report.score;
    maxScore += report.maxScore ?? 0;
  }
  return { score: hundredths(score), maxScore: hundredths(maxScore) };
}

/** A number of points as it is shown: whole, or to at most two decimals. */
export function hundredths(points) {
  return Math.round(points * 100) / 100;
}

/**
 * The rule a failing test broke (`lock-has-ttl`), or for a file that could
 * not be graded what kept it from being graded: `missing-file` (the
 * submission lacks it) or `not-graded` (refused, does not load, took too
 * long); null for a test that passed.
 */
export function ruleOf(test, { missing = false } = {}) {
  if (test === null) return missing ? "missing-file" : "not-graded";
  if (test.status === "passed") return null;
  return test.rule ?? test.counterexample?.violation?.invariant ?? "not-graded";
}

/** Did every test of every exercise pass (and nothing fail to load)? */
export function allPassed(graded) {
  return graded.results.every(({ report }) => report.problems.length === 0 && report.tests.every((test) => test.status === "passed"));
}
