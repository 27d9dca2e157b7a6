// A grading split across workers (the page's pool) gives the report a
// grading in one piece gives, byte for byte: for passing and failing
// submissions (a scenario failing, the random schedules failing in a later
// part than the first), with two and three parts, each part graded as the
// page's workers grade it (`gradeSource` with the options of `splitGrading`).
// The tests as they stream: `onTest` gets each test of a grading once, in
// order, exactly the report's entries; `onFailing` hears of each failing
// test once, just before its entry, and `failingPosition` puts a part's
// failing test where the merged report has that failed test; and
// `placeTests`, fed the parts' tests in any interleaving, puts each test of
// the merged report in its place exactly once, as it is known.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { failingPosition, mergeGrading, placeTests, splitGrading } from "../runner/merge.js";
import { lessonFile } from "../web/build/lesson-folder.mjs";

const engines = await loadNodeEngines();
const fixture = (path) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), "utf8");

const submissions = [
  { exercise: "lock", name: "the lesson's solution", source: readFileSync(lessonFile("lock", "solution.js"), "utf8") },
  { exercise: "lock", name: "a lock without a TTL", source: fixture("accuracy/lock/bug-lock-forgets-ttl.js") },
  { exercise: "lock", name: "a blind unlock", source: fixture("accuracy/lock/bug-unlock-blind-delete.js") },
  { exercise: "cas", name: "the cas solution", source: readFileSync(lessonFile("cas", "solution.js"), "utf8") },
  { exercise: "lease", name: "a lease that renews at two thirds of the TTL", source: fixture("accuracy/lease/bug-renew-two-thirds.js") },
  { exercise: "lock", name: "a file that does not parse", source: "export async function tryLock( {" },
  // Its first failing seed from 10 is 21: the last of three parts finds it, after two that pass.
  { exercise: "lease", name: "a random failure in the last part", source: fixture("accuracy/lease/bug-renew-two-thirds.js"), options: { seeds: 12, firstSeed: 10 }, failsAfter: 11 },
];

/**
 * Grades with `onTest` and `onFailing`; returns the report, the tests onTest
 * received in the order received, and the failures onFailing heard (`{
 * index, name }`, index: the test of the report it is about, the next to finish).
 */
async function gradeStreamed(request) {
  const received = [];
  const failing = [];
  const report = await gradeSource(engines, { ...request, onTest: (test) => received.push(test), onFailing: (name) => failing.push({ index: received.length, name }) });
  return { report, received, failing };
}

/** What onFailing must have heard for `report`: each failed test, once, at its index. */
function failuresOf(report) {
  return report.tests.flatMap((test, index) => (test.status === "passed" ? [] : [{ index, name: test.name }]));
}

/** The parts' streamed tests in three orders: part by part, parts backwards, and round robin. */
function interleavings(streams) {
  const tagged = streams.map((tests, part) => tests.map((test, index) => ({ part, index, test })));
  const roundRobin = [];
  for (let index = 0; index < Math.max(...streams.map((tests) => tests.length)); index += 1) for (const tests of tagged) if (tests[index]) roundRobin.push(tests[index]);
  return { "part by part": tagged.flat(), "parts backwards": tagged.toReversed().flat(), "round robin": roundRobin };
}

for (const { exercise, name, source, options = { seeds: 60, firstSeed: 7 }, failsAfter } of submissions) {
  test(`${exercise}: ${name}: split in 2 and 3 parts, merged, is the report of one grading; streamed, each test is placed once as the merge places it`, async () => {
    const { report: whole, received, failing } = await gradeStreamed({ exercise, source, options });
    if (failsAfter !== undefined) assert.equal(whole.tests.at(-1).runs, failsAfter + 1, "the fixture fails where this test needs it to");
    assert.equal(JSON.stringify(received), JSON.stringify(whole.tests), "onTest: every test once, in order, exactly the report's entries");
    assert.deepEqual(failing, failuresOf(whole), "onFailing: every failed test once, before its entry; never a passed one");
    for (const parts of [2, 3]) {
      const graded = [];
      for (const part of splitGrading(options, parts)) graded.push(await gradeStreamed({ exercise, source, options: part }));
      assert.equal(JSON.stringify(mergeGrading(graded.map(({ report }) => report))), JSON.stringify(whole), `${parts} parts`);
      graded.forEach(({ report, failing }, part) => {
        assert.deepEqual(failing, failuresOf(report), `${parts} parts, part ${part}: onFailing`);
        for (const { index, name } of failing) {
          const merged = whole.tests[failingPosition(parts, whole.tests.length, part, index)];
          assert.equal(merged.status, "failed", `${parts} parts, part ${part}: the failure of its test ${index} lands on a failed test`);
          assert.equal(merged.name, name, `${parts} parts, part ${part}: the failure of its test ${index} lands on its own test`);
        }
      });
      for (const [order, stream] of Object.entries(interleavings(graded.map(({ received }) => received)))) {
        const place = placeTests(parts, whole.tests.length);
        const placed = whole.tests.map(() => []);
        for (const { part, index, test } of stream) for (const { position, test: known } of place(part, index, test)) placed[position].push(known);
        assert.equal(JSON.stringify(placed), JSON.stringify(whole.tests.map((test) => [test])), `${parts} parts, ${order}`);
      }
    }
  });
}

test("parts that disagree about whether the file could run merge into the first part's problems, never a crash", () => {
  const ran = { exercise: "lock", graderVersion: "v", score: 2, maxScore: 2, tests: [{ name: "a", status: "passed", score: 1, maxScore: 1, message: "", runs: 1 }, { name: "random schedules", status: "passed", score: 1, maxScore: 1, message: "", runs: 5 }], problems: [] };
  const stopped = { exercise: "lock", graderVersion: "v", score: 0, maxScore: 2, tests: [], problems: ["lock.js: its top-level code ran for more than 5 s of real time"] };
  assert.deepEqual(mergeGrading([ran, stopped]), stopped);
  assert.deepEqual(mergeGrading([stopped, ran]), stopped);
  assert.deepEqual(mergeGrading([ran, ran]).problems, []);
});

test("the seeds are split into contiguous ranges that cover the budget once", () => {
  assert.deepEqual(
    splitGrading({ seeds: 200 }, 3).map(({ firstSeed, seeds, scenarioPart }) => [firstSeed, seeds, scenarioPart]),
    [
      [1, 66, [0, 3]],
      [67, 67, [1, 3]],
      [134, 67, [2, 3]],
    ],
  );
  assert.deepEqual(
    splitGrading({ seeds: 1, firstSeed: 5 }, 2).map(({ firstSeed, seeds }) => [firstSeed, seeds]),
    [
      [5, 0],
      [5, 1],
    ],
  );
});
