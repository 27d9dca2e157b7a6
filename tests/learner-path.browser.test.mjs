// The learner's path, walked in real Chromium the way issue #16 walked it:
// replay links (cas tokens included), the failing run's focus and place,
// lazy parts reachable by keyboard, reset, disabled buttons, a phone's
// width, lenient short answers, one message for an infinite loop, the small
// stumbles, and the keyboard path through the whole lesson.
//
// Screenshots go to test-artifacts/learner-*.png; `LEASELAB_SHOT_SUFFIX`
// adds a suffix to their names (e.g. "-before", with `LEASELAB_DIST`
// pointing at an older build, to compare; `LEASELAB_STATE_TIMEOUT_MS=15000`
// then keeps each missing state from waiting the whole default bound).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBrowser, screenshot, newContext } from "./support/browser.mjs";
import { answerQuestion, fileFromTar, lessonJson, openLesson, quizBlock } from "./support/lesson.mjs";

const lesson = lessonJson();
const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const read = (path) => readFileSync(new URL(path, LESSON), "utf8");
const SUFFIX = process.env.LEASELAB_SHOT_SUFFIX ?? "";
const shot = (target, name, options) => screenshot(target, `learner-${name}${SUFFIX}`, options);
const squash = (text) => text.replace(/\s+/g, " ").trim();

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

/** Opens the lesson with `draft` saved for `exercise` (before the page reads it). */
async function openWithDraft(exerciseName, draft, options = {}) {
  const opened = await openLesson(session, options);
  await opened.page.evaluate(({ exerciseName, draft }) => {
    window.leaselab.progress.setDraft(exerciseName, draft);
    window.leaselab.progress.flush();
  }, { exerciseName, draft });
  await opened.page.reload();
  await opened.page.waitForSelector("html[data-lesson-ready]");
  return opened;
}

/** The exercise's runner, mounted (scrolled to). */
async function runnerOf(page, name) {
  const exercise = page.locator(`#exercise-${name}`);
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator('.exercise-runner[data-ready="true"] .cm-editor').waitFor();
  return exercise;
}

async function runTests(exercise) {
  await exercise.getByRole("button", { name: "Run tests" }).click();
  await exercise.locator(".runner-summary, .runner-problems").waitFor();
}

const activeElement = (page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return { tag: element?.tagName ?? null, className: element?.className?.baseVal ?? element?.className ?? "", text: element?.textContent?.slice(0, 80) ?? "", disabled: Boolean(element?.disabled), inStory: Boolean(element?.closest(".runner-story")) };
  });

// ---- 1. replay links -------------------------------------------------------------

test("defect 1: Copy link in the cas exercise reopens the failing run; a damaged link says why", async () => {
  const { page, context, problems } = await openLesson(session);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const exercise = await runnerOf(page, "cas");
  await runTests(exercise);
  await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
  const violation = await exercise.locator(".story-violation").innerText();
  const steps = await exercise.locator(".story-position").innerText();
  await exercise.getByRole("button", { name: "Copy link" }).click();
  await exercise.locator(".copy-note", { hasText: /Link copied|Copy this link/ }).waitFor();
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#replay=cas~/);

  const fresh = await newContext(session.browser);
  const other = await fresh.newPage();
  await other.goto(link);
  const story = other.locator("#exercise-cas .runner-story");
  // Wait for a state: the story on screen, or the runner saying it could not replay.
  await other.locator("#exercise-cas .runner-story svg.timeline-svg, #exercise-cas .runner-error, #exercise-cas .runner-story:not([hidden])").first().waitFor().catch(() => {});
  await shot(other, "1-cas-link-opened");
  assert.equal(await story.locator(".story-violation").innerText(), violation);
  assert.equal(await story.locator(".story-position").innerText(), steps);
  assert.match(await other.locator("#exercise-cas .cm-content").innerText(), /export function createStore/);

  // A damaged link to the exercise: the runner says why, and keeps the learner's code.
  await other.goto(`${session.url}#replay=cas~cas:create-when-absent~not*base64`);
  await other.reload();
  const refusal = other.locator("#exercise-cas .runner-error");
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /This link cannot be replayed: the link is incomplete|This link cannot be replayed: the code in the link is damaged/);
  await shot(other, "1-damaged-link");
  // A link to an exercise the lesson does not have: the page says so at the top.
  await other.goto(`${session.url}#replay=nope~t~AAAA`);
  await other.reload();
  await other.locator("main > .widget-error").waitFor();
  assert.match(await other.locator("main > .widget-error").innerText(), /cannot be replayed: it names an exercise, "nope"/);
  await fresh.close();
  assert.deepEqual(problems, []);
});

