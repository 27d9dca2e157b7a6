// The quizzes' answers, sealed in the page's data so that reading the page's
// source does not give them away.
//
// The page grades and explains answers itself, so it must carry them: this
// is a seal against a glance, not a secret (the page's own code opens it).
// What it hides, per question: which options are right, each option's
// explanation and the context (they say which is right), the accepted short
// answers; and the order of the options, which the lesson's renderer lists
// right ones first. The sealed question keeps its prompt and options' text,
// in a shuffled order, and `sealed`: the rest, as JSON with its letters and
// digits rotated (ROT13 and ROT5), which no search for a word or a number
// finds, and which still compresses like text (the page's first download
// stays small). `openAnswers` gives back the very quiz `sealAnswers` was given.
import { hashString, seededRandom, shuffled } from "./shuffle.js";

/** Letters by 13, digits by 5: each rotation is its own inverse, so one function seals and opens. */
function rotate(text) {
  return text.replace(/[A-Za-z0-9]/g, (char) => {
    const code = char.charCodeAt(0);
    if (code <= 57) return String.fromCharCode(48 + ((code - 48 + 5) % 10));
    const base = code <= 90 ? 65 : 97;
    return String.fromCharCode(base + ((code - base + 13) % 26));
  });
}

const seal = (value) => rotate(JSON.stringify(value));
const unseal = (text) => JSON.parse(rotate(text));

/** `quizzes` (by key, as the lesson JSON has them) with every question's answers sealed. */
export function sealAnswers(quizzes) {
  return Object.fromEntries(
    Object.entries(quizzes).map(([quizKey, quiz]) => [
      quizKey,
      {
        ...quiz,
        questions: quiz.questions.map((question, index) => {
          const { context_html: context = null, answer, alternatives, options, ...shown } = question;
          const hidden = { context };
          const sealedQuestion = { ...shown, context_html: null };
          if (options) {
            const order = shuffled(options.map((_, at) => at), seededRandom(hashString(`${quizKey}\u0000order\u0000${index}`)));
            hidden.order = order;
            hidden.correct = options.map((option) => Boolean(option.correct));
            hidden.explanations = options.map((option) => option.explanation_html ?? null);
            sealedQuestion.options = order.map((at) => {
              const { correct, explanation_html, ...text } = options[at];
              return text;
            });
          }
          if (answer !== undefined) {
            hidden.answer = answer;
            hidden.alternatives = alternatives ?? null;
          }
          sealedQuestion.sealed = seal(hidden);
          return sealedQuestion;
        }),
      },
    ]),
  );
}

/** The quizzes as the lesson JSON had them, from what `sealAnswers` made. */
export function openAnswers(quizzes) {
  return Object.fromEntries(
    Object.entries(quizzes).map(([quizKey, quiz]) => [
      quizKey,
      {
        ...quiz,
        questions: quiz.questions.map((question, index) => {
          const { sealed, options, ...rest } = question;
          const hidden = unseal(sealed);
          const opened = { ...rest, context_html: hidden.context };
          if (options) {
            const original = [];
            hidden.order.forEach((at, shownAt) => {
              original[at] = { ...options[shownAt], correct: hidden.correct[at], explanation_html: hidden.explanations[at] };
            });
            opened.options = original;
          }
          if ("answer" in hidden) {
            opened.answer = hidden.answer;
            if (hidden.alternatives !== null) opened.alternatives = hidden.alternatives;
          }
          return opened;
        }),
      },
    ]),
  );
}
