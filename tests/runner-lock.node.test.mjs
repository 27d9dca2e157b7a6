// The runner in Node: learners' JavaScript under the Rust simulation.
// The lesson's solution passes and its starter fails; hostile submissions
// end with a clear verdict and leave the grader healthy. (Each buggy
// variant's port is graded with every exercise's in runner-variants.)
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";

const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const FIXTURES = new URL("./fixtures/submissions/", import.meta.url);
const OPTIONS = { seeds: 100 };

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

const read = (url) => readFileSync(url, "utf8");
const grade = async (source, options = OPTIONS) => gradeSource(engines, { exercise: "lock", source, options });
const failedInvariants = (report) =>
  report.tests.filter((t) => t.status === "failed").map((t) => t.counterexample.violation.invariant);

test("the lesson's lock solution passes every test", async () => {
  const report = await grade(read(new URL("lock/solution.js", LESSON)));
  assert.deepEqual(report.problems, []);
  const failed = report.tests.filter((t) => t.status !== "passed").map((t) => `${t.name}: ${t.message}`);
  assert.deepEqual(failed, []);
  assert.equal(report.score, report.maxScore);
  assert.equal(report.tests.find((t) => t.name === "random schedules").runs, OPTIONS.seeds);
});

test("the lesson's lock starter fails", async () => {
  const report = await grade(read(new URL("lock/starter.js", LESSON)));
  assert.ok(report.score < report.maxScore);
  assert.ok(failedInvariants(report).includes("lock-has-ttl"));
});

for (const file of readdirSync(new URL("adversarial/", FIXTURES))) {
  test(`hostile or broken submission ${file} gets a clear verdict`, async () => {
    const source = read(new URL(`adversarial/${file}`, FIXTURES));
    const report = await grade(source, { seeds: 5 });
    assert.ok(report.problems.length > 0 || report.score < report.maxScore, "it must not pass");
    const problem = /expect-problem: (.*)/.exec(source);
    if (problem) {
      assert.ok(report.problems.some((p) => new RegExp(problem[1]).test(p)), `problems: ${JSON.stringify(report.problems)}`);
      return;
    }
    const message = new RegExp(/expect-message: (.*)/.exec(source)[1]);
    const messages = report.tests.filter((t) => t.status === "failed").map((t) => t.message);
    assert.ok(messages.some((m) => message.test(m)), `messages: ${JSON.stringify(messages, null, 1)}`);
  });
}

test("after hostile submissions the grader is still healthy and deterministic", async () => {
  const solution = read(new URL("lock/solution.js", LESSON));
  const first = JSON.stringify(await grade(solution));
  const second = JSON.stringify(await grade(solution));
  assert.equal(first, second);
  assert.equal(JSON.parse(first).score, JSON.parse(first).maxScore);
});
