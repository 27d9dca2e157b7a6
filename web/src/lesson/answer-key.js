// The quizzes' answers, sealed in the page's data so that reading the page's
// source does not give them away.
//
// The page grades and explains answers itself, so it must carry them: this
// is a seal against a glance, not a secret (the page's own code opens it).
// What it hides, per question: which options are right, each option's
// explanation and the context (they say which is right), the accepted short
// answers; and the order of the options, which the lesson's renderer lists
// right ones first. The sealed question keeps its prompt and options' text,
// in a shuffled order, and `sealed`: the rest, as JSON, XOR-ed with a stream
// seeded by the quiz and the question, in base64. `openAnswers` gives back
// the very quiz `sealAnswers` was given.
import { hashString, seededRandom, shuffled } from "./shuffle.js";

/** The keystream for one question: the same in the build and the page. */
function keystream(quizKey, index) {
  const random = seededRandom(hashString(`${quizKey}\u0000${index}`));
  return () => Math.floor(random() * 256);
}

function seal(value, next) {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte ^ next());
  return btoa(binary);
}

function unseal(text, next) {
  const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0) ^ next());
  return JSON.parse(new TextDecoder().decode(bytes));
}

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
          sealedQuestion.sealed = seal(hidden, keystream(quizKey, index));
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
          const hidden = unseal(sealed, keystream(quizKey, index));
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
