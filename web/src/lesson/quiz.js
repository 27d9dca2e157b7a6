// A quiz's imperative shell: turns clicks and keys into actions, renders the
// live part from state, saves answers, moves focus and announces verdicts.
import { textOf } from "./html.js";
import { morph } from "./morph.js";
import { answerAt, currentIndex, initQuiz, showsAnswer, toSaved, update } from "./quiz-state.js";
import { quizDomId, renderLive, verdictText } from "./quiz-view.js";
import { optionOrder } from "./shuffle.js";

/** Actions that change what is worth keeping (answers, where the learner is). */
const SAVED_ACTIONS = new Set(["check", "next", "retry-wrong", "again", "review", "summary"]);

/** Mounts the quiz rendered by the build in `root`. Returns `{ state }` for tests and tools. */
export function mountQuiz(root, quizKey, quiz, progress) {
  const id = quizDomId(quizKey);
  const live = root.querySelector(".quiz-live");
  const announcer = root.querySelector(".quiz-announce");
  let state = initQuiz(quiz, progress.getQuiz(quizKey));

  const render = () => morph(live, renderLive(id, state));

  function dispatch(action) {
    const before = state;
    state = update(state, action);
    if (state === before) return;
    render();
    if (SAVED_ACTIONS.has(action.type) && !(action.type === "check" && state.error)) progress.saveQuiz(quizKey, toSaved(state));
    follow(action);
  }

  /** Focus and announcements after an action, so keyboard and screen-reader users keep their place. */
  function follow(action) {
    const focus = (selector) => live.querySelector(selector)?.focus();
    switch (action.type) {
      case "check": {
        if (state.error) {
          announce(state.error);
          return;
        }
        const index = currentIndex(state);
        const question = quiz.questions[index];
        const answer = answerAt(state, index);
        announce(`${answer.correct ? "Right." : "Not quite."} ${textOf(verdictText(question, answer, { open: showsAnswer(state) }))}`.trim());
        focus('[data-action="next"]');
        return;
      }
      case "reveal": {
        const question = quiz.questions[currentIndex(state)];
        const right = question.type === "ShortAnswer" ? question.answer : question.options.filter((option) => option.correct).map((option) => textOf(option.html)).join("; ");
        announce(`The right answer: ${right}.`);
        focus('[data-action="next"]');
        return;
      }
      case "next":
      case "retry-wrong":
      case "again":
        if (state.mode === "question") {
          focus(`#${id}-q${currentIndex(state)}-prompt`);
          announce(`Question ${state.position + 1} of ${state.queue.length}.`);
        } else {
          focus(`#${id}-summary`);
        }
        return;
      case "review":
        focus(`#${id}-review`);
        return;
      case "summary":
        focus(`#${id}-summary`);
        return;
      default:
    }
  }

  function announce(text) {
    // Clearing first makes a repeated message ("Choose an answer first.") be read again.
    announcer.textContent = "";
    requestAnimationFrame(() => {
      announcer.textContent = text;
    });
  }

  live.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || (input.type !== "radio" && input.type !== "checkbox")) return;
    // An option's value is its place on screen in this round's order (quiz-view.js), not its index in the quiz.
    const index = currentIndex(state);
    const option = index === null ? undefined : optionOrder(quiz.questions[index], state.round)[Number(input.value)];
    if (option === undefined) return;
    if (input.type === "radio") dispatch({ type: "choose", option });
    if (input.type === "checkbox") dispatch({ type: "toggle", option });
  });
  live.addEventListener("input", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type === "text") dispatch({ type: "type", text: event.target.value });
  });
  live.addEventListener("submit", (event) => {
    event.preventDefault();
    dispatch({ type: "check", at: Date.now() });
  });
  live.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button && live.contains(button)) dispatch({ type: button.dataset.action });
  });
  progress.subscribe((_, action) => {
    if (action.type === "reset") {
      state = initQuiz(quiz, null);
      render();
    }
  });

  render();
  root.dataset.ready = "true";
  return {
    get state() {
      return state;
    },
  };
}
