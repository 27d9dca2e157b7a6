// Points per exercise for an assignment's total (`--points`, the Gradescope
// bundle's "points"): each named exercise's report is scaled so that its
// maximum is the points given, before any format sees it, so every format,
// the CSV, the table and the class report show the same numbers.
//
// Points are hundredths. A test's maximum is its share of the exercise's,
// by the largest-remainder method, so the tests' maxima add up to exactly
// the points given; a test scores its whole maximum when it passed in full,
// its share rounded down otherwise, never more than it could.

/** `graded` (`{ name, results: [{ exercise, report }] }`) with each exercise in `points` scaled to that many points; `points` null leaves it as it is. */
export function withPoints(graded, points) {
  if (!points) return graded;
  return { ...graded, results: graded.results.map((result) => (result.exercise in points ? { ...result, report: scaledReport(result.report, points[result.exercise]) } : result)) };
}

function scaledReport(report, points) {
  const total = Math.round(points * 100);
  const scale = (value) => (value * total) / report.maxScore;
  if (report.tests.length === 0) return { ...report, score: report.score === report.maxScore ? points : Math.floor(scale(report.score)) / 100, maxScore: points };
  const maxima = apportion(report.tests.map((test) => scale(test.maxScore)), total);
  const tests = report.tests.map((test, index) => {
    const maxScore = maxima[index];
    const score = test.score >= test.maxScore ? maxScore : Math.min(maxScore, Math.floor(scale(test.score)));
    return { ...test, score: score / 100, maxScore: maxScore / 100 };
  });
  const score = tests.reduce((sum, test) => sum + Math.round(test.score * 100), 0) / 100;
  return { ...report, score, maxScore: points, tests };
}

/** Whole numbers, each `shares[i]` rounded down or up, that add up to `total` (largest remainder first, then the earlier). */
function apportion(shares, total) {
  const whole = shares.map(Math.floor);
  let left = total - whole.reduce((sum, value) => sum + value, 0);
  const order = shares.map((share, index) => ({ index, remainder: share - Math.floor(share) })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    whole[index] += 1;
    left -= 1;
  }
  return whole;
}