// ---- 2. the failing run: in view, focus inside ------------------------------------------

test("defect 2: Show the failing run brings the story into view and moves the focus into it", async () => {
  const { page } = await openLesson(session, { viewport: { width: 1280, height: 600 } });
  const exercise = await runnerOf(page, "lock");
  await runTests(exercise);
  await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
  const story = exercise.locator(".runner-story");
  await story.locator("svg.timeline-svg").waitFor();
  await shot(page, "2-story-opened");
  const focused = await activeElement(page);
  assert.notEqual(focused.tag, "BODY", "the focus is not dropped on the page's body");
  assert.equal(focused.inStory, true, `the focus is inside the story, not ${JSON.stringify(focused)}`);
  assert.equal(focused.disabled, false, "the focus is not on a disabled button");
  const box = await story.locator("h4").boundingBox();
  assert.ok(box.y >= 0 && box.y + box.height <= 600, `the story's heading is on screen (y = ${box.y})`);
  // From there, Tab reaches the stepper.
  await page.keyboard.press("Tab");
  assert.equal((await activeElement(page)).inStory, true);
});

// ---- 3. keyboard: placeholders and the result summary --------------------------------------

/** Widgets and runners then mount only by focus: a keyboard user who tabs faster than they load. */
const neverNear = () => {
  globalThis.IntersectionObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
};

/** Focuses the last tab stop before `selector`, so the next Tab goes to it (or past it). */
async function focusJustBefore(page, selector) {
  await page.evaluate((selector) => {
    const target = document.querySelector(selector);
    const stops = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])')].filter((element) => !element.disabled && element.getClientRects().length > 0 && !target.contains(element));
    const before = stops.filter((element) => element.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING);
    before.at(-1).focus();
  }, selector);
}

test("defect 3: lazy placeholders are tab stops that mount when focused; after Run tests the focus is on the summary", async () => {
  const context = await newContext(session.browser, { viewport: { width: 1280, height: 900 } });
  await context.addInitScript(neverNear);
  const page = await context.newPage();
  await page.goto(session.url);
  await page.waitForSelector("html[data-lesson-ready]");
  for (const selector of ['[data-widget="cas-playground"]', '[data-widget="uptime-estimator"]', '.exercise-runner[data-exercise="cas"]']) {
    await focusJustBefore(page, selector);
    await page.keyboard.press("Tab");
    const inside = await page.evaluate((selector) => document.querySelector(selector).contains(document.activeElement), selector);
    await shot(page, `3-tab-to-${selector.replace(/[^a-z]+/g, "-").replace(/^-|-$/g, "")}`);
    assert.equal(inside, true, `Tab reaches ${selector} while it is a placeholder`);
    await page.locator(`${selector}[data-ready="true"]`).waitFor();
    const after = await page.evaluate((selector) => ({ inside: document.querySelector(selector).contains(document.activeElement), body: document.activeElement === document.body }), selector);
    assert.equal(after.body, false, `${selector}: the focus did not fall to the body when it mounted`);
    assert.equal(after.inside, true, `${selector}: the focus is inside what mounted`);
  }

  // Run tests from the keyboard: the focus lands on the summary.
  const runButton = page.locator("#exercise-cas").getByRole("button", { name: "Run tests" });
  await runButton.focus();
  await page.keyboard.press("Enter");
  await page.locator("#exercise-cas .runner-summary").waitFor();
  await page.waitForFunction(() => document.activeElement !== document.body || document.querySelector("#exercise-cas .exercise-runner [disabled]") === null);
  const focused = await activeElement(page);
  assert.equal(focused.className, "runner-summary", `the focus is on the summary, not ${JSON.stringify(focused)}`);
  await context.close();
});

