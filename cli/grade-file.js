// Grading one submission (every exercise file in it) with the shared runner.
import { gradeSource } from "../web/src/runner/grade.js";

/** `{ name, results: [{ exercise, path, report }] }`; reports carry the timeline text of failures. */
export async function gradeSubmission(engines, submission, { firstSeed, seeds }) {
  const results = [];
  for (const file of submission.files) {
    const report = await gradeSource(engines, { exercise: file.exercise, source: file.source, options: { firstSeed, seeds } });
    for (const test of report.tests) {
      if (test.counterexample) test.timeline = engines.leaselab.renderCounterexample(JSON.stringify(test.counterexample));
    }
    results.push({ exercise: file.exercise, path: file.path, report });
  }
  return { name: submission.name, results };
}

/** Did every test of every exercise pass (and nothing fail to load)? */
export function allPassed(graded) {
  return graded.results.every(({ report }) => report.problems.length === 0 && report.tests.every((test) => test.status === "passed"));
}
