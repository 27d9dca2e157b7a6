// Saved progress: reading every kind of saved copy (current, old, damaged,
// from the future), the pure update, and the store shell over a fake storage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { emptyExercise, emptyProgress, readSaved, serialize, update, SCHEMA_VERSION, LIMITS } from "../web/src/storage/schema.js";
import { createProgressStore as createStore, memoryStorage, storageKey, unreadablePrefix } from "../web/src/storage/progress.js";

// Progress is kept per lesson, under a key named after the lesson's folder.
const LESSON_ID = "a-lesson";
const STORAGE_KEY = storageKey(LESSON_ID);
const UNREADABLE_PREFIX = unreadablePrefix(STORAGE_KEY);
const createProgressStore = (options = {}) => createStore({ lessonId: LESSON_ID, ...options });

const answer = (choice, correct = true) => ({ choice, correct, fingerprint: null, at: 1 });
const full = {
  version: 2,
  sections: { "01-why": { readAt: 10 } },
  quizzes: { "quizzes/a.toml": { answers: { q1: answer([0]), q2: { text: "etcd", correct: true, fingerprint: "x1", at: 2 } }, view: { mode: "summary", queue: [0, 1], position: 1, checked: false } } },
  exercises: { lock: { draft: "code", draftAt: 3, hintsUnlocked: 2, passedAt: 4, lastRun: { at: 4, passed: true, summary: "12 of 12" } } },
};

// ---- reading a saved copy: one row per case -------------------------------

const cases = [
  // [name, saved text, expected status, check(progress, notes)]
  ["nothing saved", null, "empty", (progress) => assert.deepEqual(progress, emptyProgress())],
  ["an empty string", "", "empty", (progress) => assert.deepEqual(progress, emptyProgress())],
  ["the current format, in full", JSON.stringify(full), "ok", (progress) => assert.deepEqual(progress, full)],
  ["not JSON", '{"version":2,', "recovered", (progress, notes) => {
    assert.deepEqual(progress, emptyProgress());
    assert.match(notes[0], /not valid JSON/);
  }],
  ["JSON but not an object", "[1,2,3]", "recovered", (_, notes) => assert.match(notes[0], /unexpected shape/)],
  ["a bad draft loses only the draft", JSON.stringify({ ...full, exercises: { lock: { ...full.exercises.lock, draft: 42 } } }), "recovered", (progress, notes) => {
    assert.equal(progress.exercises.lock.draft, null);
    assert.equal(progress.exercises.lock.hintsUnlocked, 2);
    assert.equal(progress.exercises.lock.passedAt, 4);
    assert.deepEqual(progress.quizzes, full.quizzes);
    assert.deepEqual(notes, ['Your draft of the exercise "lock" could not be read.']);
  }],
  ["bad hints and pass marks are dropped one by one", JSON.stringify({ version: 2, exercises: { lease: { draft: "ok", hintsUnlocked: -1, passedAt: "yesterday" } } }), "recovered", (progress, notes) => {
    assert.deepEqual(progress.exercises.lease, { ...emptyExercise(), draft: "ok" });
    assert.equal(notes.length, 2);
  }],
  ["a bad answer loses only that answer; a bad view is rebuilt later", JSON.stringify({ version: 2, quizzes: { "quizzes/a.toml": { answers: { q1: answer([0]), q2: { choice: "nope" }, q3: { choice: [1], text: "both", correct: true } }, view: "garbage" } } }), "recovered", (progress, notes) => {
    assert.deepEqual(Object.keys(progress.quizzes["quizzes/a.toml"].answers), ["q1"]);
    assert.equal(progress.quizzes["quizzes/a.toml"].view, null);
    assert.equal(notes.length, 2);
  }],
  ["a whole part of the wrong type", JSON.stringify({ version: 2, sections: "all of them", exercises: { cas: "nonsense" } }), "recovered", (progress, notes) => {
    assert.deepEqual(progress.sections, {});
    assert.deepEqual(progress.exercises, {});
    assert.equal(notes.length, 2);
  }],
  ["a draft over the size limit", JSON.stringify({ version: 2, exercises: { cas: { draft: "x".repeat(LIMITS.draftCharsMax + 1) } } }), "recovered", (progress) => assert.equal(progress.exercises.cas.draft, null)],
  ["too many entries", JSON.stringify({ version: 2, sections: Object.fromEntries(Array.from({ length: LIMITS.entriesMax + 5 }, (_, index) => [`s${index}`, { readAt: 1 }])) }), "recovered", (progress, notes) => {
    assert.equal(Object.keys(progress.sections).length, LIMITS.entriesMax);
    assert.match(notes[0], /more than 500 entries/);
  }],
  ["format 1 is migrated field by field", JSON.stringify({ version: 1, read: ["01-why"], drafts: { lock: "v1 code" }, hints: { lock: 1 }, passed: ["cas"], quizAnswers: { "quizzes/a.toml": { q1: { choice: [2], correct: false } } } }), "migrated", (progress) => {
    assert.deepEqual(progress.sections, { "01-why": { readAt: null } });
    assert.equal(progress.exercises.lock.draft, "v1 code");
    assert.equal(progress.exercises.lock.hintsUnlocked, 1);
    assert.equal(progress.exercises.cas.passedAt, 0, "passed, time not recorded");
    assert.deepEqual(progress.quizzes["quizzes/a.toml"].answers.q1, { choice: [2], correct: false, fingerprint: null, at: null });
  }],
  ["format 1 with a damaged part keeps the rest", JSON.stringify({ version: 1, read: "01-why", drafts: { lock: "kept" } }), "recovered", (progress, notes) => {
    assert.equal(progress.exercises.lock.draft, "kept");
    assert.match(notes[0], /sections you had read/);
  }],
  ["a newer format: every part in a known shape is kept", JSON.stringify({ ...full, version: 9, somethingNew: true }), "recovered", (progress, notes) => {
    assert.deepEqual(progress, full);
    assert.match(notes[0], /newer version of this page \(format 9\)/);
  }],
  ["no version at all", JSON.stringify({ exercises: { lock: { draft: "x" } } }), "recovered", (progress) => assert.equal(progress.exercises.lock.draft, "x")],
];