// ---- 4. reset ---------------------------------------------------------------------------

test("defect 4: Reset progress puts the starter back in an open editor and clears its results", async () => {
  const { page } = await openLesson(session);
  const exercise = await runnerOf(page, "lock");
  await exercise.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n// my own work\n");
  await runTests(exercise);
  await page.getByRole("button", { name: "Reset progress…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Erase everything" }).click();
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await shot(page, "4-after-reset");
  assert.doesNotMatch(await exercise.locator(".cm-content").innerText(), /my own work/, "the editor holds the starter again");
  assert.equal(await exercise.locator(".runner-summary").count(), 0, "no result from before the reset");
  assert.equal(await exercise.locator(".runner-status").innerText(), "");
  assert.equal(await exercise.locator(".exercise-status").innerText(), "Not passed yet");
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("lock")), null, "no draft is saved again");
  // Typing again saves the new text, not the erased one.
  await exercise.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("//");
  await page.evaluate(() => window.leaselab.progress.flush());
  const draft = await page.evaluate(() => window.leaselab.progress.getDraft("lock"));
  assert.doesNotMatch(draft, /my own work/);
  assert.ok(draft.startsWith(lesson.exercises.lock.starter.slice(0, 40)));
});

// ---- 5. disabled buttons ------------------------------------------------------------------

for (const colorScheme of ["light", "dark"]) {
  test(`defect 5: disabled buttons look disabled in the ${colorScheme} theme`, async () => {
    const { page } = await openLesson(session, { colorScheme });
    const exercise = await runnerOf(page, "lock");
    await runTests(exercise);
    await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
    const story = exercise.locator(".runner-story");
    // Step to the last step: "Next ▶" is disabled there.
    const total = Number((await story.locator(".story-position").innerText()).match(/of (\d+)/)[1]);
    await story.locator(".story-canvas").focus();
    for (let step = 0; step < total; step += 1) await page.keyboard.press("ArrowRight");
    const next = story.getByRole("button", { name: "Next ▶" });
    assert.equal(await next.isDisabled(), true);
    await story.scrollIntoViewIfNeeded();
    await shot(exercise.locator(".story-stepper"), `5-disabled-next-${colorScheme}`);
    const look = (locator) => locator.evaluate((element) => {
      const style = getComputedStyle(element);
      return { opacity: Number(style.opacity), cursor: style.cursor, border: style.borderStyle, background: style.backgroundColor, color: style.color };
    });
    const disabled = await look(next);
    const enabled = await look(story.getByRole("button", { name: "◀ Previous" }));
    assert.ok(disabled.opacity < 0.7, `a disabled button is faded (opacity ${disabled.opacity})`);
    assert.equal(disabled.cursor, "not-allowed");
    assert.notDeepEqual(disabled, enabled);
    // "Run tests" while a run is on: the primary button greys out too.
    const run = exercise.getByRole("button", { name: "Run tests" });
    const runEnabled = await look(run);
    await run.evaluate((button) => { button.disabled = true; });
    const runDisabled = await look(run);
    await run.evaluate((button) => { button.disabled = false; });
    assert.ok(runDisabled.opacity < 0.7);
    assert.notEqual(runDisabled.background, runEnabled.background, "the primary colour goes");
  });
}

// ---- 6. a phone's width --------------------------------------------------------------------

