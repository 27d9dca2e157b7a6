// A failing run on the page, to step through: the violation, the timeline,
// the stepper (Previous, the position, Next, back to the violation, copy
// link, close), the current step's sentence, the console beside it, and
// every step as a list.
//
// Built once per run opened; a step only updates what shows the step (the
// timeline's drawing, the position, the sentence, the console's marks, the
// list's current item), in place. So the control the learner used keeps the
// focus, and the arrow keys, Home and End, and Previous/Next go on working
// from it step after step. At either end Previous or Next is marked
// unavailable (`aria-disabled`), not disabled: a disabled button would drop
// the focus to the page, and Space would then scroll the page away.
import { h } from "../dom.js";
import { timelineModel } from "./timeline-model.js";
import { renderTimeline, renderTimelineLegend } from "./timeline-view.js";

/**
 * The story in `container` (a section, hidden while no run is open).
 * `actions`: `step(by)`, `stepTo(index)`, `close()`, `copyLink(open)`
 * (resolves to the note to show). Returns `render(open, step)`.
 */
export function createStoryView(container, actions) {
  /** What is on show: the run (`open`), its model and the elements a step updates; null when closed. */
  let shown = null;

  function build(open) {
    const model = timelineModel(open.trace, open.violation, open.processes, open.words, open.omitted);
    const last = model.steps.length - 1;
    const canvas = h("div", { class: "story-canvas", tabindex: "0", role: "group", "aria-label": "Timeline: the arrow keys step through it (it scrolls sideways on small screens)" });
    const position = h("span", { class: "story-position" });
    const previous = h("button", { type: "button", class: "small story-previous", onclick: () => available(previous) && actions.step(-1) }, "◀ Previous");
    const next = h("button", { type: "button", class: "small story-next", onclick: () => available(next) && actions.step(1) }, "Next ▶");
    const copyNote = h("span", { class: "copy-note", role: "status" });
    const copy = h("button", { type: "button", class: "small", onclick: async () => (copyNote.textContent = await actions.copyLink(open)) }, "Copy link");
    const sentence = h("p", { class: "story-step", "aria-live": "polite" });
    const consoleItems = [];
    const consoleList = model.console.length
      ? h(
          "ol",
          { class: "story-console", "aria-label": "Console output", tabindex: "0" },
          // The lines printed during the events left out are not shown either: say where they would be.
          model.console.flatMap((line, at) => {
            const item = h("li", {}, h("span", { class: "story-console-who" }, `${line.lane} @ ${line.atMs} ms`), ` ${line.text}`);
            consoleItems.push({ item, step: line.step });
            return model.gap && line.step > model.gap.afterStep && (at === 0 || model.console[at - 1].step <= model.gap.afterStep)
              ? [h("li", { class: "story-console-gap" }, `… ${model.gap.count} events not shown`), item]
              : [item];
          }),
        )
      : h("p", { class: "story-console-empty" }, "Your code printed nothing in this run.");
    // Every step as a list, drawn when first opened (a long run has hundreds).
    const stepList = h("ol", { class: "story-step-list" });
    const stepsBox = h("details", { class: "story-steps" }, h("summary", {}, `All ${model.steps.length} steps as a list`), stepList);
    stepsBox.addEventListener("toggle", () => {
      if (!stepsBox.open || stepList.childElementCount > 0) return;
      stepList.append(
        ...model.steps.map((step, index) =>
          h("li", {}, h("button", { type: "button", class: `story-step-link${step.violation ? " is-violation" : ""}`, onclick: () => actions.stepTo(index) }, `${index + 1}. ${stepText(model, step, index)}`)),
        ),
      );
      markCurrentInList();
    });
    container.replaceChildren(
      h("h4", { class: "story-heading", tabindex: "-1" }, `Failing run: ${open.title}`),
      h("p", { class: "story-violation" }, open.violation.message),
      model.gap
        ? h("p", { class: "story-gap" }, `This run is long: ${model.gap.count} events between t=${model.gap.fromMs} ms and t=${model.gap.toMs} ms are not shown (the hatched band). “Copy link” opens the whole run.`)
        : null,
      canvas,
      renderTimelineLegend(),
      h(
        "div",
        { class: "story-stepper" },
        previous,
        position,
        next,
        h("button", { type: "button", class: "small", onclick: () => actions.stepTo(open.violation.traceIndex ?? 0) }, "Go to the violation"),
        copy,
        h("button", { type: "button", class: "small", onclick: () => actions.close() }, "Close"),
      ),
      sentence,
      consoleList,
      copyNote,
      stepsBox,
    );
    shown = { open, model, last, canvas, position, previous, next, sentence, consoleItems, stepList, step: null };

    function markCurrentInList() {
      for (const [index, item] of [...stepList.children].entries()) {
        const link = item.firstElementChild;
        if (index === shown.step) link.setAttribute("aria-current", "step");
        else link.removeAttribute("aria-current");
      }
    }
    shown.markCurrentInList = markCurrentInList;
  }

  /** Shows `step` of the run on show, in place. */
  function showStep(step) {
    const { model, last, canvas, position, previous, next, sentence, consoleItems } = shown;
    shown.step = step;
    const current = model.steps[step];
    // The drawing is redrawn at the frame's own width, so its text is as large as the page's (11–12 px), not scaled down.
    canvas.replaceChildren(renderTimeline(model, step, Math.max(MIN_WIDTH_PX, Math.floor(canvas.clientWidth || 0))));
    position.textContent = `Step ${step + 1} of ${model.steps.length}`;
    setAvailable(previous, step > 0);
    setAvailable(next, step < last);
    sentence.className = `story-step${current?.violation ? " is-violation" : ""}`;
    sentence.textContent = current ? stepText(model, current, step) : "";
    for (const { item, step: printedAt } of consoleItems) item.className = printedAt === step ? "is-current" : printedAt > step ? "is-later" : "";
    shown.markCurrentInList();
    keepCurrentStepInView(canvas);
  }

  // The arrow keys step from anywhere in the story but a text field; Space on the timeline does nothing rather than scroll the page.
  container.addEventListener("keydown", (event) => {
    if (!shown || event.altKey || event.ctrlKey || event.metaKey || event.target.closest("input, textarea, summary")) return;
    const moves = { ArrowRight: () => actions.step(1), ArrowLeft: () => actions.step(-1), Home: () => actions.stepTo(0), End: () => actions.stepTo(shown.last) };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      move();
    } else if (event.key === " " && event.target === shown.canvas) {
      event.preventDefault();
    }
  });

  return function render(open, step) {
    container.hidden = open === null;
    if (open === null) {
      shown = null;
      container.replaceChildren();
      return;
    }
    if (shown?.open !== open) build(open);
    if (shown.step !== step) showStep(step);
  };
}

