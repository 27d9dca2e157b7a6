// Grading one exercise file with the shared runner (in a grading thread).
import { gradeSource } from "../runner/grade.js";

/** The suite report for one file; failing tests carry the timeline text of their counterexample. */
export async function gradeFile(engines, { exercise, source }, { firstSeed, seeds }) {
  const report = await gradeSource(engines, { exercise, source, options: { firstSeed, seeds } });
  for (const test of report.tests) {
    if (test.counterexample) test.timeline = engines.leaselab.renderCounterexample(JSON.stringify(test.counterexample));
  }
  return report;
}