test("defect 6: at 375 px the results and the timeline use the width, and the violation is in view", async () => {
  const { page, problems } = await openLesson(session, { viewport: { width: 375, height: 800 } });
  const exercise = await runnerOf(page, "lock");
  await runTests(exercise);
  await shot(page, "6-phone-results");
  const messageWidth = await exercise.locator(".runner-test-message").first().evaluate((element) => element.getBoundingClientRect().width);
  await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
  const story = exercise.locator(".runner-story");
  await story.locator("svg.timeline-svg").waitFor();
  await shot(page, "6-phone-story");
  const canvas = await story.locator(".story-canvas").boundingBox();
  const ring = await story.locator("svg.timeline-svg .timeline-violation").boundingBox();
  assert.ok(messageWidth >= 300, `a failing test's message is ${messageWidth} px wide`);
  assert.ok(canvas.width >= 320, `the timeline's frame is ${canvas.width} px wide`);
  assert.ok(ring.x >= canvas.x && ring.x + ring.width <= canvas.x + canvas.width, `the violation (x ${ring.x}) is inside the frame (${canvas.x}…${canvas.x + canvas.width})`);
  assert.ok(ring.y >= 0 && ring.y + ring.height <= 800, `the violation is on screen (y ${ring.y})`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, "no sideways scrolling of the page");
  assert.deepEqual(problems, []);
});

// ---- 7. short answers --------------------------------------------------------------------

test("defect 7: a numeric short answer accepts its unit spelled out and thousands separators", async () => {
  const { page } = await openLesson(session);
  const quizKey = "quizzes/singleton-vs-election.toml";
  const quiz = quizBlock(page, quizKey);
  const questions = lesson.quizzes[quizKey].questions;
  const index = questions.findIndex((question) => question.type === "ShortAnswer");
  for (let position = 0; position < index; position += 1) {
    await answerQuestion(quiz, questions[position], { right: true });
    await quiz.locator('.quiz-live button[data-action="next"]').click();
  }
  await quiz.getByLabel("Your answer").fill("8.64 seconds");
  await quiz.locator(".quiz-live").getByRole("button", { name: "Check" }).click();
  await quiz.scrollIntoViewIfNeeded();
  await shot(quiz, "7-short-answer-with-unit");
  assert.ok(squash(await quiz.locator(".quiz-live .quiz-feedback").textContent()).startsWith("Right."));
});

// ---- 8. an infinite loop ------------------------------------------------------------------

test("defect 8: an infinite loop gets one clear message in every test, the random schedules too", async () => {
  const looping = read("lock/solution.js").replace("await ctx.store.watch(key, result.current.version);", "while (true) {}");
  const { page } = await openWithDraft("lock", looping);
  const exercise = await runnerOf(page, "lock");
  await runTests(exercise);
  const messages = await exercise.locator(".runner-test.is-failed .runner-test-message").allInnerTexts();
  assert.ok(messages.length >= 2, "several tests fail");
  assert.ok(messages.some((_, index) => index > 0));
  for (const message of messages) {
    assert.match(message, /an infinite loop\?/);
    assert.doesNotMatch(message, /InternalError|interrupted/);
  }
  assert.equal(new Set(messages).size, 1, `one message everywhere, got ${JSON.stringify([...new Set(messages)])}`);

  // Wherever the loop is (before any await, after one, only on unlock, only when contended), the words are the same.
  const solution = read("lock/solution.js");
  const placements = {
    "before any await": solution.replace("export async function tryLock(ctx, key, ttlMs) {", "export async function tryLock(ctx, key, ttlMs) {\n  while (true) {}").replace("export async function lock(ctx, key, ttlMs) {", "export async function lock(ctx, key, ttlMs) {\n  while (true) {}"),
    "after an await, in unlock": solution.replace("const result = await ctx.store.delete(key, { version });", "const result = await ctx.store.delete(key, { version });\n  while (true) {}"),
    "in tryLock only": solution.replace("return result.ok ? { version: result.version } : null;", "while (true) {}"),
  };
  for (const [where, source] of Object.entries(placements)) {
    const report = await page.evaluate((source) => window.leaselab.grade({ exercise: "lock", source }), source);
    const failed = report.tests.filter((test) => test.status === "failed").map((test) => test.message);
    assert.ok(failed.length > 0, where);
    assert.deepEqual([...new Set(failed)], [messages[0]], `${where}: the same message in every failing test`);
  }
});

