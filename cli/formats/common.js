// Shared helpers for the report formats.

/** Every test of a graded submission, flattened, with its exercise and file. */
export function flatTests(graded) {
  const tests = [];
  for (const { exercise, path, report } of graded.results) {
    if (report.problems.length > 0) {
      tests.push({ exercise, path, name: `${exercise}: loads and exports its functions`, status: "error", score: 0, maxScore: report.maxScore, message: report.problems.join("\n"), output: report.problems.join("\n") });
      continue;
    }
    for (const test of report.tests) {
      tests.push({
        exercise,
        path,
        name: `${exercise}: ${test.name}`,
        status: test.status,
        score: test.score,
        maxScore: test.maxScore,
        message: test.message,
        output: test.timeline ?? "",
        replayToken: test.counterexample?.replayToken ?? null,
      });
    }
  }
  return tests;
}

export function totals(graded) {
  let score = 0;
  let maxScore = 0;
  for (const { report } of graded.results) {
    score += report.score;
    maxScore += report.maxScore ?? 0;
  }
  return { score, maxScore };
}

/** A message cut to `max` characters, marked when cut. */
export function cut(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Did every test of every exercise pass (and nothing fail to load)? */
export function allPassed(graded) {
  return graded.results.every(({ report }) => report.problems.length === 0 && report.tests.every((test) => test.status === "passed"));
}
