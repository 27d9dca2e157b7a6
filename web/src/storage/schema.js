// The learner's saved progress: its versioned shape, reading a saved copy
// back (migrating old versions, keeping every part that can still be read),
// and the pure `update(progress, action)` that every change goes through.
//
// No storage access here: `progress.js` is the shell that reads and writes
// localStorage. That keeps this module testable in Node and keeps the rules
// for recovering a damaged copy in one place.
//
// Version 2 (current):
//   {
//     version: 2,
//     sections:  { [sectionId]: { readAt } },
//     quizzes:   { [quizKey]: { answers: { [questionId]: Answer }, view: QuizView | null } },
//     exercises: { [name]: { draft, draftAt, hintsUnlocked, passedAt, lastRun } },
//   }
//   Answer   = { choice?: number[], text?: string, correct: boolean, fingerprint: string | null, at: number | null }
//   QuizView = { mode: "question" | "summary" | "review", queue: number[], position: number, checked: boolean, round?: number }
//     (round: how many times the quiz was retried or answered again; it reorders the options)
//   lastRun  = { at, passed, summary } | null
// An exercise is passed when `passedAt` is a number (0 when the time was not recorded).
// Times are milliseconds since the epoch. `choice` holds indexes into the
// rendered question's `options` (the file's order, not the shuffled order).
//
// Version 1 was the first, flat shape (one map per kind of thing):
//   { version: 1, read: [sectionId], drafts: { [name]: code }, hints: { [name]: n },
//     passed: [name], quizAnswers: { [quizKey]: { [questionId]: { choice?, text?, correct } } } }
// It is migrated field by field; nothing in it is dropped unless it is unreadable.

export const SCHEMA_VERSION = 2;

/** Bounds on what a saved copy may hold; anything beyond them is treated as damage. */
export const LIMITS = Object.freeze({
  draftCharsMax: 1_000_000,
  answerTextCharsMax: 2_000,
  runSummaryCharsMax: 2_000,
  idCharsMax: 200,
  entriesMax: 500,
  choicesMax: 64,
  hintsMax: 64,
  queueMax: 200,
  roundMax: 1_000_000,
});

export const QUIZ_MODES = Object.freeze(["question", "summary", "review"]);

export function emptyProgress() {
  return { version: SCHEMA_VERSION, sections: {}, quizzes: {}, exercises: {} };
}

export function emptyExercise() {
  return { draft: null, draftAt: null, hintsUnlocked: 0, passedAt: null, lastRun: null };
}

// ---- reading a saved copy ------------------------------------------------

/**
 * Turns the saved text (or null when nothing is saved) into progress.
 * Never throws. Returns `{ progress, status, notes }`:
 * - status "empty": nothing was saved;
 * - "ok": read in full;
 * - "migrated": an older version, converted in full;
 * - "recovered": some or all of it could not be read; `notes` says what was left out.
 * The caller should keep a copy of the text whenever the status is "recovered".
 */
export function readSaved(text) {
  if (text === null || text === undefined || text === "") {
    return { progress: emptyProgress(), status: "empty", notes: [] };
  }
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return { progress: emptyProgress(), status: "recovered", notes: ["The saved progress is damaged (it is not valid JSON), so none of it could be read."] };
  }
  if (!isRecord(raw)) {
    return { progress: emptyProgress(), status: "recovered", notes: ["The saved progress has an unexpected shape, so none of it could be read."] };
  }
  const notes = [];
  let candidate = raw;
  let status = "ok";
  if (raw.version === 1) {
    candidate = migrateV1(raw, notes);
    status = "migrated";
  } else if (raw.version !== SCHEMA_VERSION) {
    const described = Number.isInteger(raw.version) && raw.version > SCHEMA_VERSION
      ? `was saved by a newer version of this page (format ${raw.version})`
      : "carries no format version I know";
    notes.push(`The saved progress ${described}; every part in a shape this page understands was kept.`);
  }
  const progress = sanitize(candidate, notes);
  if (notes.length > 0) status = "recovered";
  return { progress, status, notes };
}

/** Version 1 → version 2. Unreadable parts are left for `sanitize` to report. */
export function migrateV1(raw, notes) {
  const progress = emptyProgress();
  const read = Array.isArray(raw.read) ? raw.read : [];
  for (const id of read) if (isId(id)) progress.sections[id] = { readAt: null };
  if (raw.read !== undefined && !Array.isArray(raw.read)) notes.push("The list of sections you had read could not be read.");

  for (const part of ["drafts", "hints", "quizAnswers"]) {
    if (raw[part] !== undefined && !isRecord(raw[part])) notes.push(`The saved ${part} (format 1) could not be read.`);
  }
  if (raw.passed !== undefined && !Array.isArray(raw.passed)) notes.push("The list of exercises you had passed could not be read.");
  const exercise = (name) => (progress.exercises[name] ??= emptyExercise());
  // Names are checked before they are used as keys (isId): `sanitize` would drop a bad one, but too late
  // for `progress.exercises["__proto__"] ??= …`, which is Object.prototype itself.
  for (const [name, code] of entries(raw.drafts)) if (isId(name)) exercise(name).draft = code;
  for (const [name, count] of entries(raw.hints)) if (isId(name)) exercise(name).hintsUnlocked = count;
  const passed = Array.isArray(raw.passed) ? raw.passed : [];
  // Version 1 kept no times; 0 stands for "passed, at a time not recorded".
  for (const name of passed) if (isId(name)) exercise(name).passedAt = 0;
  for (const [quizKey, answers] of entries(raw.quizAnswers)) {
    if (!isId(quizKey)) continue;
    progress.quizzes[quizKey] = { answers: {}, view: null };
    for (const [questionId, answer] of entries(answers)) {
      if (isId(questionId)) progress.quizzes[quizKey].answers[questionId] = isRecord(answer) ? { fingerprint: null, at: null, ...answer } : answer;
    }
  }
  return progress;
}