// ---- 9. the smaller stumbles --------------------------------------------------------------

test("defect 9: the uptime estimator's words, the quiz chip, the timeline's legend, labels and step text", async () => {
  const { page, problems } = await openLesson(session);
  const widget = page.locator('[data-widget="uptime-estimator"]');
  await widget.scrollIntoViewIfNeeded();
  await page.locator('[data-widget="uptime-estimator"][data-ready="true"]').waitFor();
  const count = widget.getByRole("textbox", { name: "Container crash, restarted happens" });
  await count.fill("soon");
  const said = squash(await widget.textContent());
  assert.doesNotMatch(said, /Switch on at least one kind of failure/, "a kind of failure is on: the field is the problem");
  await count.fill("1");
  await widget.getByRole("button", { name: "Hourly 2-minute rollouts" }).click();
  assert.match(squash(await widget.textContent()), /\b1 day a month\b/);
  assert.doesNotMatch(squash(await widget.textContent()), /\b1 days\b/);
  // A downtime so small it used to read "0 s".
  await widget.getByRole("button", { name: "Daily crash, 2 s restart" }).click();
  await widget.getByRole("textbox", { name: "Container crash, restarted and is down for" }).fill("0.002");
  await shot(widget, "9-uptime-small-downtime");
  assert.doesNotMatch(await widget.locator(".uptime-arithmetic").textContent(), /1 − 0 s ÷/);

  // The contents' chip: all answered, one right, is not green and says how many are right, not how many answered.
  const quizKey = "quizzes/locks-and-ttl.toml";
  const quiz = quizBlock(page, quizKey);
  for (const [index, question] of lesson.quizzes[quizKey].questions.entries()) {
    await answerQuestion(quiz, question, { right: index === 0 });
    await quiz.locator('.quiz-live button[data-action="next"]').click();
  }
  const chip = page.locator('.toc-item[data-section="06-locks"] .toc-chip').first();
  assert.equal(await chip.evaluate((element) => element.classList.contains("is-done")), false, "not green with two wrong answers");
  assert.equal(await chip.textContent(), "Quiz 1/3 right");

  // The failing run: a legend, the last axis label whole, and no "gets woke up".
  const exercise = await runnerOf(page, "lock");
  await runTests(exercise);
  await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
  const story = exercise.locator(".runner-story");
  await story.locator("svg.timeline-svg").waitFor();
  await story.scrollIntoViewIfNeeded();
  await shot(story, "9-timeline-legend");
  assert.ok((await story.locator(".timeline-legend li").count()) >= 5, "the timeline has a legend");
  const clipped = await story.locator(".timeline-tick").evaluateAll((ticks) => {
    const svg = ticks[0].ownerSVGElement.getBoundingClientRect();
    return ticks.filter((tick) => {
      const box = tick.getBoundingClientRect();
      return box.left < svg.left - 0.5 || box.right > svg.right + 0.5;
    }).map((tick) => tick.textContent);
  });
  assert.deepEqual(clipped, [], "no axis label sticks out of the drawing");
  const stepTexts = [];
  const total = Number((await story.locator(".story-position").innerText()).match(/of (\d+)/)[1]);
  await story.getByRole("button", { name: "Go to the violation" }).click();
  await story.locator(".story-canvas").focus();
  for (let step = 0; step < total; step += 1) {
    stepTexts.push(await story.locator(".story-step").innerText());
    await page.keyboard.press("ArrowLeft");
  }
  assert.ok(!stepTexts.some((text) => /gets woke up/.test(text)), "no \"gets woke up\"");
  assert.deepEqual(problems, []);
});

test("defect 9: on a short screen a quiz box fits its question instead of the tallest one", async () => {
  const { page } = await openLesson(session, { viewport: { width: 1280, height: 560 } });
  const quiz = quizBlock(page, "quizzes/locks-and-ttl.toml");
  await quiz.scrollIntoViewIfNeeded();
  const stage = await quiz.locator(".quiz-stage").evaluate((element) => element.getBoundingClientRect().height);
  const live = await quiz.locator(".quiz-live").evaluate((element) => element.getBoundingClientRect().height);
  await shot(quiz, "9-short-screen-quiz");
  assert.ok(stage <= live + 1, `the box is as tall as its question (${stage} px against ${live} px)`);
});

