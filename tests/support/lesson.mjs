// Helpers for the lesson page's browser tests: the lesson's own data (to know
// which option is right), opening the page, answering questions, reading
// what a page downloads.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { openPage } from "./browser.mjs";
import { LESSON_DIR, LESSON_ID } from "../../web/build/lesson-folder.mjs";
import { storageKey } from "../../web/src/storage/progress.js";
import { textOf } from "../../web/src/lesson/html.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The rendered lesson as `cargo xtask build` writes it: `target/lesson/<id>.json`. */
export const LESSON_JSON = `${ROOT}target/lesson/${LESSON_ID}.json`;
export const STORAGE_KEY = storageKey(LESSON_ID);

/** The rendered lesson, as `cargo xtask build` left it (rendered here if missing). */
export function lessonJson() {
  if (!existsSync(LESSON_JSON)) {
    execFileSync("cargo", ["run", "--quiet", "-p", "content", "--", "render", LESSON_DIR, "--out", LESSON_JSON], { cwd: ROOT, stdio: "inherit" });
  }
  return JSON.parse(readFileSync(LESSON_JSON, "utf8"));
}

/** Opens the lesson and waits until its scripts have mounted the quizzes and exercises. */
export async function openLesson(session, options = {}) {
  const opened = await openPage(session.browser, session.url, options);
  await opened.page.waitForSelector("html[data-lesson-ready]");
  return opened;
}

/** Reloads and waits for the scripts again. */
export async function reloadLesson(page) {
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
}

/** The quiz block for a quiz key such as "quizzes/review.toml". */
export function quizBlock(page, quizKey) {
  return page.locator(`.quiz[data-quiz="${quizKey}"]`);
}

/** Indexes (into question.options) of a right response, or of a wrong one. */
export function choiceFor(question, right) {
  if (right) return question.options.flatMap((option, index) => (option.correct ? [index] : []));
  return [question.options.findIndex((option) => !option.correct)];
}

/**
 * The input of the question's option `index` (into question.options) on
 * screen, found by its text: the markup does not say which option is which
 * (an input's value is its place on screen in this round's order).
 */
export function optionInput(quiz, question, index) {
  const text = textOf(question.options[index].html);
  return quiz.locator(".quiz-live .quiz-option").filter({ has: quiz.page().locator(".quiz-option-text").getByText(text, { exact: true }) }).locator("input");
}

/** The options' texts in the order on screen. */
export function shownOptions(quiz) {
  return quiz.locator(".quiz-live .quiz-option-text").allInnerTexts();
}

/** Fills in a right or wrong response to the question on screen and presses Check. */
export async function answerQuestion(quiz, question, { right }) {
  const live = quiz.locator(".quiz-live");
  if (question.type === "ShortAnswer") {
    await live.getByLabel("Your answer").fill(right ? question.answer : "no idea");
  } else {
    for (const index of choiceFor(question, right)) await optionInput(quiz, question, index).check();
  }
  await live.getByRole("button", { name: "Check" }).click();
}

/**
 * Scrolls from top to bottom a screen at a time, so every widget comes near
 * enough to mount. With `dwellMs`, the page's clock (`Date`) moves on by
 * that much at each screen, as if a reader stayed there to read it: the page
 * marks a section read only after its reading time on screen
 * (web/src/lesson/progress.js). Without, it is a reader scrolling past.
 */
export async function readWholeLesson(page, { dwellMs = 0 } = {}) {
  let clockMs = Date.now();
  const { height, step } = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, step: Math.round(innerHeight * 0.8) }));
  // After each scroll, two rendered frames: intersection observers report during a frame's update, so by
  // then the page has seen that screen (a state, not a guess at how long a busy machine takes).
  const scrollAndRender = (y) => page.evaluate(async (y) => {
    scrollTo(0, y ?? document.documentElement.scrollHeight);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }, y);
  // Date only, fixed and moved by hand: the page's timers and frames keep running in real time.
  const dwell = async () => {
    if (dwellMs <= 0) return;
    clockMs += dwellMs;
    await page.clock.setFixedTime(clockMs);
  };
  if (dwellMs > 0) await page.clock.setFixedTime(clockMs);
  for (let top = 0; top <= height; top += step) {
    await scrollAndRender(top);
    await dwell();
  }
  await scrollAndRender(null);
  await dwell();
}

/** The visible counter of a quiz ("2 / 3", "Retry 1 / 2"). */
export function quizCounter(quiz) {
  return quiz.locator(".quiz-live .quiz-counter span[aria-hidden]").textContent();
}

/** A file's text inside a .tar, read with the system's tar. */
export function fileFromTar(tarPath, name) {
  return execFileSync("tar", ["-xOf", tarPath, name], { encoding: "utf8" });
}

export function filesInTar(tarPath) {
  return execFileSync("tar", ["-tf", tarPath], { encoding: "utf8" }).trim().split("\n");
}

/**
 * Everything the page fetches while `action` runs: [{ url, bytes, gzipBytes }].
 * gzip -9 of each body, as `cargo xtask bench` measures files.
 */
export async function recordTransfers(page, action) {
  const pending = [];
  const listener = (response) => {
    pending.push(
      response.body().then(
        (body) => ({ url: response.url(), bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length }),
        () => ({ url: response.url(), bytes: 0, gzipBytes: 0 }),
      ),
    );
  };
  page.on("response", listener);
  await action();
  page.off("response", listener);
  return Promise.all(pending);
}
