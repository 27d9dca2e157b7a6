// The code runner by keyboard and on every screen, in real Chromium: a
// failing run steps by arrow keys and by Previous/Next with the focus kept
// (Space never scrolls the page away) and shows every step as a list; the
// editor's focus ring shows whole; Ctrl+Enter runs the tests and the editor
// comes before its buttons in Tab order; on a wide screen the task stays
// beside the code; a phone's editor keeps its width for code; the timeline's
// text is readable; a reopened link names its test; and no stray "null".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { axeViolations, screenshot, startBrowser } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";

const UNLOCK_WITHOUT_VERSION = readFileSync(new URL("./fixtures/submissions/lock/unlock-without-version.js", import.meta.url), "utf8");

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

/** The lock exercise with a draft that fails, graded, and its failing run of "the TTL unlock bug" open. */
async function openFailingRun(options = {}) {
  const opened = await openLesson(session, options);
  const { page } = opened;
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, UNLOCK_WITHOUT_VERSION);
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.getByRole("button", { name: "Run tests" }).click();
  await exercise.locator(".runner-summary").waitFor();
  await exercise.locator(".runner-test.is-failed", { hasText: "the TTL unlock bug" }).getByRole("button", { name: "Show the failing run" }).click();
  const story = exercise.locator(".runner-story");
  await story.locator("svg.timeline-svg").waitFor();
  return { ...opened, exercise, story };
}

const position = (story) => story.locator(".story-position").innerText();
const stepsOf = (text) => Number(/of (\d+)$/.exec(text)[1]);
const focusedClass = (page) => page.evaluate(() => document.activeElement?.className ?? "");

test("a failing run steps by arrow keys and by Previous/Next with the focus kept on the control used; Space never scrolls the page; every step is reachable", async () => {
  const { page, story, problems } = await openFailingRun();
  const total = stepsOf(await position(story));
  assert.ok(total >= 3, `a run of ${total} steps`);

  // Previous, pressed with the keyboard again and again: the focus stays on it, step after step, down to the first.
  const previous = story.getByRole("button", { name: "◀ Previous" });
  await previous.focus();
  const scrollBefore = await page.evaluate(() => scrollY);
  for (let pressed = 0; pressed < total; pressed += 1) await page.keyboard.press(pressed % 2 ? "Enter" : "Space");
  assert.equal(await position(story), `Step 1 of ${total}`);
  assert.match(await focusedClass(page), /story-previous/, "the focus stayed on Previous, even at the first step");
  assert.equal(await previous.getAttribute("aria-disabled"), "true", "at the first step it says it is unavailable");
  assert.equal(await page.evaluate(() => scrollY), scrollBefore, "Space pressed Previous; it did not scroll the page");

  // The arrow keys from there walk every step to the last, the focus still on the same control.
  const seen = new Set([await position(story)]);
  for (let step = 1; step < total; step += 1) {
    await page.keyboard.press("ArrowRight");
    seen.add(await position(story));
  }
  assert.equal(seen.size, total, "every step was shown once");
  assert.equal(await position(story), `Step ${total} of ${total}`);
  assert.match(await focusedClass(page), /story-previous/);
  await page.keyboard.press("Home");
  assert.equal(await position(story), `Step 1 of ${total}`);
  await page.keyboard.press("End");
  assert.equal(await position(story), `Step ${total} of ${total}`);

  // Next, clicked at the last step, does nothing and keeps the focus; back one with Previous by mouse.
  const next = story.getByRole("button", { name: "Next ▶" });
  // Playwright will not click what says it is unavailable; a learner can, and nothing must happen.
  await next.click({ force: true });
  assert.equal(await position(story), `Step ${total} of ${total}`);
  assert.match(await focusedClass(page), /story-next/);
  await previous.click();
  assert.equal(await position(story), `Step ${total - 1} of ${total}`);
  assert.match(await focusedClass(page), /story-previous/);

  // On the timeline itself: the arrow keys step, Space does nothing (it used to scroll the page away).
  const canvas = story.locator(".story-canvas");
  await canvas.focus();
  await page.keyboard.press("ArrowLeft");
  assert.equal(await position(story), `Step ${total - 2} of ${total}`);
  const scrollAt = await page.evaluate(() => scrollY);
  await page.keyboard.press("Space");
  assert.equal(await page.evaluate(() => scrollY), scrollAt, "Space on the timeline does not scroll the page");
  assert.match(await focusedClass(page), /story-canvas/, "the timeline keeps the focus as it is redrawn");
  assert.deepEqual(problems, []);
});

