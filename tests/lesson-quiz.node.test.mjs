// The quiz's pure core and string view: grading, the question → summary →
// retry → review flow, restoring from saved progress, the seeded option
// order, and the markup the build and the page share.
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerAt, currentIndex, fingerprint, grade, initQuiz, normalizeAnswer, score, toSaved, update } from "../web/src/lesson/quiz-state.js";
import { quizDomId, renderLive, renderQuiz } from "../web/src/lesson/quiz-view.js";
import { hashString, optionOrder } from "../web/src/lesson/shuffle.js";
import { openAnswers, sealAnswers } from "../web/src/lesson/answer-key.js";
import { readSaved, serialize, update as updateProgress, emptyProgress } from "../web/src/storage/schema.js";
import { lessonJson } from "./support/lesson.mjs";

const option = (html, correct, why = `${html} because.`) => ({ html, correct, explanation_html: why });
const single = { type: "MultipleChoice", id: "one", prompt_html: "<p>Pick one</p>", context_html: "<p>Context.</p>", multiple: false, options: [option("right", true), option("wrong a", false), option("wrong b", false)] };
const several = { type: "MultipleChoice", id: "many", prompt_html: "<p>Pick all</p>", context_html: null, multiple: true, options: [option("r1", true), option("r2", true), option("w1", false)] };
const short = { type: "ShortAnswer", id: "short", prompt_html: "<p>Type it</p>", context_html: null, response: "short", answer: "8.6", alternatives: ["8.64", "8.6 s"] };
const quiz = { title: null, multipart_html: {}, questions: [single, several, short] };

/** Runs actions from a state, returning the final state. */
const run = (state, ...actions) => actions.reduce((current, action) => update(current, action), state);

// ---- grading, as a table -------------------------------------------------------

const gradeCases = [
  [single, { choice: [0] }, true],
  [single, { choice: [1] }, false],
  [single, { choice: [0, 1] }, false],
  [single, { choice: [] }, false],
  [several, { choice: [0, 1] }, true],
  [several, { choice: [1, 0] }, true],
  [several, { choice: [0] }, false],
  [several, { choice: [0, 1, 2] }, false],
  [short, { text: "8.6" }, true],
  [short, { text: "  8.64 " }, true],
  [short, { text: "8.6   S" }, true],
  [short, { text: "8" }, false],
  [short, { text: "" }, false],
];
for (const [question, response, expected] of gradeCases) {
  test(`grade: ${question.id} ${JSON.stringify(response)} → ${expected}`, () => assert.equal(grade(question, response), expected));
}

test("normalizeAnswer ignores case, surrounding space and repeated space", () => {
  assert.equal(normalizeAnswer("  Etcd  v3 "), "etcd v3");
  assert.equal(normalizeAnswer("ＥＴＣＤ"), "etcd", "full-width letters fold too");
});

// Numeric short answers: units spelled out or abbreviated, thousands separators, a decimal comma.
const seconds = { type: "ShortAnswer", id: "budget", answer: "8.6", alternatives: ["8.64", "8.6 s", "8.64 s"] };
const day = { type: "ShortAnswer", id: "day", answer: "86,400" };
const percent = { type: "ShortAnswer", id: "percent", answer: "99.99 %" };
const numericCases = [
  [seconds, "8.64 seconds", true], [seconds, "8.64 sec", true], [seconds, "8.64s", true], [seconds, "8,64 s", true], [seconds, "8.6 Seconds.", true],
  [seconds, "8.64 %", false, "a unit the answers do not use"], [seconds, "8.65", false], [seconds, "about 8.6", false],
  [day, "86400", true], [day, "86 400", true], [day, "86,400", true], [day, "86.400", false, "86.4, not 86,400"],
  [percent, "99.99%", true], [percent, "99.99 percent", true], [percent, "99.99", true, "a bare number"], [percent, "99.99 s", false],
];
for (const [question, text, expected, why = ""] of numericCases) {
  test(`grade (numeric): ${question.answer} given ${JSON.stringify(text)} → ${expected} ${why}`, () => assert.equal(grade(question, { text }), expected));
}

// ---- the flow ---------------------------------------------------------------------