/** Copies every readable part of a version-2-shaped object; notes each part left out. */
export function sanitize(raw, notes = []) {
  const progress = emptyProgress();

  for (const [id, entry] of boundedEntries(raw.sections, "sections", notes)) {
    if (isRecord(entry)) progress.sections[id] = { readAt: timeOrNull(entry.readAt) };
    else notes.push(`The read mark of section "${id}" could not be read.`);
  }

  for (const [quizKey, quiz] of boundedEntries(raw.quizzes, "quizzes", notes)) {
    if (!isRecord(quiz)) {
      notes.push(`Your answers to the quiz "${quizKey}" could not be read.`);
      continue;
    }
    const answers = {};
    for (const [questionId, answer] of boundedEntries(quiz.answers, `answers of "${quizKey}"`, notes)) {
      const clean = sanitizeAnswer(answer);
      if (clean) answers[questionId] = clean;
      else notes.push(`Your answer to question "${questionId}" of "${quizKey}" could not be read.`);
    }
    progress.quizzes[quizKey] = { answers, view: sanitizeQuizView(quiz.view) };
  }

  for (const [name, entry] of boundedEntries(raw.exercises, "exercises", notes)) {
    if (!isRecord(entry)) {
      notes.push(`Your work on the exercise "${name}" could not be read.`);
      continue;
    }
    const exercise = emptyExercise();
    if (typeof entry.draft === "string" && entry.draft.length <= LIMITS.draftCharsMax) {
      exercise.draft = entry.draft;
      exercise.draftAt = timeOrNull(entry.draftAt);
    } else if (entry.draft !== null && entry.draft !== undefined) {
      notes.push(`Your draft of the exercise "${name}" could not be read.`);
    }
    if (isCount(entry.hintsUnlocked, LIMITS.hintsMax)) exercise.hintsUnlocked = entry.hintsUnlocked;
    else if (entry.hintsUnlocked !== undefined) notes.push(`How many hints you had opened for "${name}" could not be read.`);
    if (entry.passedAt !== null && entry.passedAt !== undefined) {
      if (isTime(entry.passedAt)) exercise.passedAt = entry.passedAt;
      else notes.push(`Whether you had passed "${name}" could not be read.`);
    }
    exercise.lastRun = sanitizeRun(entry.lastRun);
    progress.exercises[name] = exercise;
  }
  return progress;
}

function sanitizeAnswer(answer) {
  if (!isRecord(answer) || typeof answer.correct !== "boolean") return null;
  const clean = { correct: answer.correct, fingerprint: null, at: timeOrNull(answer.at) };
  if (typeof answer.fingerprint === "string" && answer.fingerprint.length <= LIMITS.idCharsMax) clean.fingerprint = answer.fingerprint;
  const hasChoice = answer.choice !== undefined;
  const hasText = answer.text !== undefined;
  if (hasChoice === hasText) return null;
  if (hasChoice) {
    const valid = Array.isArray(answer.choice)
      && answer.choice.length <= LIMITS.choicesMax
      && answer.choice.every((index) => isCount(index, LIMITS.choicesMax));
    if (!valid) return null;
    clean.choice = [...new Set(answer.choice)].sort((a, b) => a - b);
  } else {
    if (typeof answer.text !== "string" || answer.text.length > LIMITS.answerTextCharsMax) return null;
    clean.text = answer.text;
  }
  return clean;
}

function sanitizeQuizView(view) {
  if (!isRecord(view) || !QUIZ_MODES.includes(view.mode)) return null;
  const queueValid = Array.isArray(view.queue)
    && view.queue.length <= LIMITS.queueMax
    && view.queue.every((index) => isCount(index, LIMITS.queueMax));
  if (!queueValid || !isCount(view.position, LIMITS.queueMax) || typeof view.checked !== "boolean") return null;
  // `round` is newer than the rest: a view without one is round 0.
  return { mode: view.mode, queue: [...view.queue], position: view.position, checked: view.checked, ...(isCount(view.round, LIMITS.roundMax) ? { round: view.round } : {}) };
}

function sanitizeRun(run) {
  if (!isRecord(run) || typeof run.passed !== "boolean") return null;
  const summary = typeof run.summary === "string" ? run.summary.slice(0, LIMITS.runSummaryCharsMax) : "";
  return { at: timeOrNull(run.at), passed: run.passed, summary };
}