for (const [name, text, status, check] of cases) {
  test(`readSaved: ${name}`, () => {
    const result = readSaved(text);
    assert.equal(result.status, status);
    check(result.progress, result.notes);
    assert.equal(result.progress.version, SCHEMA_VERSION);
  });
}

test("serialize and readSaved are inverses on every state update can make", () => {
  let progress = emptyProgress();
  const actions = [
    { type: "section-read", section: "01-why", at: 1 },
    { type: "quiz-saved", quiz: "quizzes/a.toml", answers: { q1: answer([1, 0]) }, view: { mode: "question", queue: [0], position: 0, checked: true } },
    { type: "draft-set", exercise: "lock", code: "let x = 1;", at: 2 },
    { type: "hints-unlocked", exercise: "lock", count: 2 },
    { type: "run-recorded", exercise: "lock", passed: false, summary: "3 failing", at: 3 },
    { type: "exercise-passed", exercise: "cas", at: 4 },
  ];
  for (const action of actions) {
    progress = update(progress, action);
    assert.deepEqual(readSaved(serialize(progress)), { progress, status: "ok", notes: [] }, action.type);
  }
  assert.deepEqual(progress.quizzes["quizzes/a.toml"].answers.q1.choice, [0, 1], "choices are kept sorted");
});

// ---- update ---------------------------------------------------------------

test("update: hints never go back, a pass is kept for good, reset empties everything", () => {
  let progress = update(emptyProgress(), { type: "hints-unlocked", exercise: "lock", count: 2 });
  assert.equal(update(progress, { type: "hints-unlocked", exercise: "lock", count: 1 }), progress);
  progress = update(progress, { type: "run-recorded", exercise: "lock", passed: true, summary: "all", at: 5 });
  progress = update(progress, { type: "run-recorded", exercise: "lock", passed: false, summary: "one failed", at: 6 });
  assert.equal(progress.exercises.lock.passedAt, 5);
  assert.equal(progress.exercises.lock.lastRun.passed, false);
  assert.equal(update(progress, { type: "exercise-passed", exercise: "lock", at: 9 }), progress);
  assert.deepEqual(update(progress, { type: "reset" }), emptyProgress());
});

