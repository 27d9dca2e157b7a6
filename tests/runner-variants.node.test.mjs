// The runner in Node, against every buggy Rust variant of every exercise,
// ported to JavaScript as learner submissions
// (tests/fixtures/submissions/<exercise>/*.js). Each port fails on the same
// invariant as its Rust twin (crates/grader/tests/*.rs and
// crates/grader/src/election/mod.rs grade the Rust variants), and the
// lesson's solutions still pass.
//
// A fixture's header says what to expect:
//   // expect: a|b            some failing test names one of these invariants
//   // also-expect: c d       and some failing tests name each of these too
//   // scenario: <id>         the named scenario <id> fails, on an expected invariant
//   // Ports <Enum>::<Variant> (<file>): …
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { loadNodeEngines, loadNodeRegistry } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";

const ROOT = new URL("../", import.meta.url);
const LESSON = new URL("exercises/ownership-election/", ROOT);
const FIXTURES = new URL("tests/fixtures/submissions/", ROOT);
const OPTIONS = { seeds: 100 };

/** Where each exercise's buggy variants live in Rust: every exercise of the registry has an entry (tested below). */
const RUST_VARIANTS = {
  cas: "crates/grader/src/cas/store.rs",
  lock: "crates/lock/src/lib.rs",
  lease: "crates/lease/src/leader.rs",
  fencing: "crates/lease/src/fencing.rs",
  election: "crates/lease/src/election.rs",
};
/** The exercises whose random schedules alone do not catch every variant (a named scenario does). */
const RANDOM_ALONE_MISSES = new Set(["lease"]);
const EXERCISES = (await loadNodeRegistry()).names;

test("every exercise in the registry has its Rust variants named here, and nothing else is", () => {
  assert.deepEqual(Object.keys(RUST_VARIANTS).sort(), [...EXERCISES].sort());
});

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

const read = (url) => readFileSync(url, "utf8");
const grade = (exercise, source, options = OPTIONS) => gradeSource(engines, { exercise, source, options });
const failedTests = (report) => report.tests.filter((t) => t.status === "failed");
const failedInvariants = (report) => failedTests(report).map((t) => t.counterexample.violation.invariant);
const fixtures = (exercise) => readdirSync(new URL(`${exercise}/`, FIXTURES)).filter((file) => file.endsWith(".js")).sort();

function header(source) {
  const line = (name) => new RegExp(`^// ${name}: (.+)$`, "m").exec(source)?.[1].trim() ?? null;
  const expect = line("expect");
  assert.ok(expect, "the fixture must start with `// expect: <invariant-id>`");
  return {
    expected: expect.split("|").map((id) => id.trim()),
    alsoExpected: line("also-expect")?.split(/[\s,]+/) ?? [],
    scenario: line("scenario"),
    ports: /Ports (\w+::\w+)/.exec(source)?.[1] ?? null,
  };
}

/** `["LeaseVariant::RenewAtFullTtl", …]`: the `BUGGY` array of the Rust file. */
function rustBuggyVariants(exercise) {
  const rust = read(new URL(RUST_VARIANTS[exercise], ROOT));
  const list = /pub const BUGGY: \[\w+; \d+\] = \[([^\]]*)\]/.exec(rust);
  assert.ok(list, `no BUGGY list in ${RUST_VARIANTS[exercise]}`);
  return [...list[1].matchAll(/(\w+::\w+)/g)].map((match) => match[1]);
}

for (const exercise of EXERCISES) {
  test(`the lesson's ${exercise} solution passes every test`, async () => {
    const report = await grade(exercise, read(new URL(`${exercise}/solution.js`, LESSON)));
    assert.deepEqual(report.problems, []);
    const failed = report.tests.filter((t) => t.status !== "passed").map((t) => `${t.name}: ${t.message}`);
    assert.deepEqual(failed, []);
    assert.equal(report.score, report.maxScore);
    assert.equal(report.tests.find((t) => t.name === "random schedules").runs, OPTIONS.seeds);
  });

  test(`every buggy Rust ${exercise} variant has exactly one JavaScript port`, () => {
    const ported = fixtures(exercise).map((file) => header(read(new URL(`${exercise}/${file}`, FIXTURES))).ports);
    assert.deepEqual([...ported].sort(), [...rustBuggyVariants(exercise)].sort());
  });

  for (const file of fixtures(exercise)) {
    test(`${exercise} variant ${file} fails on its own invariant, as in Rust`, async () => {
      const source = read(new URL(`${exercise}/${file}`, FIXTURES));
      const { expected, alsoExpected, scenario } = header(source);
      const report = await grade(exercise, source);
      assert.deepEqual(report.problems, []);
      assert.ok(report.score < report.maxScore, "it must not pass");
      const failed = failedInvariants(report);
      assert.ok(failed.some((id) => expected.includes(id)), `failed ${failed}, expected ${expected.join(" or ")}`);
      for (const id of alsoExpected) assert.ok(failed.includes(id), `failed ${failed}, expected ${id} too`);

      // The scenario written for this mistake catches it (crates/grader/tests/{lease,fencing}.rs).
      if (scenario !== null) {
        const named = report.tests.find((t) => t.counterexample?.replayToken.split(":")[1] === scenario);
        assert.ok(named, `the scenario ${scenario} did not fail; failed: ${failedTests(report).map((t) => t.name)}`);
        assert.ok(expected.includes(named.counterexample.violation.invariant), `${named.name}: ${named.counterexample.violation.invariant}`);
      }
      // As in Rust: the random schedules alone catch every mistake but lease's…
      if (!RANDOM_ALONE_MISSES.has(exercise)) {
        assert.equal(report.tests.find((t) => t.name === "random schedules").status, "failed", "the random schedules missed it");
      }
      // …and a cas mistake with one bug tells one story: every failing test names it.
      if (exercise === "cas" && alsoExpected.length === 0) {
        assert.ok(failed.every((id) => expected.includes(id)), `failed ${failed}, expected only ${expected.join(" or ")}`);
      }

      for (const t of failedTests(report)) {
        assert.match(t.counterexample.replayToken, new RegExp(`^${exercise}@[0-9.]+:[a-z-]+:.*:v1\\.`));
        assert.ok(t.message.length > 20, t.message);
      }
    });
  }
}
