// A grading split across workers (the page's pool) gives the report a
// grading in one piece gives, byte for byte: for passing and failing
// submissions (a scenario failing, the random schedules failing in a later
// part than the first), with two and three parts, each part graded as the
// page's workers grade it (`gradeSource` with the options of `splitGrading`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { mergeGrading, splitGrading } from "../runner/merge.js";
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

for (const { exercise, name, source, options = { seeds: 60, firstSeed: 7 }, failsAfter } of submissions) {
  test(`${exercise}: ${name}: split in 2 and 3 parts, merged, is the report of one grading`, async () => {
    const whole = await gradeSource(engines, { exercise, source, options });
    if (failsAfter !== undefined) assert.equal(whole.tests.at(-1).runs, failsAfter + 1, "the fixture fails where this test needs it to");
    for (const parts of [2, 3]) {
      const reports = [];
      for (const part of splitGrading(options, parts)) reports.push(await gradeSource(engines, { exercise, source, options: part }));
      assert.equal(JSON.stringify(mergeGrading(reports)), JSON.stringify(whole), `${parts} parts`);
    }
  });
}

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
