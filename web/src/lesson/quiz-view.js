// A quiz's view: HTML strings rendered from its state. No DOM here, so the
// build renders a quiz's first screen into the page with the very same code
// the page later uses (web/build/page.mjs), and the page does not change
// shape when its script starts.
//
// `renderQuiz` gives the whole quiz block (title, a stage holding the live
// part and the "ghosts", a live region); `renderLive` the part that changes.
// The ghosts are invisible copies of every question as it looks after each
// answer that could make it tallest (feedback and explanations shown),
// stacked in the same grid cell as the live part, so the block is as tall as
// its tallest state from the start: answering never pushes the page down.
import { attributes, escapeHtml, textOf } from "./html.js";
import { optionOrder } from "./shuffle.js";
import { answerAt, currentIndex, isGradable, score, showsAnswer } from "./quiz-state.js";

/** The element id prefix of a quiz: "quizzes/locks-and-ttl.toml" → "quiz-locks-and-ttl". */
export function quizDomId(quizKey) {
  const base = quizKey.replace(/^.*\//, "").replace(/\.toml$/, "");
  return `quiz-${base.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "untitled"}`;
}

/** The whole block, as the build writes it into the page. */
export function renderQuiz(quizKey, state) {
  const id = quizDomId(quizKey);
  const title = state.quiz.title ?? "Check your understanding";
  const { total } = score(state);
  // A group, not a landmark: every quiz may share the same title.
  return `<div class="quiz" role="group" id="${id}"${attributes({ "data-quiz": quizKey, "aria-labelledby": `${id}-title` })}>
<div class="quiz-head"><h3 class="quiz-title" id="${id}-title">${escapeHtml(title)}</h3><p class="quiz-size">${total} ${total === 1 ? "question" : "questions"}</p></div>
<noscript><p class="quiz-note">Answering needs JavaScript; without it, the first question is here to read.</p></noscript>
<div class="quiz-stage"><div class="quiz-live">${renderLive(id, state)}</div>${renderGhosts(state)}</div>
<p class="visually-hidden quiz-announce" role="status" aria-live="polite"></p>
</div>`;
}

/** The part that changes with the state. */
export function renderLive(id, state) {
  if (state.mode === "summary") return renderSummary(id, state);
  if (state.mode === "review") return renderReview(id, state);
  const index = currentIndex(state);
  if (index === null) return `<p class="quiz-empty">This quiz has no questions this page can ask.</p>`;
  return renderQuestion(id, state, index, { ghost: false });
}

// ---- one question ----------------------------------------------------------

function renderQuestion(id, state, index, { ghost }) {
  const question = state.quiz.questions[index];
  const q = `${id}-q${index}`;
  const ids = (name) => (ghost ? null : `${q}-${name}`);
  const checked = ghost || state.checked;
  const answer = ghost ? null : checked ? answerAt(state, index) : null;
  // A ghost reserves the height of the answer shown; whether it is shown is the state's to say.
  const open = ghost || showsAnswer(state);
  const counter = renderCounter(state);
  const promptAttributes = attributes({ class: "quiz-prompt", id: ids("prompt"), tabindex: ghost ? null : "-1" });
  const body = question.type === "ShortAnswer"
    ? renderShortAnswer(question, state, { ids, ghost, checked, answer })
    : renderChoices(question, state, { ids, ghost, checked, answer, open, name: `${q}-choice` });
  const next = `<button type="button" class="primary"${attributes({ "data-action": ghost ? null : "next", tabindex: ghost ? "-1" : null })}>${state.position + 1 < state.queue.length ? "Next question" : "See your results"}</button>`;
  // Held back, the right answer is a button away; a ghost carries the button too, to keep its place.
  const reveal = checked && (ghost || !open) ? `<button type="button"${attributes({ "data-action": ghost ? null : "reveal", tabindex: ghost ? "-1" : null })}>Show the answer</button>` : "";
  const action = checked ? `${next}${reveal}` : `<button type="submit" class="primary">Check</button>`;
  const error = `<p class="quiz-error"${attributes({ id: ids("error") })}>${escapeHtml(ghost ? "" : state.error ?? "")}</p>`;
  return `<div class="quiz-question${ghost ? " quiz-ghost" : ""}"${attributes({ "data-key": ghost ? null : `${state.pass}-${state.position}-${index}` })}>
${counter}<div${promptAttributes}>${question.prompt_html}</div>
<form class="quiz-form" novalidate${attributes({ "data-action": ghost ? null : "check" })}>
${body}
${renderFeedback(question, answer, { ghost, checked, open })}
<div class="quiz-actions">${action}${error}</div>
</form>
</div>`;
}

function renderCounter(state) {
  const label = state.pass === "retry" ? "Retry" : "Question";
  return `<p class="quiz-counter"><span aria-hidden="true">${state.pass === "retry" ? "Retry " : ""}${state.position + 1} / ${state.queue.length}</span><span class="visually-hidden">${label} ${state.position + 1} of ${state.queue.length}</span></p>`;
}

/**
 * The options, in this round's order. An option's value is its place on
 * screen, not its place in the quiz file (where the right ones come first),
 * so the markup says nothing of which is right. Checked but held back
 * (`open` false), only the learner's own choice is explained, and only for
 * a single answer (with several, the notes of the chosen ones would tell
 * which of them are right). A ghost explains every option under the longest
 * badge, whatever is right, so it gives nothing away either.
 */
function renderChoices(question, state, { ids, ghost, checked, answer, open, name }) {
  const multiple = question.multiple;
  const chosen = new Set(ghost ? [] : checked ? answer?.choice ?? [] : state.pending.choice);
  const items = optionOrder(question, state.round).map((optionIndex, position) => {
    const option = question.options[optionIndex];
    const isChosen = chosen.has(optionIndex);
    const inputId = ids(`o${position}`);
    const explained = checked && (ghost || (open ? isChosen || option.correct || multiple : isChosen && !multiple)) && option.explanation_html;
    const classes = ["quiz-option"];
    if (isChosen) classes.push("is-chosen");
    if (checked && open && !ghost && option.correct) classes.push("is-correct");
    if (checked && !ghost && isChosen && (open || !multiple) && !option.correct) classes.push("is-wrong");
    const input = `<input${attributes({
      type: multiple ? "checkbox" : "radio",
      id: inputId,
      name: ghost ? null : name,
      value: String(position),
      checked: isChosen,
      disabled: checked,
      tabindex: ghost ? "-1" : null,
      "aria-describedby": explained && !ghost ? `${inputId}-why` : null,
    })}>`;
    const text = `<span class="quiz-option-text">${option.html}</span>`;
    const row = ghost ? `<span class="quiz-option-row">${input}${text}</span>` : `<label class="quiz-option-row"${attributes({ for: inputId })}>${input}${text}</label>`;
    const badge = ghost ? GHOST_BADGE : checked && (open || isChosen) ? optionBadge(option, isChosen, multiple, open) : "";
    const why = explained ? `<div class="quiz-why"${attributes({ id: inputId && `${inputId}-why` })}>${badge}${option.explanation_html}</div>` : "";
    return `<li class="${classes.join(" ")}">${row}${why}</li>`;
  });
  const hint = multiple ? "Select all that apply." : "Choose one.";
  return `<fieldset class="quiz-options"${attributes({ "aria-labelledby": ids("prompt"), "aria-describedby": ids("how") })}>
<p class="quiz-how"${attributes({ id: ids("how") })}>${hint}</p>
<ul>${items.join("")}</ul>
</fieldset>`;
}

/** The label before an option's explanation once it is checked (`open`: the right answer is shown). */
function optionBadge(option, isChosen, multiple, open = true) {
  if (!open) return `<span class="quiz-badge">Your choice</span> `;
  if (isChosen && option.correct) return `<span class="quiz-badge is-right">Your choice · right</span> `;
  if (isChosen) return `<span class="quiz-badge is-wrong">Your choice · wrong</span> `;
  if (option.correct) return `<span class="quiz-badge is-right">${multiple ? "Missed · right answer" : "Right answer"}</span> `;
  return `<span class="quiz-badge">Rightly left out</span> `;
}

/** A ghost's badge: the longest there is, on every option, so the ghost is as tall as any answer and says nothing of which is right. */
const GHOST_BADGE = `<span class="quiz-badge">Missed · right answer</span> `;

function renderShortAnswer(question, state, { ids, ghost, checked, answer }) {
  const value = ghost ? "" : checked ? answer?.text ?? "" : state.pending.text;
  const classes = ["quiz-short"];
  if (checked && !ghost) classes.push(answer?.correct ? "is-correct" : "is-wrong");
  const input = `<input${attributes({
    type: "text",
    class: "quiz-text",
    id: ids("text"),
    name: ghost ? null : ids("text"),
    value,
    autocomplete: "off",
    spellcheck: "false",
    readonly: checked,
    tabindex: ghost ? "-1" : null,
    "aria-describedby": ghost ? null : ids("error"),
  })}>`;
  const label = ghost ? `<span class="quiz-short-label">Your answer</span>` : `<label class="quiz-short-label"${attributes({ for: ids("text") })}>Your answer</label>`;
  return `<div class="${classes.join(" ")}">${label}${input}</div>`;
}

function renderFeedback(question, answer, { ghost, checked, open }) {
  if (!checked) return `<div class="quiz-feedback" hidden></div>`;
  const right = ghost ? false : Boolean(answer?.correct);
  const verdict = ghost ? ghostVerdict(question) : verdictText(question, answer, { open });
  // The context explains the answer: it waits until the answer is shown.
  const context = open && question.context_html ? `<div class="quiz-context">${question.context_html}</div>` : "";
  return `<div class="quiz-feedback ${right ? "is-right" : "is-wrong"}"><p class="quiz-verdict"><strong>${right ? "Right." : "Not quite."}</strong>${verdict ? ` ${verdict}` : ""}</p>${context}</div>`;
}

/**
 * The sentence after "Right." / "Not quite.": with `open`, naming the right
 * answer when it is not obvious; held back, saying only how the learner's
 * own answer fell short.
 */
export function verdictText(question, answer, { open = true } = {}) {
  if (question.type === "ShortAnswer") {
    if (answer?.correct) return "";
    return open ? `The expected answer is “${escapeHtml(question.answer)}”.` : "That is not the answer expected. Think it through again, or show the answer.";
  }
  if (!answer || answer.correct) return "";
  const correct = question.options.filter((option) => option.correct);
  if (question.multiple) {
    const chosen = new Set(answer.choice);
    const hits = question.options.filter((option, index) => option.correct && chosen.has(index)).length;
    const misses = answer.choice.filter((index) => !question.options[index].correct).length;
    return `You chose ${hits} of the ${correct.length} right answers${misses ? ` and ${misses} wrong ${misses === 1 ? "one" : "ones"}` : ""}${open ? "; each option's note says why." : ". Think it through again, or show the answer."}`;
  }
  return open ? "The option marked “Right answer” says why." : "The note under your choice says why it does not hold. Think it through again, or show the answer.";
}

/** A ghost's verdict: as long as the longest real one, whatever the answer. */
function ghostVerdict(question) {
  if (question.type === "ShortAnswer") return `The expected answer is “${"0".repeat(Math.ceil(question.answer.length / 8) * 8)}”. Think it through again, or show the answer.`;
  const count = question.options.length;
  return question.multiple ? `You chose ${count} of the ${count} right answers and ${count} wrong ones. Think it through again, or show the answer.` : "The note under your choice says why it does not hold. Think it through again, or show the answer.";
}

// ---- summary and review -----------------------------------------------------

function renderSummary(id, state) {
  const { total, right, answered, wrong } = score(state);
  const all = right === total;
  const heading = all ? `All ${total} right.` : `${right} of ${total} right.`;
  const detail = all
    ? "Well done. Review the answers to reread the explanations."
    : answered < total
      ? `${total - answered} not answered yet.`
      : "Retry the ones you missed, or review every answer with its explanation.";
  const items = state.quiz.questions.map((question, index) => {
    if (!isGradable(question)) return "";
    const answer = answerAt(state, index);
    const status = !answer ? "not answered" : answer.correct ? "right" : "wrong";
    const mark = !answer ? "–" : answer.correct ? "✓" : "✗";
    return `<li class="quiz-result is-${status.replace(" ", "-")}"><span class="quiz-result-mark" aria-hidden="true">${mark}</span><span class="quiz-result-text">${escapeHtml(shorten(textOf(question.prompt_html), 110))}</span><span class="visually-hidden"> (${status})</span></li>`;
  });
  const buttons = [];
  if (wrong.length > 0) buttons.push(`<button type="button" class="primary" data-action="retry-wrong">Retry the ${wrong.length} ${answered < total ? "open or wrong" : "wrong"} ${wrong.length === 1 ? "question" : "questions"}</button>`);
  buttons.push(`<button type="button"${all ? ' class="primary"' : ""} data-action="review">Review all answers</button>`);
  buttons.push(`<button type="button" data-action="again">Answer all again</button>`);
  return `<div class="quiz-summary" data-key="summary">
<p class="quiz-score" id="${id}-summary" tabindex="-1"><strong>${heading}</strong> ${escapeHtml(detail)}</p>
<ol class="quiz-results">${items.join("")}</ol>
<div class="quiz-actions">${buttons.join("")}</div>
</div>`;
}

function renderReview(id, state) {
  const items = state.quiz.questions.map((question, index) => {
    if (!isGradable(question)) return "";
    const answer = answerAt(state, index);
    const status = !answer ? "Not answered yet." : answer.correct ? "Right." : "Not quite.";
    const tone = !answer ? "is-open" : answer.correct ? "is-right" : "is-wrong";
    let body;
    if (question.type === "ShortAnswer") {
      const accepted = [question.answer, ...(question.alternatives ?? [])].map((text) => `“${escapeHtml(text)}”`).join(", ");
      body = `<dl class="quiz-review-short"><dt>Your answer</dt><dd>${answer ? `“${escapeHtml(answer.text)}”` : "–"}</dd><dt>Accepted</dt><dd>${accepted}</dd></dl>`;
    } else {
      const chosen = new Set(answer?.choice ?? []);
      body = `<ul class="quiz-review-options">${optionOrder(question, state.round).map((optionIndex) => {
        const option = question.options[optionIndex];
        const isChosen = chosen.has(optionIndex);
        const classes = ["quiz-option", "is-static"];
        if (isChosen) classes.push("is-chosen");
        if (option.correct) classes.push("is-correct");
        if (isChosen && !option.correct) classes.push("is-wrong");
        const badge = answer || option.correct ? optionBadge(option, isChosen, question.multiple) : "";
        const why = option.explanation_html ? `<div class="quiz-why">${badge}${option.explanation_html}</div>` : badge ? `<div class="quiz-why">${badge}</div>` : "";
        return `<li class="${classes.join(" ")}"><span class="quiz-option-row"><span class="quiz-option-text">${option.html}</span></span>${why}</li>`;
      }).join("")}</ul>`;
    }
    const context = question.context_html ? `<div class="quiz-context">${question.context_html}</div>` : "";
    return `<li class="quiz-review-item ${tone}"><div class="quiz-prompt">${question.prompt_html}</div><p class="quiz-verdict"><strong>${status}</strong></p>${body}${context}</li>`;
  });
  const retry = score(state).wrong.length > 0 ? `<button type="button" data-action="retry-wrong">Retry the wrong ones</button>` : "";
  return `<div class="quiz-review" data-key="review">
<p class="quiz-score" id="${id}-review" tabindex="-1"><strong>Your answers</strong>, with the explanation of every option.</p>
<ol class="quiz-review-list">${items.join("")}</ol>
<div class="quiz-actions"><button type="button" class="primary" data-action="summary">Back to the results</button>${retry}</div>
</div>`;
}

// ---- ghosts -------------------------------------------------------------------

/** One ghost per question: every option explained under the longest badge, the longest verdict, both buttons. */
function renderGhosts(state) {
  const ghosts = [];
  state.quiz.questions.forEach((question, index) => {
    if (!isGradable(question)) return;
    ghosts.push(renderQuestion("", { ...state, pass: "first", round: 0, position: 0, queue: [index] }, index, { ghost: true }));
  });
  return `<div class="quiz-ghosts" aria-hidden="true" inert>${ghosts.join("")}</div>`;
}

function shorten(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

