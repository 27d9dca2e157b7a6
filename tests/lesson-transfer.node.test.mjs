// Progress that travels (web/src/lesson/transfer.js, tar.js's reader): the
// export's progress.json read back, and every file that must be refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { makeTar, readTar } from "../web/src/lesson/tar.js";
import { PROGRESS_FILE_FORMAT, progressFileText, readProgressFile } from "../web/src/lesson/transfer.js";
import { emptyProgress, update } from "../web/src/storage/schema.js";

const lessonId = "ownership-election";
const graderVersion = "0.1.0";
const bytes = (text) => new TextEncoder().encode(text);
let progress = emptyProgress();
progress = update(progress, { type: "section-read", section: "01-why-ownership", at: 1 });
progress = update(progress, { type: "quiz-saved", quiz: "quizzes/locks-and-ttl.toml", answers: { "why-lock-ttl": { choice: [1], correct: false, at: 2 } }, view: { mode: "question", queue: [0, 1, 2], position: 1, checked: false } });
progress = update(progress, { type: "draft-set", exercise: "cas", code: "// mine\n", at: 3 });
progress = update(progress, { type: "hints-unlocked", exercise: "cas", count: 2 });
progress = update(progress, { type: "run-recorded", exercise: "lock", passed: true, summary: "14/14", at: 4 });
const text = progressFileText({ lessonId, graderVersion, progress, now: new Date(0) });

test("progress.json round-trips quiz answers, drafts, hints, runs and sections, alone and inside the export's tar", () => {
  assert.deepEqual(readProgressFile({ name: "progress.json", bytes: bytes(text), lessonId, graderVersion }), { progress, notes: [], resultsLeftOut: null });
  const tar = makeTar([{ name: "ownership-election/cas.js", text: "// mine\n" }, { name: "ownership-election/progress.json", text }], 0);
  assert.deepEqual(readTar(tar).map((file) => file.name), ["ownership-election/cas.js", "ownership-election/progress.json"]);
  assert.deepEqual(readProgressFile({ name: "ownership-election-solutions.tar", bytes: tar, lessonId, graderVersion }), { progress, notes: [], resultsLeftOut: null });
  assert.equal(JSON.parse(text).format, PROGRESS_FILE_FORMAT);
  assert.equal(JSON.parse(text).version, 1);
  assert.equal(JSON.parse(text).graderVersion, graderVersion);
});

const refusals = [
  ["another lesson's file", "p.json", JSON.stringify({ ...JSON.parse(text), lesson: "raft-basics" }), /another lesson \("raft-basics"\)/],
  ["a newer format", "p.json", JSON.stringify({ ...JSON.parse(text), version: 2 }), /newer version of this lesson/],
  ["newer progress inside", "p.json", JSON.stringify({ ...JSON.parse(text), progress: { ...progress, version: 9 } }), /newer version of this lesson/],
  ["not JSON", "p.json", "{ nope", /not valid JSON/],
  ["some other JSON", "p.json", JSON.stringify({ hello: 1 }), /not a leaselab progress file/],
  ["no version", "p.json", JSON.stringify({ format: PROGRESS_FILE_FORMAT, lesson: lessonId, progress }), /no format version/],
  ["a tar without progress.json", "old.tar", makeTar([{ name: "ownership-election/cas.js", text: "x" }]), /holds no progress\.json/],
  ["a damaged tar", "bad.tar", new Uint8Array(1024).fill(7), /could not be read: it is not a tar archive/],
];
for (const [what, name, content, message] of refusals) {
  test(`import refuses ${what}, saying why`, () => {
    const result = readProgressFile({ name, bytes: typeof content === "string" ? bytes(content) : content, lessonId, graderVersion });
    assert.equal(result.progress, undefined);
    assert.match(result.error, message);
  });
}

test("import keeps the readable parts of a damaged progress.json and says what it left out", () => {
  const damaged = JSON.parse(text);
  damaged.progress.exercises.cas.draft = 42;
  const result = readProgressFile({ name: "p.json", bytes: bytes(JSON.stringify(damaged)), lessonId, graderVersion });
  assert.equal(result.progress.exercises.cas.hintsUnlocked, 2);
  assert.equal(result.progress.exercises.cas.draft, null);
  assert.match(result.notes.join(" "), /draft of the exercise "cas"/);
});

// Results judged by another grader (or by one the file does not name) are not
// trusted; everything else the learner did is theirs whatever the grader.
const otherGraders = [
  ["another grader version", { ...JSON.parse(text), graderVersion: "0.2.0" }, /judged by grader 0\.2\.0, and this page grades with 0\.1\.0, so they were not imported/],
  ["a file from before exports named the grader", (({ graderVersion: _, ...rest }) => rest)(JSON.parse(text)), /do not say which grader judged them .* this page grades with 0\.1\.0/],
];
assert.equal(progress.exercises.lock.passedAt, 4, "the file under test records a passed exercise");
for (const [what, file, message] of otherGraders) {
  test(`import of ${what}: code, answers, hints and read marks come back, passed marks and last runs do not, and a note says why`, () => {
    const result = readProgressFile({ name: "p.json", bytes: bytes(JSON.stringify(file)), lessonId, graderVersion });
    assert.equal(result.error, undefined);
    assert.deepEqual(result.notes, []);
    assert.match(result.resultsLeftOut, message);
    assert.match(result.resultsLeftOut, /Press "Run tests" on each exercise/);
    assert.deepEqual(result.progress.sections, progress.sections);
    assert.deepEqual(result.progress.quizzes, progress.quizzes);
    assert.equal(result.progress.exercises.cas.draft, "// mine\n");
    assert.equal(result.progress.exercises.cas.hintsUnlocked, 2);
    assert.equal(result.progress.exercises.lock.passedAt, null);
    assert.equal(result.progress.exercises.lock.lastRun, null);
  });
}