test("the one announcement names the first failing row of the list, whichever test failed first", async () => {
  const { exercise } = await openFailingRun();
  const firstFailed = await exercise.locator(".runner-test.is-failed .runner-test-name").first().evaluate((name) => name.firstChild.textContent);
  assert.equal(await exercise.locator(".runner-results [aria-live]").innerText(), `First failure: ${firstFailed.replace(/ \(\d+ schedules\)$/, "")}`);
});

test("every step of a failing run as a list: each one a button to its step, the current one marked", async () => {
  const { page, story, problems } = await openFailingRun();
  const total = stepsOf(await position(story));
  await story.locator(".story-steps > summary").click();
  const items = story.locator(".story-step-list button");
  assert.equal(await items.count(), total);
  assert.equal(await story.locator('.story-step-list [aria-current="step"]').count(), 1);
  await items.nth(1).click();
  assert.equal(await position(story), `Step 2 of ${total}`);
  assert.equal(await items.nth(1).getAttribute("aria-current"), "step");
  assert.match(await focusedClass(page), /story-step-link/, "the list item keeps the focus");
  assert.equal(await story.locator(".story-step").innerText(), (await items.nth(1).innerText()).replace(/^2\. /, ""), "the list says what the step says");
  await screenshot(page, "runner-steps-as-a-list");
  assert.deepEqual(problems, []);
});

for (const colorScheme of ["light", "dark"]) {
  test(`axe finds nothing in the ${colorScheme} theme with a failing run open and its steps listed`, async () => {
    const { page, story } = await openFailingRun({ colorScheme });
    await story.locator(".story-steps > summary").click();
    await story.locator(".story-step-list button").first().waitFor();
    assert.deepEqual(await axeViolations(page), []);
  });
}

test("the timeline's text is as large on screen as the page's small text, not scaled down", async () => {
  const { story } = await openFailingRun();
  const sizes = await story.locator("svg.timeline-svg").evaluate((svg) => {
    const scale = svg.getScreenCTM().a;
    return [...svg.querySelectorAll("text")].map((text) => scale * parseFloat(getComputedStyle(text).fontSize));
  });
  assert.ok(sizes.length > 0);
  assert.ok(Math.min(...sizes) >= 11, `the smallest label is ${Math.min(...sizes).toFixed(1)} px on screen`);
});

test("the editor's focus ring shows whole: nothing around it clips it", async () => {
  const { page } = await openLesson(session);
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-content").click();
  const clipped = await exercise.locator(".cm-editor").evaluate((editor) => {
    const style = getComputedStyle(editor);
    const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
    if (style.outlineStyle === "none" || !(reach > 0)) return ["the focused editor shows no outline"];
    const box = editor.getBoundingClientRect();
    const ring = { left: box.left - reach, top: box.top - reach, right: box.right + reach, bottom: box.bottom + reach };
    const clippers = [];
    for (let parent = editor.parentElement; parent; parent = parent.parentElement) {
      const own = getComputedStyle(parent);
      if (own.overflowX === "visible" && own.overflowY === "visible") continue;
      // What the ancestor shows: inside its borders.
      const outer = parent.getBoundingClientRect();
      const inner = { left: outer.left + parent.clientLeft, top: outer.top + parent.clientTop, right: outer.left + parent.clientLeft + parent.clientWidth, bottom: outer.top + parent.clientTop + parent.clientHeight };
      if (ring.left < inner.left || ring.top < inner.top || ring.right > inner.right || ring.bottom > inner.bottom) clippers.push(parent.className || parent.tagName);
    }
    return clippers;
  });
  assert.deepEqual(clipped, []);
});