// ---- the keyboard path through the whole lesson -------------------------------------------------

test("the keyboard path: Tab reaches every quiz, widget and exercise, each mounts, and the editor lets Tab out with Escape", async () => {
  const context = await newContext(session.browser, { viewport: { width: 1280, height: 900 } });
  await context.addInitScript(neverNear);
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(session.url);
  await page.waitForSelector("html[data-lesson-ready]");
  const parts = await page.evaluate(() => [...document.querySelectorAll(".quiz[data-quiz], [data-widget], .exercise-runner")].map((element) => element.dataset.quiz ?? element.dataset.widget ?? `runner:${element.dataset.exercise}`));
  const reached = new Set();
  let escapes = 0;
  for (let presses = 0; presses < 3000; presses += 1) {
    const where = await page.evaluate(() => {
      const element = document.activeElement;
      const part = element?.closest(".quiz[data-quiz], [data-widget], .exercise-runner");
      return {
        part: part ? part.dataset.quiz ?? part.dataset.widget ?? `runner:${part.dataset.exercise}` : null,
        loading: Boolean(part && (part.matches("[data-widget], .exercise-runner") && part.dataset.ready !== "true")),
        inEditor: Boolean(element?.closest(".cm-content")),
        atEnd: element?.closest("footer") !== null && element?.closest("footer") !== undefined,
      };
    });
    if (where.part) reached.add(where.part);
    if (where.loading) {
      // A user waits for what they reached to load; so does the test (for the state, not for a time).
      await page.waitForFunction((part) => [...document.querySelectorAll("[data-widget], .exercise-runner")].some((element) => (element.dataset.widget ?? `runner:${element.dataset.exercise}`) === part && element.dataset.ready === "true"), where.part);
      continue;
    }
    if (reached.size === parts.length && !where.part) break;
    if (where.inEditor) {
      // Tab indents in the editor; Escape then Tab leaves it (CodeMirror's standard escape hatch).
      await page.keyboard.press("Escape");
      escapes += 1;
    }
    await page.keyboard.press("Tab");
  }
  await shot(page, "keyboard-path-end");
  assert.deepEqual(parts.filter((part) => !reached.has(part)), [], "every part is reached by Tab");
  const notMounted = await page.evaluate(() => [...document.querySelectorAll("[data-widget], .exercise-runner")].filter((element) => element.dataset.ready !== "true").map((element) => element.dataset.widget ?? element.dataset.exercise));
  assert.deepEqual(notMounted, [], "every lazy part mounted when the keyboard reached it");
  assert.ok(escapes >= lesson.sections.flatMap((section) => section.embeds.filter((embed) => embed.kind === "exercise")).length, "each editor was left with Escape, Tab");
  assert.deepEqual(problems, []);
  await context.close();
});

// ---- the editor: marks at their line, Tab ---------------------------------------------------

/** 0-based indexes of the editor's lines that carry an error mark, and the messages in the lint panel. */
async function editorMarks(page, exercise) {
  const lines = await exercise.locator(".cm-line").evaluateAll((elements) => elements.flatMap((line, index) => (line.querySelector(".cm-lintRange-error, .cm-lintPoint-error") ? [index] : [])));
  await exercise.locator(".cm-content").focus();
  await page.keyboard.press("Control+Shift+KeyM");
  const panel = exercise.locator(".cm-panel-lint");
  await panel.waitFor();
  const messages = await panel.locator("li").allInnerTexts();
  await page.keyboard.press("Escape");
  return { lines, messages };
}

const lineOf = (source, needle) => source.split("\n").findIndex((line) => line.includes(needle));