// ---- changing progress ---------------------------------------------------

/**
 * The one way progress changes. Pure: returns a new object and leaves the
 * old one alone. Actions:
 * - { type: "section-read", section, at }
 * - { type: "quiz-saved", quiz, answers, view }
 * - { type: "draft-set", exercise, code, at } / { type: "draft-cleared", exercise }
 * - { type: "hints-unlocked", exercise, count } (never lowers the count)
 * - { type: "run-recorded", exercise, passed, summary, at } (a pass is kept for good)
 * - { type: "exercise-passed", exercise, at }
 * - { type: "reset" }
 * - { type: "replaced", progress } (an import: everything replaced by `progress`, checked as a saved copy is)
 */
export function update(progress, action) {
  switch (action.type) {
    case "section-read":
      assertId(action.section);
      if (progress.sections[action.section]) return progress;
      return { ...progress, sections: { ...progress.sections, [action.section]: { readAt: action.at ?? null } } };
    case "quiz-saved": {
      assertId(action.quiz);
      const answers = {};
      for (const [questionId, answer] of Object.entries(action.answers ?? {})) {
        const clean = sanitizeAnswer(answer);
        if (!clean) throw new Error(`quiz-saved: the answer to "${questionId}" is malformed; pass { choice: [indexes] } or { text }, plus correct`);
        answers[questionId] = clean;
      }
      return { ...progress, quizzes: { ...progress.quizzes, [action.quiz]: { answers, view: sanitizeQuizView(action.view) } } };
    }
    case "draft-set":
      if (typeof action.code !== "string") throw new Error("draft-set: code must be a string");
      return withExercise(progress, action.exercise, { draft: action.code, draftAt: action.at ?? null });
    case "draft-cleared":
      return withExercise(progress, action.exercise, { draft: null, draftAt: null });
    case "hints-unlocked": {
      if (!isCount(action.count, LIMITS.hintsMax)) throw new Error(`hints-unlocked: count must be a whole number from 0 to ${LIMITS.hintsMax}`);
      const current = progress.exercises[action.exercise]?.hintsUnlocked ?? 0;
      if (action.count <= current) return progress;
      return withExercise(progress, action.exercise, { hintsUnlocked: action.count });
    }
    case "run-recorded": {
      const current = progress.exercises[action.exercise] ?? emptyExercise();
      const lastRun = { at: action.at ?? null, passed: Boolean(action.passed), summary: String(action.summary ?? "").slice(0, LIMITS.runSummaryCharsMax) };
      const passedAt = current.passedAt ?? (action.passed ? action.at ?? 0 : null);
      return withExercise(progress, action.exercise, { lastRun, passedAt });
    }
    case "exercise-passed": {
      if (progress.exercises[action.exercise]?.passedAt != null) return progress;
      return withExercise(progress, action.exercise, { passedAt: action.at ?? 0 });
    }
    case "reset":
      return emptyProgress();
    case "replaced":
      // Imported progress: read like a saved copy, so nothing malformed gets in.
      return readSaved(serialize(action.progress)).progress;
    default:
      throw new Error(`unknown progress action "${action.type}"`);
  }
}

function withExercise(progress, name, changes) {
  assertId(name);
  const current = progress.exercises[name] ?? emptyExercise();
  return { ...progress, exercises: { ...progress.exercises, [name]: { ...current, ...changes } } };
}

/** The text to save. `readSaved(serialize(p)).progress` equals `p`. */
export function serialize(progress) {
  return JSON.stringify(progress);
}

// ---- small checks ----------------------------------------------------------

function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value) {
  // Never a name every object has ("__proto__", "constructor", …): as a key of a
  // plain object it would reach Object.prototype (an old file's "__proto__" draft did).
  return typeof value === "string" && value.length > 0 && value.length <= LIMITS.idCharsMax && !Object.prototype.hasOwnProperty.call(Object.prototype, value);
}

function assertId(value) {
  if (!isId(value)) throw new Error(`expected a non-empty id of at most ${LIMITS.idCharsMax} characters, got ${JSON.stringify(value)}`);
}

function isCount(value, max) {
  return Number.isInteger(value) && value >= 0 && value <= max;
}

function isTime(value) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function timeOrNull(value) {
  return isTime(value) ? value : null;
}

function entries(value) {
  return isRecord(value) ? Object.entries(value) : [];
}

/** The entries of a map-shaped part, at most `LIMITS.entriesMax`, with valid ids only. */
function boundedEntries(value, what, notes) {
  if (value === undefined) return [];
  if (!isRecord(value)) {
    notes.push(`The saved ${what} could not be read.`);
    return [];
  }
  const all = Object.entries(value);
  const kept = all.filter(([id]) => isId(id));
  if (kept.length < all.length) notes.push(`Some saved ${what} had unreadable names and were left out.`);
  if (kept.length > LIMITS.entriesMax) {
    notes.push(`The saved ${what} had more than ${LIMITS.entriesMax} entries; the rest were left out.`);
    return kept.slice(0, LIMITS.entriesMax);
  }
  return kept;
}
