// The accuracy corpus (tests/fixtures/accuracy/<exercise>/*.js): learner-style
// submissions written for the accuracy tests, beyond the lesson's solutions
// and the ports of the Rust variants. Each is graded through the real runner
// (QuickJS in Node, the grader's wasm), as the page and the CLI grade.
//
// A file's header says what it is:
//
//   // expect: pass                a correct style: full marks at the default
//   // style: <one line>           budget (200 random schedules) and at ten
//                                  times it (2000)
//
//   // expect: fail                one realistic mistake: it must fail at the
//   // rule: <id>                  default budget, some failing test naming
//   // message: <regex>            <id> with a message matching <regex> (the
//   // bug: <one line>             story names the actual cause)
//
// Two test files read it: accuracy.node.test.mjs (every file at the default
// budget, with the detection and false-fail rates BENCHMARKS.md records) and
// accuracy-ten-times.node.test.mjs (the correct styles on the other 1,800
// schedules of ten times the budget). They are two files so that the test
// runner can grade them side by side, one per core.
import { readFileSync, readdirSync } from "node:fs";
import { loadNodeRegistry } from "../../runner/node/engines.js";
import { gradeSource } from "../../runner/grade.js";
import { parseHeader } from "./header.mjs";

const CORPUS = new URL("../fixtures/accuracy/", import.meta.url);
const registry = await loadNodeRegistry();
/** Every exercise in the grader's registry, in its order: each must have a corpus folder. */
export const EXERCISES = registry.names;
/** The corpus folders there are (an exercise's missing one fails the test, named). */
export const FOLDERS = readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
/** The default budget every host grades with (the grader's registry). */
export const DEFAULT_SEEDS = registry.defaults.seeds;
/** The first random schedule of the default budget. */
export const FIRST_SEED = registry.defaults.firstSeed;

/** Every corpus file: `{ exercise, file, source, expect, style | rule, message, bug }`. */
export const corpus = EXERCISES.filter((exercise) => FOLDERS.includes(exercise)).flatMap((exercise) =>
  readdirSync(new URL(`${exercise}/`, CORPUS))
    .filter((file) => file.endsWith(".js"))
    .sort()
    .map((file) => {
      const source = readFileSync(new URL(`${exercise}/${file}`, CORPUS), "utf8");
      return { exercise, file, source, ...parseHeader(source) };
    }),
);

/** Grades a corpus file with `options` (`{ seeds, firstSeed? }`). */
export const grade = (engines, entry, options) => gradeSource(engines, { exercise: entry.exercise, source: entry.source, options });
export const failures = (report) => report.tests.filter((t) => t.status !== "passed");
export const describeFailures = (report) =>
  [...report.problems, ...failures(report).map((t) => `${t.name}: [${t.counterexample?.violation.invariant}] ${t.message}`)].join("\n");
