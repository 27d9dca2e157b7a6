// The progress store: the learner's work, kept in localStorage as it changes.
//
// This is the API every part of the page uses (the lesson page, and the code
// runner in web/src/runner, which receives the store from main.js):
//
//   const progress = createProgressStore({ lessonId: lesson.id });
//   progress.getDraft("lock")                → the saved code, or null
//   progress.setDraft("lock", code)          saved within `draftSaveDelayMs`, and on flush()
//   progress.clearDraft("lock")              back to "no draft" (the starter)
//   progress.recordRun("lock", { passed, summary })
//                                            the last run's verdict; a pass is kept for good
//   progress.markPassed("lock") / progress.isPassed("lock")
//   progress.getHintsUnlocked("lock")        → 0, 1, 2 …
//   progress.unlockHint("lock", hintsTotal)  → the new count (never above hintsTotal)
//   progress.getQuiz(quizKey) / progress.saveQuiz(quizKey, { answers, view })
//   progress.markSectionRead(id) / progress.isSectionRead(id)
//   progress.snapshot()                      → the whole progress object (see schema.js)
//   progress.subscribe((progress, action) => …) → unsubscribe
//   progress.reset()                         erases everything (ask the learner first)
//   progress.replace(progress)               everything replaced (an import), saved at once;
//                                            → null, or why storage refused it (then nothing changed)
//   progress.flush()                         writes a pending draft now (main.js calls it on pagehide)
//   progress.loadReport                      { status, notes } from reading the saved copy
//   progress.saveProblem                     null, or why the last write failed
//
// Every change goes through schema.js's pure `update`. A saved copy that
// cannot be read in full is kept under a separate key before it is ever
// overwritten, so a learner's code is never destroyed by a bug in reading it.
import { readSaved, serialize, update, emptyExercise } from "./schema.js";

/**
 * Where a lesson's progress is kept: one key per lesson, named after its
 * folder (the rendered lesson's `id`), so two lessons never share progress.
 */
export const storageKey = (lessonId) => `leaselab:${lessonId}:progress`;
/** Prefix of the keys that keep unreadable saved copies of `key`: `${unreadablePrefix(key)}${time}`. */
export const unreadablePrefix = (key) => `${key}:unreadable:`;
/** How many unreadable copies to keep; older ones are removed. */
const UNREADABLE_KEPT_MAX = 3;

/** localStorage if this browser lets the page use it, else null. */
export function browserStorage() {
  try {
    const storage = globalThis.localStorage;
    const probe = "leaselab:probe";
    storage.setItem(probe, "1");
    storage.removeItem(probe);
    return storage;
  } catch {
    return null;
  }
}

/** A Storage-like object in memory, for browsers that refuse localStorage (and for tests). */
export function memoryStorage(initial = {}) {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    key: (index) => [...items.keys()][index] ?? null,
    get length() {
      return items.size;
    },
  };
}