test("question → check → next … → summary, with the answers recorded", () => {
  let state = initQuiz(quiz);
  assert.equal(state.mode, "question");
  assert.equal(currentIndex(state), 0);
  state = run(state, { type: "check" });
  assert.equal(state.error, "Choose an answer first.");
  assert.equal(state.checked, false);
  state = run(state, { type: "choose", option: 2 }, { type: "check", at: 5 });
  assert.deepEqual(answerAt(state, 0), { choice: [2], correct: false, fingerprint: fingerprint(single), at: 5 });
  assert.equal(run(state, { type: "choose", option: 0 }), state, "a checked answer cannot be changed");
  state = run(state, { type: "next" }, { type: "check" });
  assert.equal(state.error, "Choose at least one answer first.");
  state = run(state, { type: "toggle", option: 0 }, { type: "toggle", option: 1 }, { type: "toggle", option: 1 }, { type: "toggle", option: 1 }, { type: "check" });
  assert.equal(answerAt(state, 1).correct, true);
  state = run(state, { type: "next" }, { type: "check" });
  assert.equal(state.error, "Type an answer first.");
  state = run(state, { type: "type", text: " 8.64 " }, { type: "check" }, { type: "next" });
  assert.equal(state.mode, "summary");
  assert.deepEqual(score(state), { total: 3, answered: 3, right: 2, wrong: [0] });
  assert.equal(answerAt(state, 2).text, "8.64", "short answers are kept trimmed");
});

test("retry asks only the wrong ones; answers are replaced; then review and back", () => {
  let state = initQuiz(quiz);
  state = run(state, { type: "choose", option: 1 }, { type: "check" }, { type: "next" });
  state = run(state, { type: "toggle", option: 0 }, { type: "check" }, { type: "next" });
  state = run(state, { type: "type", text: "9" }, { type: "check" }, { type: "next" });
  state = run(state, { type: "retry-wrong" });
  assert.deepEqual(state.queue, [0, 1, 2]);
  state = run(state, { type: "choose", option: 0 }, { type: "check" }, { type: "next" });
  state = run(state, { type: "toggle", option: 2 }, { type: "check" }, { type: "next" });
  state = run(state, { type: "type", text: "8.6" }, { type: "check" }, { type: "next" });
  assert.deepEqual(score(state).wrong, [1]);
  state = run(state, { type: "retry-wrong" });
  assert.equal(state.pass, "retry");
  assert.deepEqual(state.queue, [1]);
  state = run(state, { type: "toggle", option: 0 }, { type: "toggle", option: 1 }, { type: "check" }, { type: "next" });
  assert.equal(score(state).right, 3);
  assert.equal(run(state, { type: "retry-wrong" }), state, "nothing to retry");
  state = run(state, { type: "review" });
  assert.equal(state.mode, "review");
  state = run(state, { type: "summary" }, { type: "again" });
  assert.deepEqual([state.mode, state.queue, state.position], ["question", [0, 1, 2], 0]);
  assert.equal(score(state).right, 3, "old answers stay until replaced");
});

// ---- saving and restoring ----------------------------------------------------------

test("restore: the learner is back where they were, even mid-question", () => {
  let state = run(initQuiz(quiz), { type: "choose", option: 0 }, { type: "check" }, { type: "next" }, { type: "toggle", option: 2 }, { type: "check" });
  const saved = readSaved(serialize(updateProgress(emptyProgress(), { type: "quiz-saved", quiz: "q", ...toSaved(state) }))).progress.quizzes.q;
  const restored = initQuiz(quiz, saved);
  assert.deepEqual([restored.mode, restored.position, restored.checked], ["question", 1, true]);
  assert.deepEqual(restored.pending.choice, [2], "the checked answer is shown again");
  assert.equal(renderLive("quiz-q", restored), renderLive("quiz-q", state));
});

test("restore: a changed question drops its old answer; a view that no longer fits is rebuilt", () => {
  const answers = { one: { choice: [0], correct: true, fingerprint: fingerprint(single), at: 1 }, many: { choice: [0, 1], correct: true, fingerprint: "stale", at: 1 }, short: { text: "8.6", correct: true, fingerprint: null, at: 1 } };
  const restored = initQuiz(quiz, { answers, view: { mode: "question", queue: [0, 7], position: 1, checked: true } });
  assert.deepEqual(Object.keys(restored.answers).sort(), ["one", "short"]);
  assert.deepEqual([restored.mode, restored.position], ["question", 1], "at the first open question");
  const out = initQuiz(quiz, { answers: { one: { choice: [9], correct: true } }, view: null });
  assert.deepEqual(out.answers, {}, "an option index beyond the question is dropped");
  const allAnswered = initQuiz(quiz, { answers: { ...answers, many: { choice: [2], correct: false } }, view: null });
  assert.equal(allAnswered.mode, "summary");
  assert.equal(answerAt(allAnswered, 1).correct, false, "correctness is graded again, not trusted");
});

// ---- option order ---------------------------------------------------------------------