test("the editor marks a syntax error, a missing export and an exception at their line", async () => {
  const solution = read("lock/solution.js");
  const cases = [
    { name: "syntax", source: solution.replace("return result.ok;", "return result.ok +;"), needle: "return result.ok +;", says: /SyntaxError/ },
    { name: "missing-export", source: solution.replace("export async function unlock", "async function unlock"), needle: null, says: /must export `unlock`/ },
    { name: "exception", source: solution.replace("return result.ok;", "null.boom;\n  return result.ok;"), needle: "null.boom;", says: /unlock\(\) threw TypeError: cannot read property 'boom' of null/ },
  ];
  for (const { name, source, needle, says } of cases) {
    const { page } = await openWithDraft("lock", source);
    const exercise = await runnerOf(page, "lock");
    await runTests(exercise);
    await exercise.locator(".cm-lintRange-error, .cm-lintPoint-error").first().waitFor();
    await exercise.locator(".runner-editor").scrollIntoViewIfNeeded();
    await shot(exercise.locator(".runner-editor"), `editor-mark-${name}`);
    const { lines, messages } = await editorMarks(page, exercise);
    const expectedLine = needle === null ? source.trimEnd().split("\n").length - 1 : lineOf(source, needle);
    assert.deepEqual(lines, [expectedLine], `${name}: marked at line ${expectedLine + 1}`);
    assert.ok(messages.some((message) => says.test(message)), `${name}: the panel says ${says}, got ${JSON.stringify(messages)}`);
    await page.context().close();
  }
});

test("the editor marks a syntax error while typing, and Tab indents until Escape, Tab moves on", async () => {
  const { page } = await openLesson(session);
  const exercise = await runnerOf(page, "lock");
  assert.equal(await exercise.locator(".cm-lintRange-error, .cm-lintPoint-error").count(), 0, "the starter parses");
  await exercise.locator(".cm-content").click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("const = ;\n");
  await exercise.locator(".cm-lintRange-error, .cm-lintPoint-error").first().waitFor();
  assert.deepEqual((await editorMarks(page, exercise)).lines, [0]);

  await exercise.locator(".cm-content").focus();
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => Boolean(document.activeElement.closest(".cm-content"))), true, "Tab stays in the editor");
  assert.match((await exercise.locator(".cm-line").first().innerText()).replace(/\u00a0/g, " "), /^\s+const = ;/, "and indents the line");
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => Boolean(document.activeElement.closest(".cm-editor"))), false, "Escape, then Tab, leaves the editor");
});

// ---- progress that travels ------------------------------------------------------------------

