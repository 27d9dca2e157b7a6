// Grading one exercise file with the shared runner (in a grading thread).
import { basename } from "node:path";
import { gradeSource } from "../runner/grade.js";

/**
 * The name the learner's module has in its messages ("toplevel.js:1:7"):
 * the file's own, when it is graded under another name (--exercise) and is
 * a plain file name; else the exercise's (what the page always uses).
 */
export function moduleName(path) {
  const name = path ? basename(path) : "";
  return /^[A-Za-z0-9_.-]{1,100}\.m?js$/.test(name) ? name : undefined;
}

/**
 * The suite report for one file (or for one part of its grading, with
 * `scenarioPart`, runner/merge.js); failing tests carry the timeline text of
 * their counterexample. `onTest(test)`, if given, receives each test (with
 * its timeline) as soon as it is finished.
 */
export async function gradeFile(engines, { exercise, path, source }, { firstSeed, seeds, scenarioPart }, onTest) {
  const withTimeline = (test) => {
    if (test.counterexample) test.timeline = engines.leaselab.renderCounterexample(JSON.stringify(test.counterexample));
    return test;
  };
  // A part of a split grading names its scenarioPart (runner/merge.js); a whole grading names none.
  const options = scenarioPart ? { firstSeed, seeds, scenarioPart } : { firstSeed, seeds };
  const report = await gradeSource(engines, { exercise, source, fileName: moduleName(path), options, onTest: onTest && ((test) => onTest(withTimeline(test))) });
  report.tests.forEach(withTimeline);
  return report;
}