test("the editor comes before its buttons in Tab order, and Ctrl+Enter runs the tests from the editor, the focus staying there", async () => {
  const { page, problems } = await openLesson(session);
  const exercise = page.locator("#exercise-cas");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-content").click();
  // Out of the editor the way its label says (Escape, then Tab): the next stop is Run tests.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Run tests");
  await page.keyboard.press("Shift+Tab");
  assert.ok(await exercise.locator(".cm-content").evaluate((content) => content === document.activeElement), "and back into the editor");
  await page.keyboard.press("Control+Enter");
  await exercise.locator(".runner-summary").waitFor();
  assert.match(await exercise.locator(".runner-summary").innerText(), /^\d+ of \d+ tests passed/);
  assert.ok(await exercise.locator(".cm-content").evaluate((content) => content === document.activeElement), "the learner goes on typing");
  assert.match(await exercise.locator(".runner-keys").innerText(), /Ctrl\+Enter runs the tests/);
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("cas")), null, "Ctrl+Enter ran the tests; it did not change the code (CodeMirror's own Ctrl+Enter inserts a line)");
  assert.deepEqual(problems, []);
});

test("on a wide screen the task stays beside the code: its rules and hints are on screen while the learner edits", async () => {
  const { page } = await openLesson(session, { viewport: { width: 1280, height: 800 } });
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-content").click();
  const layout = await exercise.evaluate((root) => {
    const box = (selector) => root.querySelector(selector).getBoundingClientRect().toJSON();
    const task = root.querySelector(".exercise-task");
    return { editor: box(".cm-editor"), task: box(".exercise-task"), scrolls: task.scrollHeight > task.clientHeight, viewport: { width: innerWidth, height: innerHeight } };
  });
  assert.ok(layout.task.right <= layout.editor.left, "the task is to the left of the editor");
  assert.ok(layout.task.top < layout.viewport.height && layout.task.bottom > 0 && layout.editor.top < layout.viewport.height, "both are on screen");
  assert.ok(layout.editor.width >= 560, `the editor keeps room for code (${layout.editor.width} px)`);
  assert.ok(layout.task.bottom - Math.max(0, layout.task.top) >= 0.8 * layout.viewport.height, "the task fills the height beside the code");
  assert.ok(layout.scrolls, "the task scrolls on its own, the code staying put");
  // Its rules and the hints are in that column: scrolled to within it, the editor does not move.
  const editorTop = layout.editor.top;
  const rules = exercise.locator(".exercise-task h5", { hasText: "What the tests check" });
  await rules.scrollIntoViewIfNeeded();
  assert.ok(await rules.isVisible());
  assert.equal((await exercise.locator(".cm-editor").boundingBox()).y, editorTop, "the editor stayed where it was");
  assert.equal(await exercise.locator(".exercise-task").getByRole("button", { name: /^Show hint/ }).count(), 1);
  await screenshot(page, "exercise-task-beside-code");
});

test("on a phone the editor's gutters leave the width to the code", async () => {
  const { page } = await openLesson(session, { viewport: { width: 390, height: 844 } });
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  const { gutters, editor } = await exercise.evaluate((root) => ({ gutters: root.querySelector(".cm-gutters").getBoundingClientRect().width, editor: root.querySelector(".cm-editor").getBoundingClientRect().width }));
  assert.ok(gutters <= 40, `the gutters take ${gutters.toFixed(0)} of ${editor.toFixed(0)} px`);
});

