// Grader accuracy at the default budget: every file of the accuracy corpus
// (tests/support/accuracy.mjs says what the corpus is and how a file says
// what it is) graded as a learner's "Run tests" grades it. A correct style
// must get full marks; a single-bug variant must fail on the rule it breaks,
// with a story that names its actual cause.
//
// The test prints the detection rate (bugs caught with the right rule and
// story) and the false-fail rate (correct styles that failed); BENCHMARKS.md
// records them. accuracy-ten-times.node.test.mjs grades the correct styles
// on ten times the budget.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { loadNodeEngines } from "../runner/node/engines.js";
import { corpus, DEFAULT_SEEDS, describeFailures, EXERCISES, FOLDERS, failures, grade } from "./support/accuracy.mjs";

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

const tally = { bugs: 0, detected: 0, correct: 0, falseFails: 0, missed: [], wrongly: [] };

test("every exercise in the registry has a corpus folder, and every folder is an exercise", () => {
  for (const exercise of EXERCISES) {
    assert.ok(
      FOLDERS.includes(exercise),
      `${exercise}: no accuracy corpus (tests/fixtures/accuracy/${exercise}/ is missing); every exercise in the grader's registry needs one`,
    );
  }
  for (const folder of FOLDERS) {
    assert.ok(EXERCISES.includes(folder), `tests/fixtures/accuracy/${folder}/: not an exercise in the grader's registry (${EXERCISES.join(", ")})`);
  }
});

test("every exercise has at least 4 correct styles and 6 single-bug variants", () => {
  for (const exercise of EXERCISES) {
    const mine = corpus.filter((entry) => entry.exercise === exercise);
    assert.ok(mine.filter((entry) => entry.expect === "pass").length >= 4, `${exercise}: too few correct styles`);
    assert.ok(mine.filter((entry) => entry.expect === "fail").length >= 6, `${exercise}: too few buggy variants`);
    for (const entry of mine) {
      assert.ok(entry.expect === "pass" || entry.expect === "fail", `${exercise}/${entry.file}: expect must be pass or fail`);
      if (entry.expect === "pass") assert.ok(entry.style, `${exercise}/${entry.file}: a correct file says its style`);
      else assert.ok(entry.rule && entry.message && entry.bug, `${exercise}/${entry.file}: a buggy file needs rule, message and bug`);
    }
  }
});

for (const entry of corpus) {
  const name = `${entry.exercise}/${entry.file}`;
  if (entry.expect === "pass") {
    test(`${name} (${entry.style}) passes at ${DEFAULT_SEEDS} seeds`, async () => {
      tally.correct += 1;
      const report = await grade(engines, entry, { seeds: DEFAULT_SEEDS });
      const passed = describeFailures(report) === "" && report.score === report.maxScore;
      if (!passed) {
        tally.falseFails += 1;
        tally.wrongly.push(name);
      }
      assert.deepEqual(describeFailures(report), "", `${name} at ${DEFAULT_SEEDS} seeds`);
      assert.equal(report.score, report.maxScore);
    });
  } else {
    test(`${name} (${entry.bug}) fails on ${entry.rule} at ${DEFAULT_SEEDS} seeds, naming its cause`, async () => {
      tally.bugs += 1;
      const report = await grade(engines, entry, { seeds: DEFAULT_SEEDS });
      assert.deepEqual(report.problems, []);
      const story = new RegExp(entry.message);
      const named = failures(report).filter((t) => t.counterexample?.violation.invariant === entry.rule);
      const told = named.some((t) => story.test(t.message));
      if (!told) tally.missed.push(name);
      assert.ok(named.length > 0, `${name}: no failing test names ${entry.rule}:\n${describeFailures(report) || "it passed"}`);
      assert.ok(told, `${name}: no ${entry.rule} story matches /${entry.message}/:\n${describeFailures(report)}`);
      tally.detected += 1;
    });
  }
}

after(() => {
  const percent = (part, whole) => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)}%`);
  console.log(
    `accuracy at ${DEFAULT_SEEDS} seeds: detected ${tally.detected}/${tally.bugs} bugs with the right rule and story (${percent(tally.detected, tally.bugs)}); ` +
      `false fails ${tally.falseFails}/${tally.correct} correct styles (${percent(tally.falseFails, tally.correct)})` +
      (tally.missed.length ? `; missed: ${tally.missed.join(", ")}` : "") +
      (tally.wrongly.length ? `; failed wrongly: ${tally.wrongly.join(", ")}` : ""),
  );
});
