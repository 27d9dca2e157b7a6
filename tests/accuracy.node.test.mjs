// The accuracy corpus (tests/fixtures/accuracy/<exercise>/*.js): learner-style
// submissions written for this test, beyond the lesson's solutions and the
// ports of the Rust variants. Each is graded through the real runner (QuickJS
// in Node, the grader's wasm), as the page and the CLI grade.
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
// The test prints the detection rate (bugs caught with the right rule and
// story) and the false-fail rate (correct styles that failed); BENCHMARKS.md
// records them. ACCURACY_SEEDS_10X=0 skips the ten-times pass, for a quick run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { loadNodeEngines, loadNodeRegistry } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";

const CORPUS = new URL("./fixtures/accuracy/", import.meta.url);
const registry = await loadNodeRegistry();
/** The exercises with a corpus folder, in the registry's order. */
const EXERCISES = registry.names.filter((name) => readdirSync(CORPUS).includes(name));
/** The default budget every host grades with (the grader's registry). */
const DEFAULT_SEEDS = registry.defaults.seeds;
const TEN_TIMES = process.env.ACCURACY_SEEDS_10X !== "0";

const HEADER = /^\/\/ ([a-z]+): (.*)$/;

function header(text) {
  const fields = {};
  for (const line of text.split("\n")) {
    const match = HEADER.exec(line);
    if (!match) break;
    fields[match[1]] = match[2].trim();
  }
  return fields;
}

const corpus = EXERCISES.flatMap((exercise) =>
  readdirSync(new URL(`${exercise}/`, CORPUS))
    .filter((file) => file.endsWith(".js"))
    .sort()
    .map((file) => {
      const source = readFileSync(new URL(`${exercise}/${file}`, CORPUS), "utf8");
      return { exercise, file, source, ...header(source) };
    }),
);

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

const tally = { bugs: 0, detected: 0, correct: 0, falseFails: 0, missed: [], wrongly: [] };

const grade = (entry, seeds) => gradeSource(engines, { exercise: entry.exercise, source: entry.source, options: { seeds } });
const failures = (report) => report.tests.filter((t) => t.status !== "passed");
const describeFailures = (report) =>
  [...report.problems, ...failures(report).map((t) => `${t.name}: [${t.counterexample?.violation.invariant}] ${t.message}`)].join("\n");

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
    test(`${name} (${entry.style}) passes at ${DEFAULT_SEEDS} seeds${TEN_TIMES ? ` and at ${10 * DEFAULT_SEEDS}` : ""}`, async () => {
      tally.correct += 1;
      let failed = true;
      try {
        for (const seeds of TEN_TIMES ? [DEFAULT_SEEDS, 10 * DEFAULT_SEEDS] : [DEFAULT_SEEDS]) {
          const report = await grade(entry, seeds);
          assert.deepEqual(describeFailures(report), "", `${name} at ${seeds} seeds`);
          assert.equal(report.score, report.maxScore);
        }
        failed = false;
      } finally {
        if (failed) {
          tally.falseFails += 1;
          tally.wrongly.push(name);
        }
      }
    });
  } else {
    test(`${name} (${entry.bug}) fails on ${entry.rule} at ${DEFAULT_SEEDS} seeds, naming its cause`, async () => {
      tally.bugs += 1;
      const report = await grade(entry, DEFAULT_SEEDS);
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