test("optionOrder is a stable permutation seeded by the id, honouring answer_index and sort_answers", () => {
  const question = { ...single, options: [option("a", true), option("b", false), option("c", false), option("d", false)] };
  const order = optionOrder(question);
  assert.deepEqual([...order].sort(), [0, 1, 2, 3]);
  assert.deepEqual(optionOrder(question), order, "the same every time");
  assert.deepEqual(optionOrder({ ...question, sort_answers: true }), [0, 1, 2, 3]);
  for (const position of [0, 2, 3]) assert.equal(optionOrder({ ...question, answer_index: position })[position], 0);
  assert.notEqual(hashString("one"), hashString("two"));
});

test("in the real lesson, the right answer is not first in most questions", () => {
  const lesson = lessonJson();
  const questions = Object.values(lesson.quizzes).flatMap((entry) => entry.questions).filter((question) => question.type === "MultipleChoice");
  const firstIsRight = questions.filter((question) => question.options[optionOrder(question)[0]].correct).length;
  assert.ok(firstIsRight <= questions.length / 2, `${firstIsRight} of ${questions.length} questions show a right answer first`);
});

// ---- the view ----------------------------------------------------------------------------

test("renderQuiz: counter, one form, ghosts without ids, and unique ids", () => {
  const html = renderQuiz("quizzes/singleton-vs-election.toml", initQuiz(quiz));
  assert.equal(quizDomId("quizzes/singleton-vs-election.toml"), "quiz-singleton-vs-election");
  assert.match(html, /<span aria-hidden="true">1 \/ 3<\/span><span class="visually-hidden">Question 1 of 3<\/span>/);
  assert.match(html, /role="group"[^>]*aria-labelledby="quiz-singleton-vs-election-title"/);
  const ghosts = html.slice(html.indexOf('class="quiz-ghosts"'));
  assert.doesNotMatch(ghosts, /\sid="/, "ghosts carry no ids");
  assert.doesNotMatch(ghosts, /\sname="/, "ghost inputs join no radio group");
  assert.equal((ghosts.match(/class="quiz-question quiz-ghost"/g) ?? []).length, 3, "one ghost per question");
  const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
});

test("renderLive after a wrong first answer: why the choice does not hold, and the right answer held back until asked for", () => {
  const state = run(initQuiz(quiz), { type: "choose", option: 1 }, { type: "check" });
  const held = renderLive("quiz-x", state);
  assert.match(held, /Your choice<\/span> wrong a because\./);
  assert.doesNotMatch(held, /right because|Right answer|is-correct|Context\./, "nothing says which option is right, nor the context that explains it");
  assert.match(held, /<strong>Not quite\.<\/strong> The note under your choice says why it does not hold\./);
  assert.match(held, /data-action="next"[^>]*>Next question</);
  assert.match(held, /data-action="reveal"[^>]*>Show the answer</);
  assert.match(held, /<input[^>]*checked[^>]*disabled/);

  const revealed = renderLive("quiz-x", update(state, { type: "reveal" }));
  assert.match(revealed, /Your choice · wrong<\/span> wrong a because\./);
  assert.match(revealed, /Right answer<\/span> right because\./);
  assert.doesNotMatch(revealed, /wrong b because/, "an option neither chosen nor right is not explained");
  assert.match(revealed, /Context\./);
  assert.doesNotMatch(revealed, /data-action="reveal"/);
  assert.equal(update(run(initQuiz(quiz), { type: "choose", option: 0 }, { type: "check" }), { type: "reveal" }).revealed, false, "a right answer shows itself; nothing to reveal");
});

test("several answers, held back: the counts only, no option's note (it would tell which chosen ones are right)", () => {
  const state = run(initQuiz(quiz), { type: "choose", option: 0 }, { type: "check" }, { type: "next" }, { type: "toggle", option: 0 }, { type: "toggle", option: 2 }, { type: "check" });
  const held = renderLive("quiz-x", state);
  assert.match(held, /You chose 1 of the 2 right answers and 1 wrong one\. Think it through again, or show the answer\./);
  assert.doesNotMatch(held, /r1 because|w1 because|quiz-option[^"]*is-(wrong|correct)/);
});

test("a retry shows the options in a new order, and a wrong answer on a later round shows the right one at once", () => {
  const four = { ...single, options: [option("right", true), option("wrong a", false), option("wrong b", false), option("wrong c", false)] };
  const one = { title: null, multipart_html: {}, questions: [four] };
  const wrongOnce = run(initQuiz(one), { type: "choose", option: 1 }, { type: "check" }, { type: "next" });
  const retry = update(wrongOnce, { type: "retry-wrong" });
  assert.equal(retry.round, 1);
  const orders = [0, 1, 2, 3, 4].map((round) => optionOrder(four, round).join(""));
  assert.ok(new Set(orders).size >= 3, `the order changes from round to round: ${orders.join(" ")}`);
  assert.equal(optionOrder(four, 0).join(""), optionOrder(four).join(""), "round 0 is the first visit's order");
  const position = (html, text) => [...html.matchAll(/<span class="quiz-option-text">([^<]*)<\/span>/g)].map((match) => match[1]).indexOf(text);
  const firstHtml = renderLive("quiz-x", update(wrongOnce, { type: "again" }));
  assert.equal(position(renderLive("quiz-x", initQuiz(one)), "right"), optionOrder(four, 0).indexOf(0));
  assert.equal(position(firstHtml, "right"), optionOrder(four, 1).indexOf(0), "the page draws this round's order");
  const wrongAgain = run(retry, { type: "choose", option: 2 }, { type: "check" });
  assert.match(renderLive("quiz-x", wrongAgain), /Right answer<\/span> right because\./, "asked again, the answer is not held back twice");
  // The round is saved with the view, so a reload keeps this round's order.
  assert.equal(initQuiz(one, toSaved(retry)).round, 1);
});

test("the markup gives no answer away: option values are places on screen, and the ghosts are the same whatever is right", () => {
  const html = renderQuiz("quizzes/q.toml", initQuiz(quiz));
  const values = [...html.matchAll(/<input[^>]*type="radio"[^>]*name="[^"]+"[^>]*value="(\d+)"/g)].map((match) => Number(match[1]));
  assert.deepEqual(values, [0, 1, 2], "the options' values count down the screen");
  const flipped = { ...quiz, questions: [{ ...single, options: single.options.map((one) => ({ ...one, correct: !one.correct })) }, several, { ...short, answer: "9.9", alternatives: [] }] };
  const ghosts = (state) => state.slice(state.indexOf('class="quiz-ghosts"'));
  assert.equal(ghosts(renderQuiz("quizzes/q.toml", initQuiz(flipped))), ghosts(html), "the ghosts do not depend on which options are right, nor on the expected text");
  assert.doesNotMatch(ghosts(html), /8\.6|is-right|is-correct/);
});

test("renderLive for the summary and the review", () => {
  let state = run(initQuiz(quiz), { type: "choose", option: 0 }, { type: "check" }, { type: "next" }, { type: "toggle", option: 2 }, { type: "check" }, { type: "next" }, { type: "type", text: "8.6" }, { type: "check" }, { type: "next" });
  const summary = renderLive("quiz-x", state);
  assert.match(summary, /<strong>2 of 3 right\.<\/strong>/);
  assert.match(summary, />Retry the 1 wrong question</);
  state = update(state, { type: "review" });
  const review = renderLive("quiz-x", state);
  assert.equal((review.match(/class="quiz-review-item /g) ?? []).length, 3);
  assert.match(review, /Missed · right answer/);
  assert.match(review, /<dt>Accepted<\/dt><dd>“8\.6”, “8\.64”, “8\.6 s”<\/dd>/);
});

test("the page's data carries the quizzes sealed: no right option, explanation, context or accepted answer in the clear, the options shuffled; the page opens them to the very quizzes", () => {
  const lesson = lessonJson();
  const sealed = sealAnswers(lesson.quizzes);
  const text = JSON.stringify(sealed);
  assert.doesNotMatch(text, /"correct"|"explanation_html"|"answer"|"alternatives"/);
  for (const quiz of Object.values(lesson.quizzes)) {
    for (const question of quiz.questions) {
      if (question.context_html) assert.ok(!text.includes(question.context_html), "the context is sealed");
      for (const option of question.options ?? []) if (option.explanation_html) assert.ok(!text.includes(option.explanation_html), "each explanation is sealed");
    }
  }
  const firstShownRight = Object.values(lesson.quizzes).flatMap((quiz, at) => quiz.questions.filter((question) => question.options).map((question) => [question, Object.values(sealed)[at].questions[quiz.questions.indexOf(question)]]));
  const sameFirst = firstShownRight.filter(([question, shown]) => question.options[0].html === shown.options[0].html).length;
  assert.ok(sameFirst < firstShownRight.length / 2, `the sealed options are shuffled: ${sameFirst} of ${firstShownRight.length} keep their first option (the lesson lists right ones first)`);
  const normal = (quizzes) => JSON.parse(JSON.stringify(quizzes, (key, value) => (key === "explanation_html" && value == null ? undefined : value)));
  assert.deepEqual(normal(openAnswers(sealed)), normal(lesson.quizzes));
});
