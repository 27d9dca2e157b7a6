// A grading split across workers, and put back together: each part runs
// some of the named scenarios (`scenarioPart: [index, count]`, see
// `grader::ScenarioPart`) and its own range of the random seeds; the merged
// report is the one a grading in one piece gives, byte for byte, because
// every run is independent of the others (each starts from the sandbox's
// sealed memory) and the grader stops the random schedules at their first
// failure, which the merge finds in seed order. The same rules place each
// test as the parts finish it (`placeTests`), so a page can show a test as
// soon as it is known, before the merge.

/**
 * The most parts one grading is split into, however many cores: each part
 * runs in a worker or thread of its own, which loads its own engines (tens
 * of MB) and starts them cold. The page's pool and the CLI both keep to it.
 */
export const PARTS_MAX = 4;

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
 * `problems`) gets the same report from every part, almost always: its
 * top-level code runs in each part, under a real-time backstop, so code
 * that takes about that long inside built-ins can run in one part and not
 * in another. Then the first part's problems are the report (a report with
 * problems has no tests to merge).
 */
export function mergeGrading(reports) {
  const [first] = reports;
  if (reports.length === 1) return first;
  const withProblems = reports.find((report) => report.problems.length > 0);
  if (withProblems) return withProblems;
  const parts = reports.length;
  const scenarioCounts = reports.map((report) => report.tests.length - 1);
  const scenarios = scenarioCounts.reduce((sum, count) => sum + count, 0);
  const tests = [];
  for (let position = 0; position < scenarios; position += 1) tests.push(reports[position % parts].tests[Math.floor(position / parts)]);
  tests.push(mergedRandom(reports.map((report) => report.tests[report.tests.length - 1])));
  return {
    exercise: first.exercise,
    graderVersion: first.graderVersion,
    score: tests.reduce((sum, test) => sum + test.score, 0),
    maxScore: tests.reduce((sum, test) => sum + test.maxScore, 0),
    tests,
    problems: first.problems,
  };
}

/**
 * The random-schedules test of the whole grading from the parts' (in part
 * order, `undefined` for a part that has not finished it), or null while it
 * is not known yet: the first part (in seed order) that failed gives the
 * failure, counting the runs of the parts before it, as soon as every part
 * before it has passed; if none failed, all passed.
 */
function mergedRandom(parts) {
  let before = 0;
  for (const test of parts) {
    if (test === undefined) return null;
    if (test.status !== "passed") return { ...test, runs: before + test.runs };
    before += test.runs;
  }
  return { ...parts[0], runs: before };
}

/** How many of the `scenarios` named scenarios part `index` of `parts` runs: those at positions `i % parts === index`. */
function scenariosOfPart(index, parts, scenarios) {
  return index < scenarios ? Math.floor((scenarios - 1 - index) / parts) + 1 : 0;
}

/**
 * Where a failure that part `part` found in the `index`-th test of its
 * report lands in the whole grading's report (split in `parts`, `tests`
 * tests): a named scenario's own position, or the random schedules' (a
 * failure in any part means they fail, whichever part's story the merge
 * then shows).
 */
export function failingPosition(parts, tests, part, index) {
  const scenarios = tests - 1;
  return index < scenariosOfPart(part, parts, scenarios) ? index * parts + part : scenarios;
}

/**
 * Places the tests of a grading split in `parts` (as `splitGrading` splits
 * it) as the parts finish them; the suite has `tests` tests (its named
 * scenarios, then the random schedules). Returns `place(part, index, test)`:
 * part `part` finished the `index`-th test of its report; it answers with
 * the tests of the whole grading this makes known, `[{ position, test }]`,
 * each exactly the entry `mergeGrading` gives at that position. A named
 * scenario is known when its part finishes it; the random schedules once
 * their verdict cannot change (a failure when every earlier part passed).
 */
export function placeTests(parts, tests) {
  const scenarios = tests - 1;
  const randoms = Array.from({ length: parts }, () => undefined);
  let randomPlaced = false;
  return (part, index, test) => {
    if (index < scenariosOfPart(part, parts, scenarios)) return [{ position: index * parts + part, test }];
    randoms[part] = test;
    const random = randomPlaced ? null : mergedRandom(randoms);
    if (random === null) return [];
    randomPlaced = true;
    return [{ position: scenarios, test: random }];
  };
}