export function createProgressStore({
  lessonId,
  storage = browserStorage(),
  key = storageKey(lessonId),
  now = () => Date.now(),
  draftSaveDelayMs = 300,
  setTimer = (callback, ms) => setTimeout(callback, ms),
  clearTimer = (timer) => clearTimeout(timer),
} = {}) {
  const persistent = storage !== null;
  const backing = storage ?? memoryStorage();
  const listeners = new Set();
  let draftTimer = null;
  let saveProblem = null;
  /** Why the last write failed ("the browser's storage for this site is full"), or null. */
  let saveFailure = null;

  let savedText = null;
  try {
    savedText = backing.getItem(key);
  } catch (error) {
    saveProblem = `Saved progress could not be read (${describe(error)}).`;
  }
  const loaded = readSaved(savedText);
  let progress = loaded.progress;
  const loadReport = { status: persistent ? loaded.status : "unavailable", notes: [...loaded.notes] };
  if (!persistent) loadReport.notes.push("This browser does not let the page save anything, so your progress lasts only until you close the tab.");
  if (loaded.status === "recovered" && savedText !== null) keepUnreadable(savedText);
  if (loaded.status === "migrated" || loaded.status === "recovered") write();

  function keepUnreadable(text) {
    try {
      const prefix = unreadablePrefix(key);
      backing.setItem(`${prefix}${now()}`, text);
      const kept = [];
      for (let index = 0; index < backing.length; index += 1) {
        const name = backing.key(index);
        if (name?.startsWith(prefix)) kept.push(name);
      }
      kept.sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
      for (const name of kept.slice(0, Math.max(0, kept.length - UNREADABLE_KEPT_MAX))) backing.removeItem(name);
      loadReport.notes.push(`A copy of the saved data as it was is kept in this browser's storage under "${prefix}…".`);
    } catch {
      // No room for the copy: the notes already say what was left out.
    }
  }

  function write() {
    clearTimer(draftTimer);
    draftTimer = null;
    try {
      backing.setItem(key, serialize(progress));
      saveProblem = null;
      saveFailure = null;
    } catch (error) {
      saveFailure = describe(error);
      saveProblem = `Your progress could not be saved (${saveFailure}). Export your solutions to keep them.`;
    }
  }

  function dispatch(action, { deferSave = false } = {}) {
    const next = update(progress, action);
    if (next === progress) return;
    progress = next;
    if (deferSave) {
      if (draftTimer === null) draftTimer = setTimer(write, draftSaveDelayMs);
    } else {
      write();
    }
    for (const listener of listeners) listener(progress, action);
  }

  const exercise = (name) => progress.exercises[name] ?? emptyExercise();

  return {
    loadReport,
    get saveProblem() {
      return saveProblem;
    },
    get persistent() {
      return persistent;
    },
    snapshot: () => progress,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush() {
      if (draftTimer !== null) write();
    },

    markSectionRead: (section) => dispatch({ type: "section-read", section, at: now() }),
    isSectionRead: (section) => Boolean(progress.sections[section]),

    getQuiz: (quiz) => progress.quizzes[quiz] ?? null,
    saveQuiz: (quiz, { answers, view }) => dispatch({ type: "quiz-saved", quiz, answers, view }),

    getDraft: (name) => exercise(name).draft,
    setDraft(name, code) {
      if (exercise(name).draft === code) return;
      dispatch({ type: "draft-set", exercise: name, code, at: now() }, { deferSave: true });
    },
    clearDraft: (name) => dispatch({ type: "draft-cleared", exercise: name }),
    getHintsUnlocked: (name) => exercise(name).hintsUnlocked,
    unlockHint(name, hintsTotal) {
      const count = Math.min(exercise(name).hintsUnlocked + 1, hintsTotal);
      dispatch({ type: "hints-unlocked", exercise: name, count });
      return exercise(name).hintsUnlocked;
    },
    recordRun: (name, { passed, summary = "" }) => dispatch({ type: "run-recorded", exercise: name, passed, summary, at: now() }),
    getLastRun: (name) => exercise(name).lastRun,
    markPassed: (name) => dispatch({ type: "exercise-passed", exercise: name, at: now() }),
    isPassed: (name) => exercise(name).passedAt !== null,

    reset: () => dispatch({ type: "reset" }),
    /**
     * Replaces everything with `next` (an import; see lesson/transfer.js),
     * saved at once. If storage refuses it (full), the progress goes back to
     * what storage still holds, so a reload shows what the learner sees, and
     * the reason is returned; else null.
     */
    replace(next) {
      const before = progress;
      dispatch({ type: "replaced", progress: next });
      if (saveFailure === null) return null;
      const refused = saveFailure;
      dispatch({ type: "replaced", progress: before });
      return refused;
    },
  };
}

function describe(error) {
  if (error?.name === "QuotaExceededError") return "the browser's storage for this site is full";
  return error instanceof Error ? error.message : String(error);
}
