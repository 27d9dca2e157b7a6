// A quiz's pure core: its state, `update(state, action)`, grading, and the
// conversion to and from the saved form (storage/schema.js, `quizzes`).
//
// The flow: questions one at a time ("question" mode: choose, check, see
// why, next); then a "summary" with the score, from which the learner can
// retry only the wrong ones, review every answer, or answer all again.
//
// A wrong first answer does not give the right one away: the learner sees
// why their choice does not hold, and the right answer only when they ask
// for it ("Show the answer") or when they get the question wrong again on a
// later round. Each round (a retry, or answering all again) shows the
// options in a new order, so a retry asks for the reason, not the place.
import { hashString } from "./shuffle.js";

/** A question's stable key: its id, or its position when the author gave none. */
export function questionKey(question, index) {
  return question.id ?? `question-${index + 1}`;
}

/** Question types this page can ask and grade. Others are shown as not supported. */
export function isGradable(question) {
  return question.type === "MultipleChoice" || question.type === "ShortAnswer";
}

/** A hash of what a question asks and accepts: a saved answer to a question since changed is not reused. */
export function fingerprint(question) {
  const parts = [question.type, question.prompt_html ?? ""];
  if (question.type === "MultipleChoice") for (const option of question.options) parts.push(`${option.correct ? "+" : "-"}${option.html}`);
  if (question.type === "ShortAnswer") parts.push(question.answer, ...(question.alternatives ?? []));
  return hashString(parts.join("\u0000")).toString(36);
}

/** How short answers are compared: case, surrounding space and runs of space do not matter. */
export function normalizeAnswer(text) {
  return String(text).normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ");
}

/** Whether a response (`{ choice }` or `{ text }`) answers the question right. */
export function grade(question, response) {
  if (question.type === "MultipleChoice") {
    const chosen = new Set(response.choice ?? []);
    const correct = question.options.flatMap((option, index) => (option.correct ? [index] : []));
    if (!question.multiple && chosen.size !== 1) return false;
    return chosen.size === correct.length && correct.every((index) => chosen.has(index));
  }
  if (question.type === "ShortAnswer") {
    const accepted = [question.answer, ...(question.alternatives ?? [])];
    const given = normalizeAnswer(response.text ?? "");
    if (accepted.some((text) => normalizeAnswer(text) === given)) return true;
    return numericMatch(accepted, response.text ?? "");
  }
  return false;
}

/** Unit words a learner may write, by the symbol they stand for. */
const UNIT_SYMBOLS = new Map([
  ...["s", "sec", "secs", "second", "seconds"].map((word) => [word, "s"]),
  ...["ms", "msec", "millisecond", "milliseconds"].map((word) => [word, "ms"]),
  ...["min", "mins", "minute", "minutes"].map((word) => [word, "min"]),
  ...["h", "hr", "hrs", "hour", "hours"].map((word) => [word, "h"]),
  ...["d", "day", "days"].map((word) => [word, "day"]),
  ...["%", "percent", "per cent", "pct"].map((word) => [word, "%"]),
]);

/**
 * A numeric answer read leniently: `{ value, unit }` where the number may use
 * thousands separators ("86,400", "86 400", "86_400") or a decimal comma
 * ("8,64"), and the unit is one of `UNIT_SYMBOLS`' words, with or without a
 * space ("8.64s", "8.64 seconds", "99.99%"); null when the text is not that.
 */