test("update: misuse is an error that says what to pass", () => {
  const progress = emptyProgress();
  assert.throws(() => update(progress, { type: "draft-set", exercise: "lock", code: 5 }), /code must be a string/);
  assert.throws(() => update(progress, { type: "hints-unlocked", exercise: "lock", count: 1.5 }), /whole number/);
  assert.throws(() => update(progress, { type: "quiz-saved", quiz: "q", answers: { a: { choice: "x", correct: true } } }), /malformed/);
  assert.throws(() => update(progress, { type: "section-read", section: "" }), /non-empty id/);
  assert.throws(() => update(progress, { type: "fly" }), /unknown progress action "fly"/);
});

// ---- the store shell ------------------------------------------------------------

function fakeTimers() {
  const pending = new Set();
  return {
    setTimer: (callback) => {
      const timer = { callback };
      pending.add(timer);
      return timer;
    },
    clearTimer: (timer) => pending.delete(timer),
    runAll: () => {
      for (const timer of [...pending]) {
        pending.delete(timer);
        timer.callback();
      }
    },
    get count() {
      return pending.size;
    },
  };
}

test("store: drafts are saved after a pause or on flush; everything else at once", () => {
  const storage = memoryStorage();
  const timers = fakeTimers();
  const store = createProgressStore({ storage, now: () => 100, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
  store.setDraft("lock", "a");
  store.setDraft("lock", "ab");
  assert.equal(storage.getItem(STORAGE_KEY), null, "not yet written");
  assert.equal(timers.count, 1, "one pending write for many keystrokes");
  assert.equal(store.getDraft("lock"), "ab", "readable at once");
  timers.runAll();
  assert.equal(JSON.parse(storage.getItem(STORAGE_KEY)).exercises.lock.draft, "ab");

  store.setDraft("lock", "abc");
  store.flush();
  assert.equal(JSON.parse(storage.getItem(STORAGE_KEY)).exercises.lock.draft, "abc");

  assert.equal(store.unlockHint("lock", 3), 1);
  assert.equal(store.unlockHint("lock", 3), 2);
  assert.equal(store.unlockHint("lock", 3), 3);
  assert.equal(store.unlockHint("lock", 3), 3, "never beyond the hints there are");
  assert.equal(JSON.parse(storage.getItem(STORAGE_KEY)).exercises.lock.hintsUnlocked, 3);
  store.markSectionRead("01-why");
  store.recordRun("lock", { passed: true, summary: "12 of 12" });
  assert.equal(store.isPassed("lock"), true);
  assert.deepEqual(store.getLastRun("lock"), { at: 100, passed: true, summary: "12 of 12" });

  const reopened = createProgressStore({ storage });
  assert.equal(reopened.loadReport.status, "ok");
  assert.equal(reopened.getDraft("lock"), "abc");
  assert.equal(reopened.getHintsUnlocked("lock"), 3);
  assert.equal(reopened.isSectionRead("01-why"), true);
});

test("store: an unreadable copy is kept aside before the cleaned one replaces it", () => {
  const damaged = JSON.stringify({ version: 2, exercises: { lock: { draft: 7, hintsUnlocked: 1 } } });
  const storage = memoryStorage({ [STORAGE_KEY]: damaged });
  const store = createProgressStore({ storage, now: () => 42 });
  assert.equal(store.loadReport.status, "recovered");
  assert.equal(storage.getItem(`${UNREADABLE_PREFIX}42`), damaged);
  assert.equal(JSON.parse(storage.getItem(STORAGE_KEY)).exercises.lock.hintsUnlocked, 1);
  assert.match(store.loadReport.notes.at(-1), /kept in this browser's storage/);
});

test("store: at most three unreadable copies are kept", () => {
  const storage = memoryStorage();
  for (const time of [1, 2, 3, 4, 5]) {
    storage.setItem(STORAGE_KEY, "garbage");
    createProgressStore({ storage, now: () => time });
  }
  const kept = Array.from({ length: storage.length }, (_, index) => storage.key(index)).filter((key) => key.startsWith(UNREADABLE_PREFIX));
  assert.deepEqual(kept.sort(), [3, 4, 5].map((time) => `${UNREADABLE_PREFIX}${time}`));
});

test("store: a full storage is reported, and the work stays in memory", () => {
  const storage = memoryStorage();
  storage.setItem = () => {
    throw Object.assign(new Error("quota"), { name: "QuotaExceededError" });
  };
  const store = createProgressStore({ storage });
  store.markSectionRead("01-why");
  assert.match(store.saveProblem, /storage for this site is full.*Export your solutions/);
  assert.equal(store.isSectionRead("01-why"), true);
});

test("store: without any storage the page still works and says so", () => {
  const store = createProgressStore({ storage: null });
  assert.equal(store.loadReport.status, "unavailable");
  assert.match(store.loadReport.notes[0], /only until you close the tab/);
  store.setDraft("cas", "x");
  assert.equal(store.getDraft("cas"), "x");
});

test("store: listeners hear every change with its action; reset reaches them too", () => {
  const store = createProgressStore({ storage: memoryStorage() });
  const heard = [];
  const stop = store.subscribe((_, action) => heard.push(action.type));
  store.markSectionRead("01-why");
  store.markSectionRead("01-why");
  store.reset();
  stop();
  store.markSectionRead("02");
  assert.deepEqual(heard, ["section-read", "reset"], "no event for a change that changes nothing, none after unsubscribing");
});

test("two lessons never share progress: each keeps its own key, named after its folder", () => {
  const storage = memoryStorage();
  const first = createStore({ lessonId: "ownership-election", storage });
  const second = createStore({ lessonId: "another-lesson", storage });
  first.setDraft("lock", "first");
  first.flush();
  assert.equal(second.getDraft("lock"), null);
  assert.equal(JSON.parse(storage.getItem("leaselab:ownership-election:progress")).exercises.lock.draft, "first");
  assert.equal(storage.getItem("leaselab:another-lesson:progress"), null);
});

test("a saved copy naming a property every object has (__proto__, constructor) reaches no prototype: the entry is left out", () => {
  const v1 = JSON.stringify({ version: 1, drafts: { __proto__: "POLLUTED", constructor: "ALSO", lock: "mine" }, hints: { ["__proto__"]: 7 }, passed: ["__proto__", "constructor", "lock"] });
  // JSON.parse makes "__proto__" an own key, as a file read from disk would.
  const raw = v1.replace('"drafts":{', '"drafts":{"__proto__":"POLLUTED",').replace('"hints":{}', '"hints":{"__proto__":7}');
  const { progress } = readSaved(raw);
  assert.equal(({}).draft, undefined);
  assert.equal(({}).passedAt, undefined);
  assert.equal(({}).hintsUnlocked, undefined);
  assert.equal(Object.draft, undefined, "nor the Object constructor");
  assert.deepEqual(Object.keys(progress.exercises), ["lock"]);
  assert.equal(progress.exercises.lock.draft, "mine");
  const v2 = `{"version":${SCHEMA_VERSION},"sections":{"__proto__":{"readAt":null}},"quizzes":{},"exercises":{"__proto__":{"draft":"x"},"constructor":{"draft":"y"}}}`;
  const { progress: second, notes } = readSaved(v2);
  assert.deepEqual(Object.keys(second.exercises), []);
  assert.deepEqual(Object.keys(second.sections), []);
  assert.ok(notes.some((note) => /unreadable names/.test(note)), notes.join(" | "));
});

test("store: an import that storage refuses changes nothing, and replace says why", () => {
  const storage = memoryStorage();
  const store = createStore({ lessonId: "l", storage });
  store.setDraft("lock", "mine");
  store.flush();
  const saved = storage.getItem(storageKey("l"));
  const imported = update(emptyProgress(), { type: "draft-set", exercise: "lock", code: "imported", at: 1 });
  const full = Object.assign(new Error("quota"), { name: "QuotaExceededError" });
  const setItem = storage.setItem;
  storage.setItem = () => {
    throw full;
  };
  assert.equal(store.replace(imported), "the browser's storage for this site is full");
  assert.equal(store.getDraft("lock"), "mine");
  assert.equal(storage.getItem(storageKey("l")), saved);
  storage.setItem = setItem;
  assert.equal(store.replace(imported), null);
  assert.equal(store.getDraft("lock"), "imported");
  assert.notEqual(storage.getItem(storageKey("l")), saved);
});