test("no runner prints a stray \"null\" (the exercises without a lab panel)", async () => {
  const { page } = await openLesson(session);
  for (const name of ["cas", "fencing"]) {
    const runner = page.locator(`#exercise-${name} .exercise-runner`);
    await runner.scrollIntoViewIfNeeded();
    await runner.locator(".cm-editor").waitFor();
    const stray = await runner.evaluate((root) => [...root.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE && node.textContent.trim() !== "").map((node) => node.textContent));
    assert.deepEqual(stray, [], name);
  }
});

test("a reopened link names the test its run belongs to, and shows no score of \"0 of 0 tests\"", async () => {
  const { page, context, exercise, story } = await openFailingRun();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await story.getByRole("button", { name: "Copy link" }).click();
  await story.locator(".copy-note", { hasText: /Link copied|Copy this link/ }).waitFor();
  const link = await page.evaluate(() => location.href);
  const other = await context.newPage();
  await other.goto(link);
  const reopened = other.locator("#exercise-lock");
  await reopened.locator(".runner-story svg.timeline-svg").waitFor();
  assert.equal(await reopened.locator(".story-heading").innerText(), "Failing run: the TTL unlock bug: a stalled holder's late unlock");
  assert.match(await reopened.locator(".runner-results").innerText(), /The linked run of “the TTL unlock bug: a stalled holder's late unlock”/);
  assert.doesNotMatch(await reopened.innerText(), /0 of 0 tests|Score 0\/0/);
  // Stepping through it does not bring a score back either.
  await reopened.getByRole("button", { name: "◀ Previous" }).click();
  assert.doesNotMatch(await reopened.locator(".runner-status").innerText(), /Score/);
  assert.equal(await exercise.count(), 1);
});

test("a test stopped by an infinite loop says which function was running and where it starts, in the list and in the editor", async () => {
  const looping = readFileSync(new URL("../exercises/ownership-election/lock/solution.js", import.meta.url), "utf8").replace("return result.ok ? { version: result.version } : null;", "while (true) {}");
  const { page } = await openLesson(session);
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, looping);
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.getByRole("button", { name: "Run tests" }).click();
  await exercise.locator(".runner-summary").waitFor();
  // The harness calls lock() or tryLock() (lock calls tryLock): either is named, at the line that defines it.
  const lineOf = (name) => looping.split("\n").findIndex((text) => new RegExp(`function ${name}\\(`).test(text)) + 1;
  const where = await exercise.locator(".runner-test.is-failed .runner-test-where").allInnerTexts();
  assert.ok(where.length > 0, "the failing tests say where");
  for (const text of where) {
    const named = /^It was running (tryLock|lock)\(\), which starts at line (\d+): look there for a loop that never waits for the store\.$/.exec(text);
    assert.ok(named, text);
    assert.equal(Number(named[2]), lineOf(named[1]), text);
  }
  const lines = new Set(["tryLock", "lock"].map(lineOf));
  // The editor marks that line.
  await exercise.locator(".cm-lint-marker-error").first().waitFor();
  const marked = await exercise.locator(".cm-gutter-lint .cm-gutterElement").evaluateAll((elements) => elements.filter((element) => element.querySelector(".cm-lint-marker-error")).map((element) => element.textContent));
  assert.ok(marked.length >= 1);
  const lineNumbers = await exercise.locator(".cm-lineNumbers .cm-gutterElement").evaluateAll((elements) => elements.map((element) => ({ text: element.textContent, top: element.getBoundingClientRect().top })));
  const markerTop = await exercise.locator(".cm-lint-marker-error").first().evaluate((marker) => marker.getBoundingClientRect().top);
  const markedLine = lineNumbers.reduce((best, entry) => (Math.abs(entry.top - markerTop) < Math.abs(best.top - markerTop) ? entry : best));
  assert.ok(lines.has(Number(markedLine.text)), `the mark is at a function's line (${markedLine.text})`);
});