/** The narrowest the timeline is drawn: on a narrow screen its frame scrolls sideways instead. */
const MIN_WIDTH_PX = 512;

/** One step in words: when, who, what; where the rule breaks; where events were left out. */
function stepText(model, step, index) {
  const clock = step.localMs !== null ? ` (its clock: ${step.localMs} ms)` : "";
  const breaks = step.violation ? " ← the rule breaks here" : "";
  const gap = model.gap?.afterStep === index ? ` (then ${model.gap.count} events not shown)` : "";
  return `t=${step.atMs} ms · ${step.lane}${clock}: ${step.text}${breaks}${gap}`;
}

function available(button) {
  return button.getAttribute("aria-disabled") !== "true";
}

function setAvailable(button, yes) {
  if (yes) button.removeAttribute("aria-disabled");
  else button.setAttribute("aria-disabled", "true");
}

/**
 * On a narrow screen the timeline is wider than its frame and scrolls
 * sideways: scroll it so the current step (at first, the violation) is in
 * the middle, instead of showing the start of the run.
 */
function keepCurrentStepInView(canvas) {
  if (canvas.scrollWidth <= canvas.clientWidth) return;
  const cursor = canvas.querySelector(".timeline-current, .timeline-violation");
  if (!cursor) return;
  const frame = canvas.getBoundingClientRect();
  const mark = cursor.getBoundingClientRect();
  const markCentre = mark.left + mark.width / 2 - frame.left + canvas.scrollLeft;
  canvas.scrollLeft = Math.max(0, Math.min(canvas.scrollWidth - canvas.clientWidth, markCentre - canvas.clientWidth / 2));
}
