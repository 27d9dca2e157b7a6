// Grading one exercise file with the shared runner, and the report of a file
// that could not be graded at all.
import { gradeSource } from "../runner/grade.js";
import { registry } from "./registry.js";

/** The suite report for one file; failing tests carry the timeline text of their counterexample. */
export async function gradeFile(engines, { exercise, source }, { firstSeed, seeds }) {
  const report = await gradeSource(engines, { exercise, source, options: { firstSeed, seeds } });
  for (const test of report.tests) {
    if (test.counterexample) test.timeline = engines.leaselab.renderCounterexample(JSON.stringify(test.counterexample));
  }
  return report;
}

/**
 * The report of a file that was refused, ran out of time or memory, or broke
 * the grader: the shape the runner gives a file that could not be run (no
 * tests, one problem), so every format shows it as an error scoring 0.
 */
export function errorReport(exercise, maxScore, problem) {
  return { exercise, graderVersion: registry.graderVersion, score: 0, maxScore, problems: [problem], tests: [] };
}