test("export carries quiz answers and exercise state; import restores them; the CLI still grades the exported folder", async () => {
  const { page, context } = await openLesson(session, { acceptDownloads: true });
  const quizKey = "quizzes/locks-and-ttl.toml";
  const quiz = quizBlock(page, quizKey);
  const [first, second] = lesson.quizzes[quizKey].questions;
  await answerQuestion(quiz, first, { right: false });
  await quiz.locator('.quiz-live button[data-action="next"]').click();
  await answerQuestion(quiz, second, { right: true });
  await page.locator("#exercise-fencing").getByRole("button", { name: "Show hint 1 of 3" }).click();
  const draft = "// my fencing work\n";
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("fencing", code);
    window.leaselab.progress.recordRun("fencing", { passed: false, summary: "3/14" });
  }, draft);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export my solutions" }).click()]);
  // Kept outside the browser's context, which deletes its downloads when it closes.
  const folder = mkdtempSync(join(tmpdir(), "leaselab-export-"));
  const tarPath = join(folder, download.suggestedFilename());
  await download.saveAs(tarPath);
  const exported = JSON.parse(fileFromTar(tarPath, "ownership-election/progress.json"));
  assert.equal(exported.format, "leaselab-progress");
  assert.equal(exported.version, 1);
  assert.equal(exported.lesson, "ownership-election");
  assert.equal(exported.graderVersion, lesson.grading.grader_version, "the grader that judged the results is named");
  assert.equal(exported.progress.quizzes[quizKey].answers[second.id].correct, true);
  assert.equal(exported.progress.exercises.fencing.lastRun.summary, "3/14");
  await context.close();

  // The command-line grader reads the exported folder as it is (progress.json beside the code is ignored).
  execFileSync("tar", ["-xf", tarPath, "-C", folder]);
  const graded = spawnSync("node", [fileURLToPath(new URL("../cli/leaselab.mjs", import.meta.url)), "grade", join(folder, "ownership-election"), "--seeds", "2"], { encoding: "utf8" });
  assert.equal(graded.status, 1, `starters and a draft fail: ${graded.stderr}`);
  for (const { file } of Object.values(lesson.exercises)) assert.match(graded.stdout, new RegExp(`^\\S*${file.replace(".", "\\.")} \\(`, "m"), `${file} is graded`);

  // A fresh browser: import the tar, and everything is back.
  const { page: other, context: otherContext } = await openLesson(session);
  const chooseFile = async (files) => {
    const [chooser] = await Promise.all([other.waitForEvent("filechooser"), other.getByRole("button", { name: "Import progress…" }).click()]);
    await chooser.setFiles(files);
  };
  await Promise.all([other.waitForEvent("load"), chooseFile(tarPath)]);
  await other.waitForSelector("html[data-lesson-ready]");
  await other.locator(".progress-status", { hasText: "Imported your progress" }).waitFor();
  await shot(other, "progress-imported");
  const otherQuiz = quizBlock(other, quizKey);
  assert.equal(await otherQuiz.locator(".quiz-live .quiz-counter span[aria-hidden]").textContent(), "2 / 3");
  assert.equal(await other.locator("#exercise-fencing .hint:visible").count(), 1);
  assert.equal(await other.evaluate(() => window.leaselab.progress.getDraft("fencing")), draft);
  assert.equal(await other.evaluate(() => window.leaselab.progress.getLastRun("fencing").summary), "3/14");

  // Another lesson's file, or a newer one: refused with a message, nothing changed.
  const refused = [
    [{ ...exported, lesson: "raft-basics" }, /Nothing was imported: .* holds progress in another lesson \("raft-basics"\)/],
    [{ ...exported, version: 7 }, /Nothing was imported: .* was exported by a newer version of this lesson/],
    // More than this browser stores for a site (about 5 MB in Chromium): before, the page reloaded the old progress and said it imported.
    [
      { ...exported, progress: { ...exported.progress, exercises: { ...exported.progress.exercises, ...Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`x${index}`, { draft: "y".repeat(999_000), draftAt: null, hintsUnlocked: 0, passedAt: null, lastRun: null }])) } } },
      /Nothing was imported: progress\.json could not be stored in this browser \(the browser's storage for this site is full\); your progress is as it was/,
    ],
  ];
  for (const [file, message] of refused) {
    await chooseFile({ name: "progress.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
    // This file's own message: the one before it says "Nothing was imported" too, and is still there until this one comes.
    await other.locator(".progress-status", { hasText: message }).waitFor();
    assert.match(await other.locator(".progress-status").textContent(), message);
    assert.equal(await other.evaluate(() => window.leaselab.progress.getDraft("fencing")), draft, "nothing changed");
  }
  await shot(other.locator(".progress-panel"), "progress-import-refused");

  // A file from another grader version: the work comes back, its results do not, and the page says why.
  const fromOtherGrader = { ...exported, graderVersion: "0.0.1" };
  await Promise.all([other.waitForEvent("load"), chooseFile({ name: "progress.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(fromOtherGrader)) })]);
  await other.waitForSelector("html[data-lesson-ready]");
  await other.locator(".progress-status", { hasText: "were judged by grader 0.0.1" }).waitFor();
  assert.match(await other.locator(".progress-status").textContent(), /so they were not imported: your code, quiz answers, hints and read marks were/);
  assert.equal(await other.evaluate(() => window.leaselab.progress.getDraft("fencing")), draft);
  assert.equal(await other.evaluate(() => window.leaselab.progress.getLastRun("fencing")), null);
  assert.equal(await otherQuiz.locator(".quiz-live .quiz-counter span[aria-hidden]").textContent(), "2 / 3");
  await otherContext.close();
});
