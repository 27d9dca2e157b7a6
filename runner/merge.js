// A grading split across workers, and put back together: each part runs
// some of the named scenarios (`scenarioPart: [index, count]`, see
// `grader::ScenarioPart`) and its own range of the random seeds; the merged
// report is the one a grading in one piece gives, byte for byte, because
// every run is independent of the others (each starts from the sandbox's
// sealed memory) and the grader stops the random schedules at their first
// failure, which the merge finds in seed order.

/**
 * The grade requests for `parts` workers: `[{ ...options, firstSeed, seeds,
 * scenarioPart }]`, the seeds split into contiguous ranges in order.
 * `options.seeds` is the whole budget; `firstSeed` defaults to 1, the
 * grader's default.
 */
export function splitGrading(options, parts) {
  const firstSeed = options.firstSeed ?? 1;
  const { seeds } = options;
  return Array.from({ length: parts }, (_, index) => {
    const from = Math.floor((seeds * index) / parts);
    const to = Math.floor((seeds * (index + 1)) / parts);
    return { ...options, firstSeed: firstSeed + from, seeds: to - from, scenarioPart: [index, parts] };
  });
}

/**
 * The report of the whole grading from the parts' reports (in part order),
 * as `gradeSource` gives them. A submission that could not be run (its
 * `problems`) gets the same report from every part: the first is it.
 */
export function mergeGrading(reports) {
  const [first] = reports;
  if (reports.length === 1 || first.problems.length > 0) return first;
  const parts = reports.length;
  const scenarioCounts = reports.map((report) => report.tests.length - 1);
  const scenarios = scenarioCounts.reduce((sum, count) => sum + count, 0);
  const tests = [];
  for (let position = 0; position < scenarios; position += 1) tests.push(reports[position % parts].tests[Math.floor(position / parts)]);
  // The random schedules: the first part (in seed order) that failed gives
  // the failure, counting the runs of the parts before it; else all passed.
  let before = 0;
  let random = null;
  for (const report of reports) {
    const test = report.tests[report.tests.length - 1];
    if (test.status !== "passed") {
      random = { ...test, runs: before + test.runs };
      break;
    }
    before += test.runs;
  }
  tests.push(random ?? { ...first.tests[first.tests.length - 1], runs: before });
  return {
    exercise: first.exercise,
    graderVersion: first.graderVersion,
    score: tests.reduce((sum, test) => sum + test.score, 0),
    maxScore: tests.reduce((sum, test) => sum + test.maxScore, 0),
    tests,
    problems: first.problems,
  };
}