export function parseNumericAnswer(text) {
  const match = /^([+-]?)(\d{1,3}(?:[,\u00a0\u202f _]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?|\.\d+)\s*(.*)$/.exec(normalizeAnswer(text));
  if (!match) return null;
  const [, sign, digits, unitWord] = match;
  // A comma followed by exactly three digits is a thousands separator; any other single comma is a decimal comma.
  const grouped = /^\d{1,3}(?:[,\u00a0\u202f _]\d{3})+(?:\.\d+)?$/.test(digits);
  const plain = grouped ? digits.replace(/[,\u00a0\u202f _]/g, "") : digits.replace(",", ".");
  const value = Number(`${sign}${plain}`);
  if (!Number.isFinite(value)) return null;
  const unit = unitWord === "" ? "" : UNIT_SYMBOLS.get(unitWord.replace(/\.$/, "")) ?? null;
  if (unit === null) return null;
  return { value, unit };
}

/**
 * Whether `given` states the same number as one of the accepted answers,
 * in a unit the answers use: "8.64 seconds" for "8.64 s", "86400" for
 * "86,400". A bare number matches whatever unit the answers use; a unit
 * matches only if some accepted answer uses it (or none names a unit).
 */
function numericMatch(accepted, given) {
  const answer = parseNumericAnswer(given);
  if (answer === null) return false;
  const forms = accepted.map(parseNumericAnswer).filter((form) => form !== null);
  const units = new Set(forms.map((form) => form.unit).filter((unit) => unit !== ""));
  if (answer.unit !== "" && units.size > 0 && !units.has(answer.unit)) return false;
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return forms.some((form) => close(form.value, answer.value));
}

const EMPTY_PENDING = Object.freeze({ choice: Object.freeze([]), text: "" });

/** The indexes of the questions the page asks, in file order. */
export function gradableIndexes(quiz) {
  return quiz.questions.flatMap((question, index) => (isGradable(question) ? [index] : []));
}

/**
 * The starting state for `quiz`, restored from its saved form (or null).
 * Saved answers that no longer fit the question (changed content, bad
 * indexes) are left out; a saved position that no longer fits is rebuilt.
 */
export function initQuiz(quiz, saved = null) {
  const answers = {};
  quiz.questions.forEach((question, index) => {
    const answer = saved?.answers?.[questionKey(question, index)];
    const restored = answer && restoreAnswer(question, answer);
    if (restored) answers[questionKey(question, index)] = restored;
  });
  const view = saved?.view;
  const round = Number.isSafeInteger(view?.round) && view.round >= 0 ? view.round : 0;
  const state = { quiz, answers, mode: "question", pass: "first", round, queue: gradableIndexes(quiz), position: 0, checked: false, revealed: false, pending: EMPTY_PENDING, error: null };
  const viewFits = view
    && view.queue.length > 0
    && view.queue.every((index) => index < quiz.questions.length && isGradable(quiz.questions[index]))
    && view.position < view.queue.length
    && (!view.checked || answers[keyAt(quiz, view.queue[view.position])]);
  if (viewFits) {
    const restored = { ...state, mode: view.mode, queue: [...view.queue], position: view.position, checked: view.mode === "question" && view.checked };
    restored.pass = restored.queue.length < state.queue.length ? "retry" : "first";
    if (restored.mode === "question" && restored.checked) restored.pending = pendingFrom(answers[keyAt(quiz, restored.queue[restored.position])]);
    return restored;
  }
  const firstOpen = state.queue.findIndex((index) => !answers[keyAt(quiz, index)]);
  if (state.queue.length > 0 && firstOpen === -1) return { ...state, mode: "summary" };
  return { ...state, position: Math.max(0, firstOpen) };
}

function restoreAnswer(question, answer) {
  if (answer.fingerprint && answer.fingerprint !== fingerprint(question)) return null;
  if (question.type === "MultipleChoice") {
    const choice = answer.choice;
    if (!Array.isArray(choice) || choice.length === 0 || choice.some((index) => index >= question.options.length)) return null;
    if (!question.multiple && choice.length !== 1) return null;
    return { choice: [...choice], correct: grade(question, { choice }), fingerprint: fingerprint(question), at: answer.at ?? null };
  }
  if (question.type === "ShortAnswer") {
    if (typeof answer.text !== "string" || answer.text.trim() === "") return null;
    return { text: answer.text, correct: grade(question, { text: answer.text }), fingerprint: fingerprint(question), at: answer.at ?? null };
  }
  return null;
}

function pendingFrom(answer) {
  if (!answer) return EMPTY_PENDING;
  return { choice: answer.choice ? [...answer.choice] : [], text: answer.text ?? "" };
}

function keyAt(quiz, index) {
  return questionKey(quiz.questions[index], index);
}

/** The index (into quiz.questions) of the question being asked, or null. */
export function currentIndex(state) {
  return state.mode === "question" ? state.queue[state.position] ?? null : null;
}

/** The answer recorded for the question at `index`, or undefined. */
export function answerAt(state, index) {
  return state.answers[keyAt(state.quiz, index)];
}

/**
 * Whether the question on show shows its right answer: once it is checked,
 * when the answer was right, when the learner asked for it, or on a later
 * round (the learner is trying again: the answer is not held back twice).
 */
export function showsAnswer(state) {
  if (state.mode !== "question" || !state.checked) return false;
  return Boolean(answerAt(state, currentIndex(state))?.correct) || state.revealed || state.round > 0;
}

/** Counts for the summary and the table of contents. */
export function score(state) {
  const asked = gradableIndexes(state.quiz);
  const answered = asked.filter((index) => answerAt(state, index));
  const right = answered.filter((index) => answerAt(state, index).correct);
  return { total: asked.length, answered: answered.length, right: right.length, wrong: asked.filter((index) => !answerAt(state, index)?.correct) };
}

/**
 * Actions:
 * - { type: "choose", option }      pick one option (single answer)
 * - { type: "toggle", option }      tick or untick an option (select all that apply)
 * - { type: "type", text }          edit a short answer
 * - { type: "check", at }           grade the pending response and record it
 * - { type: "reveal" }              show the right answer of a question answered wrong
 * - { type: "next" }                the next question, or the summary after the last
 * - { type: "retry-wrong" }         ask only the questions not answered right
 * - { type: "again" }               ask every question again (answers are replaced as you go)
 * - { type: "review" } / { type: "summary" }
 * - { type: "reset" }               forget every answer
 */
export function update(state, action) {
  const index = currentIndex(state);
  const question = index === null ? null : state.quiz.questions[index];
  const editable = question !== null && !state.checked;
  switch (action.type) {
    case "choose":
      if (!editable || question.type !== "MultipleChoice" || !validOption(question, action.option)) return state;
      return { ...state, pending: { ...state.pending, choice: [action.option] }, error: null };
    case "toggle": {
      if (!editable || question.type !== "MultipleChoice" || !validOption(question, action.option)) return state;
      const chosen = new Set(state.pending.choice);
      if (chosen.has(action.option)) chosen.delete(action.option);
      else chosen.add(action.option);
      return { ...state, pending: { ...state.pending, choice: [...chosen].sort((a, b) => a - b) }, error: null };
    }
    case "type":
      if (!editable || question.type !== "ShortAnswer") return state;
      return { ...state, pending: { ...state.pending, text: String(action.text) }, error: null };
    case "check": {
      if (!editable) return state;
      const missing = missingResponse(question, state.pending);
      if (missing) return { ...state, error: missing };
      const response = question.type === "ShortAnswer" ? { text: state.pending.text.trim() } : { choice: [...state.pending.choice] };
      const answer = { ...response, correct: grade(question, response), fingerprint: fingerprint(question), at: action.at ?? null };
      return { ...state, checked: true, revealed: false, error: null, answers: { ...state.answers, [questionKey(question, index)]: answer } };
    }
    case "reveal":
      if (state.mode !== "question" || !state.checked || showsAnswer(state)) return state;
      return { ...state, revealed: true };
    case "next":
      if (state.mode !== "question" || !state.checked) return state;
      if (state.position + 1 < state.queue.length) return { ...state, position: state.position + 1, checked: false, revealed: false, pending: EMPTY_PENDING, error: null };
      return { ...state, mode: "summary", checked: false, revealed: false, pending: EMPTY_PENDING, error: null };
    case "retry-wrong": {
      const wrong = score(state).wrong;
      if (state.mode === "question" || wrong.length === 0) return state;
      return { ...state, mode: "question", pass: "retry", round: state.round + 1, queue: wrong, position: 0, checked: false, revealed: false, pending: EMPTY_PENDING, error: null };
    }
    case "again":
      if (state.mode === "question") return state;
      return { ...state, mode: "question", pass: "first", round: state.round + 1, queue: gradableIndexes(state.quiz), position: 0, checked: false, revealed: false, pending: EMPTY_PENDING, error: null };
    case "review":
      if (state.mode === "question") return state;
      return { ...state, mode: "review" };
    case "summary":
      if (state.mode === "question") return state;
      return { ...state, mode: "summary" };
    case "reset":
      return initQuiz(state.quiz, null);
    default:
      throw new Error(`unknown quiz action "${action.type}"`);
  }
}

function validOption(question, option) {
  return Number.isInteger(option) && option >= 0 && option < question.options.length;
}

function missingResponse(question, pending) {
  if (question.type === "ShortAnswer") return pending.text.trim() === "" ? "Type an answer first." : null;
  if (pending.choice.length > 0) return null;
  return question.multiple ? "Choose at least one answer first." : "Choose an answer first.";
}

/** The saved form (storage/schema.js): answers plus where the learner is. */
export function toSaved(state) {
  return {
    answers: state.answers,
    view: { mode: state.mode, queue: state.queue, position: state.position, checked: state.checked, round: state.round },
  };
}
