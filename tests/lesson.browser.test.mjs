// The lesson page in real Chromium: reading, quizzes, hints, progress that
// survives reloads and damage, reset, export, the uptime estimator, the
// keyboard path, axe-core in both themes, a phone's width, and first-load
// weight. Screenshots of the main states go to test-artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { startBrowser, openPage, axeViolations, ARTIFACTS_DIR, screenshot, newContext } from "./support/browser.mjs";
import {
  STORAGE_KEY,
  answerQuestion,
  choiceFor,
  fileFromTar,
  filesInTar,
  lessonJson,
  openLesson,
  optionInput,
  quizBlock,
  quizCounter,
  readWholeLesson,
  recordTransfers,
  reloadLesson,
  shownOptions,
} from "./support/lesson.mjs";

const lesson = lessonJson();
const quizKeys = lesson.sections.flatMap((section) => section.embeds.filter((embed) => embed.kind === "quiz").map((embed) => embed.src));
const exerciseNames = lesson.sections.flatMap((section) => section.embeds.filter((embed) => embed.kind === "exercise").map((embed) => embed.src));
const totalQuestions = quizKeys.reduce((sum, key) => sum + lesson.quizzes[key].questions.length, 0);
const shot = (page, name, options = {}) => screenshot(page, `lesson-${name}`, { ...options });
const textOf = (html) => html.replace(/<[^>]*>/g, "").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
const squash = (text) => text.replace(/\s+/g, " ").trim();

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

test("the lesson reads without JavaScript: text, highlighted code, both diagrams, quizzes and hints are in the HTML", async () => {
  const { page } = await openPage(session.browser, session.url, { javaScriptEnabled: false });
  assert.equal(await page.locator("h1").textContent(), lesson.title);
  for (const section of lesson.sections) {
    assert.equal(squash(await page.locator(`[id="${section.id}-title"]`).textContent()), section.title, `section ${section.id} has its title`);
  }
  assert.equal(await page.locator("svg.diagram").count(), 2);
  assert.ok((await page.locator("pre.code .tok-kw").count()) > 20, "code blocks are highlighted at build time");
  assert.equal(await page.locator(".quiz").count(), quizKeys.length);
  assert.equal(await page.locator(".exercise-runner").count(), exerciseNames.length);
  assert.ok(await page.locator(".hint").first().isVisible(), "without scripts, hints are simply shown");
  assert.equal(await page.locator(".needs-js").first().isVisible(), false, "buttons that need scripts are hidden");
  await shot(page, "no-javascript", { fullPage: false });
});

test("scrolling past every section marks none of them read", async () => {
  const { page, problems } = await openLesson(session);
  await readWholeLesson(page);
  // Every section's end has been on screen (two frames after each scroll), and a moment more for the page to look.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  assert.equal(await page.locator(".toc-item.is-read").count(), 0);
  assert.equal(await page.locator('[data-progress="read"] .progress-figure').textContent(), `0 / ${lesson.sections.length}`);
  assert.deepEqual(problems, []);
});

test("reading the lesson (each screen on show for a while) marks every section read in the contents", async () => {
  const { page, problems } = await openLesson(session);
  await shot(page, "top-light");
  const readRow = page.locator('[data-progress="read"] .progress-figure');
  assert.equal(await readRow.textContent(), `0 / ${lesson.sections.length}`);
  await readWholeLesson(page, { dwellMs: 20_000 });
  await page.waitForFunction((count) => document.querySelectorAll(".toc-item.is-read").length === count, lesson.sections.length);
  assert.equal(await readRow.textContent(), `${lesson.sections.length} / ${lesson.sections.length}`);
  assert.equal(await page.locator('.toc-item a[aria-current="location"]').count(), 1, "the contents mark where you are");
  assert.deepEqual(problems, []);
});

test("every quiz: a wrong answer says why, the right one held back until asked for; retry only the wrong ones, in a new order; review; the box never changes height", async () => {
  const { page, problems } = await openLesson(session);
  for (const quizKey of quizKeys) {
    const { questions } = lesson.quizzes[quizKey];
    const quiz = quizBlock(page, quizKey);
    await quiz.scrollIntoViewIfNeeded();
    const heightAtStart = await quiz.evaluate((element) => element.offsetHeight);

    // First pass: the first question right, every other one wrong.
    const firstOrders = [];
    for (const [index, question] of questions.entries()) {
      assert.equal(await quizCounter(quiz), `${index + 1} / ${questions.length}`, `${quizKey}: the counter`);
      const right = index === 0;
      firstOrders.push(await shownOptions(quiz));
      await answerQuestion(quiz, question, { right });
      const feedback = squash(await quiz.locator(".quiz-live .quiz-feedback").textContent());
      assert.ok(feedback.startsWith(right ? "Right." : "Not quite."), `${quizKey} #${index}: verdict, got "${feedback}"`);
      const explained = () => quiz.locator(".quiz-live .quiz-options").textContent().then(squash);
      const explains = async (optionIndex) => (await explained()).includes(textOf(question.options[optionIndex].explanation_html));
      if (right && question.type === "MultipleChoice") {
        for (const optionIndex of choiceFor(question, true)) assert.ok(await explains(optionIndex), `${quizKey} #${index}: explains option ${optionIndex}`);
      }
      if (!right) {
        // Held back: why the learner's choice does not hold (one answer), but not which is right, nor the expected text.
        if (question.type === "MultipleChoice" && !question.multiple) assert.ok(await explains(choiceFor(question, false)[0]), `${quizKey} #${index}: explains the choice`);
        if (question.type === "MultipleChoice") {
          for (const optionIndex of choiceFor(question, true)) assert.equal(await explains(optionIndex), false, `${quizKey} #${index}: the right option's note waits`);
          assert.doesNotMatch(await explained(), /Right answer|Your choice · wrong/);
        } else {
          assert.ok(!feedback.includes(question.answer), `${quizKey} #${index}: the expected answer waits`);
        }
        assert.equal(await quiz.evaluate((element) => element.offsetHeight), heightAtStart, `${quizKey} #${index}: the quiz keeps its height, the answer held back`);
        // Asked for, it shows.
        await quiz.getByRole("button", { name: "Show the answer" }).click();
        if (question.type === "MultipleChoice") {
          for (const optionIndex of choiceFor(question, true)) assert.ok(await explains(optionIndex), `${quizKey} #${index}: shown, explains option ${optionIndex}`);
        } else {
          assert.ok(squash(await quiz.locator(".quiz-live .quiz-feedback").textContent()).includes(`The expected answer is “${question.answer}”`), `${quizKey} #${index}: names the expected answer`);
        }
      }
      assert.equal(await quiz.evaluate((element) => element.offsetHeight), heightAtStart, `${quizKey} #${index}: the quiz keeps its height when answered`);
      if (quizKey === "quizzes/singleton-vs-election.toml" && index === 1) await shot(page, "quiz-wrong-answer");
      await quiz.getByRole("button", { name: index + 1 < questions.length ? "Next question" : "See your results" }).click();
    }
    const summary = squash(await quiz.locator(".quiz-score").textContent());
    assert.ok(summary.startsWith(`1 of ${questions.length} right.`), `${quizKey}: summary, got "${summary}"`);

    // Retry: only the wrong ones come back, their options in a new order.
    await quiz.getByRole("button", { name: new RegExp(`^Retry the ${questions.length - 1} wrong`) }).click();
    let reordered = 0;
    for (const [position, question] of questions.slice(1).entries()) {
      assert.equal(await quizCounter(quiz), `Retry ${position + 1} / ${questions.length - 1}`);
      if (question.type === "MultipleChoice" && (await shownOptions(quiz)).join("|") !== firstOrders[position + 1].join("|")) reordered += 1;
      await answerQuestion(quiz, question, { right: true });
      assert.ok(squash(await quiz.locator(".quiz-live .quiz-feedback").textContent()).startsWith("Right."));
      await quiz.locator('.quiz-live button[data-action="next"]').click();
    }
    const choices = questions.slice(1).filter((question) => question.type === "MultipleChoice" && question.options.length > 2).length;
    if (choices > 0) assert.ok(reordered > 0, `${quizKey}: a retry shows some question's options in a new order`);
    assert.ok(squash(await quiz.locator(".quiz-score").textContent()).startsWith(`All ${questions.length} right.`));
    if (quizKey === "quizzes/singleton-vs-election.toml") await shot(page, "quiz-summary");

    // Review: every question with its verdict and explanations.
    await quiz.getByRole("button", { name: "Review all answers" }).click();
    assert.equal(await quiz.locator(".quiz-review-item").count(), questions.length);
    assert.equal(await quiz.locator(".quiz-review-item.is-right").count(), questions.length);
    const review = squash(await quiz.locator(".quiz-review").textContent());
    for (const question of questions) {
      if (question.type === "MultipleChoice") assert.ok(review.includes(textOf(question.options[0].explanation_html)));
    }
    if (quizKey === "quizzes/singleton-vs-election.toml") await shot(page, "quiz-review");
    await quiz.getByRole("button", { name: "Back to the results" }).click();
  }
  const right = page.locator('[data-progress="right"] .progress-figure');
  assert.equal(await right.textContent(), `${totalQuestions} / ${totalQuestions}`);
  assert.deepEqual(problems, []);
});

test("options are shuffled by question id: the right answer is not always first, the order is stable, and no input's value says which option it is", async () => {
  const { page } = await openLesson(session);
  const shown = () => page.locator(".quiz-live .quiz-options").evaluateAll((lists) => lists.map((list) => [...list.querySelectorAll(".quiz-option-text")].map((text) => text.textContent)));
  const firstShown = await shown();
  // The lesson's JSON lists the right options first.
  const firstQuestions = quizKeys.map((key) => lesson.quizzes[key].questions[0]).filter((question) => question.type === "MultipleChoice");
  assert.ok(firstQuestions.some((question) => !firstShown.some((texts) => texts[0] === textOf(question.options[0].html))), "some question shows a distractor first");
  await reloadLesson(page);
  assert.deepEqual(await shown(), firstShown);
  const values = await page.locator(".quiz-live .quiz-options").evaluateAll((lists) => lists.map((list) => [...list.querySelectorAll("input")].map((input) => input.value).join(",")));
  assert.ok(values.every((list) => /^0(,\d+)*$/.test(list) && list.split(",").every((value, at) => Number(value) === at)), "values count down the screen, whatever is right");
  assert.doesNotMatch(await page.locator("#lesson-data").textContent(), /"correct"|"explanation_html"/, "the page's data does not say which option is right");
});

test("a quiz works from the keyboard alone, with visible focus and announced verdicts", async () => {
  const { page } = await openLesson(session);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Skip to the lesson");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.id), "lesson");

  const quizKey = "quizzes/singleton-vs-election.toml";
  const question = lesson.quizzes[quizKey].questions[0];
  const inFirstQuiz = () => page.evaluate(() => document.activeElement.closest(".quiz")?.dataset.quiz === "quizzes/singleton-vs-election.toml" && document.activeElement.type === "radio");
  let presses = 0;
  while (!(await inFirstQuiz())) {
    await page.keyboard.press("Tab");
    presses += 1;
    assert.ok(presses < 150, "Tab reaches the first quiz's options");
  }
  // Arrow keys move within the radio group; find the right answer.
  // The markup does not say which option is right: the test knows it by the option's text.
  const rightText = textOf(question.options[choiceFor(question, true)[0]].html);
  for (let step = 0; step < question.options.length; step += 1) {
    if ((await page.evaluate(() => document.activeElement.closest(".quiz-option").querySelector(".quiz-option-text").textContent)) === rightText) break;
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Check");
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, "none", "the focused button shows a focus ring");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Next question", "focus moves to Next");
  await page.waitForFunction(() => document.querySelector('.quiz[data-quiz="quizzes/singleton-vs-election.toml"] .quiz-announce').textContent.startsWith("Right."));
  await page.keyboard.press("Enter");
  assert.match(await page.evaluate(() => document.activeElement.id), /-q1-prompt$/, "focus moves to the next question's prompt");

  // A short answer is submitted with Enter.
  await page.keyboard.press("Enter").catch(() => {});
  const quiz = quizBlock(page, quizKey);
  await answerQuestion(quiz, lesson.quizzes[quizKey].questions[1], { right: false });
  await quiz.locator('.quiz-live button[data-action="next"]').press("Enter");
  const text = quiz.getByLabel("Your answer");
  await text.focus();
  await page.keyboard.type("8.64");
  await page.keyboard.press("Enter");
  assert.ok(squash(await quiz.locator(".quiz-live .quiz-feedback").textContent()).startsWith("Right."));
  assert.equal(await text.getAttribute("readonly"), "");
});

test("an empty Check says what to do and records nothing", async () => {
  const { page } = await openLesson(session);
  const quiz = quizBlock(page, "quizzes/locks-and-ttl.toml");
  await quiz.getByRole("button", { name: "Check" }).click();
  assert.equal(await quiz.locator(".quiz-live .quiz-error").textContent(), "Choose an answer first.");
  assert.equal(await quizCounter(quiz), "1 / 3");
  assert.equal(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY), null);
});

test("hints open one at a time and stay open after a reload", async () => {
  const { page } = await openLesson(session);
  const exercise = page.locator("#exercise-lock");
  const hints = exercise.locator(".hint");
  await exercise.scrollIntoViewIfNeeded();
  assert.equal(await hints.count(), 3);
  assert.equal(await exercise.locator(".hint:visible").count(), 0);
  await exercise.getByRole("button", { name: "Show hint 1 of 3" }).click();
  assert.equal(await exercise.locator(".hint:visible").count(), 1);
  assert.equal(await page.evaluate(() => document.activeElement.id), "exercise-lock-hint-1", "focus moves to the hint just opened");
  await exercise.getByRole("button", { name: "Show hint 2 of 3" }).click();
  await hints.nth(1).scrollIntoViewIfNeeded();
  await shot(page, "exercise-hints");
  await reloadLesson(page);
  assert.equal(await exercise.locator(".hint:visible").count(), 2);
  await exercise.getByRole("button", { name: "Show hint 3 of 3" }).click();
  assert.equal(await exercise.getByRole("button", { name: /Show hint/ }).count(), 0);
  assert.equal(await exercise.locator(".hint-status").textContent(), "All 3 hints are open.");
});

test("a reload keeps answers, drafts, hints and the place in each quiz; export downloads the drafts", async () => {
  const { page, problems } = await openPage(session.browser, session.url, { acceptDownloads: true });
  await page.waitForSelector("html[data-lesson-ready]");
  const quizKey = "quizzes/locks-and-ttl.toml";
  const quiz = quizBlock(page, quizKey);
  const [first, second] = lesson.quizzes[quizKey].questions;
  await answerQuestion(quiz, first, { right: false });
  await quiz.locator('.quiz-live button[data-action="next"]').click();
  await answerQuestion(quiz, second, { right: true });
  await page.locator("#exercise-cas").getByRole("button", { name: "Show hint 1 of 3" }).click();
  // The runner will save drafts through this API (web/src/storage/progress.js).
  const draft = "export function createStore(clock) {\n  // my work in progress\n}\n";
  await page.evaluate((code) => window.leaselab.progress.setDraft("cas", code), draft);

  await reloadLesson(page);
  assert.equal(await quizCounter(quiz), "2 / 3", "back on the question last answered");
  assert.ok(squash(await quiz.locator(".quiz-live .quiz-feedback").textContent()).startsWith("Right."));
  assert.equal(await optionInput(quiz, second, choiceFor(second, true)[0]).isChecked(), true);
  assert.equal(await page.locator('.toc-item[data-section="06-locks"] .toc-chip').first().textContent(), "Quiz 1/3 right, 2 of 3 answered");
  assert.equal(await page.locator("#exercise-cas .hint:visible").count(), 1);
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("cas")), draft);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export my solutions" }).click()]);
  assert.equal(download.suggestedFilename(), "ownership-election-solutions.tar");
  const tarPath = await download.path();
  assert.deepEqual(filesInTar(tarPath).sort(), [...exerciseNames.map((name) => `ownership-election/${lesson.exercises[name].file}`), "ownership-election/progress.json"].sort());
  assert.equal(fileFromTar(tarPath, "ownership-election/cas.js"), draft);
  assert.equal(fileFromTar(tarPath, "ownership-election/lock.js"), lesson.exercises.lock.starter, "no draft yet: the starter");
  const files = exerciseNames.length;
  assert.match(await page.locator(".progress-status").textContent(), new RegExp(`${files} files \\(1 with your code, ${files - 1} still the starter\\)`));
  assert.deepEqual(problems, []);
});

test("damaged saved progress: the page recovers, keeps every readable part, and says what was lost", async () => {
  const { page, problems } = await openLesson(session);
  const damaged = {
    version: 2,
    sections: { "01-why-ownership": { readAt: 1 } },
    quizzes: { "quizzes/locks-and-ttl.toml": { answers: { "why-lock-ttl": { choice: [0], correct: true, fingerprint: null, at: 1 }, "versioned-unlock": { choice: "nope" } }, view: "garbage" } },
    exercises: { lock: { draft: 42, hintsUnlocked: 2, passedAt: 5 }, cas: "nonsense", lease: { draft: "// kept\n", hintsUnlocked: -1 } },
  };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, JSON.stringify(damaged)]);
  await reloadLesson(page);
  const notice = page.locator("#progress-notice");
  assert.equal(await notice.isVisible(), true);
  const said = await notice.textContent();
  assert.match(said, /Some saved progress could not be read/);
  assert.match(said, /draft of the exercise "lock"/);
  assert.match(said, /work on the exercise "cas"/);
  assert.match(said, /question "versioned-unlock"/);
  await notice.scrollIntoViewIfNeeded();
  await shot(page, "recovered-notice");
  // What could be read is all there.
  assert.equal(await page.locator("#exercise-lock .hint:visible").count(), 2);
  assert.equal(await page.locator("#exercise-lock .exercise-status").textContent(), "Passed");
  assert.equal(await page.locator('.toc-item[data-section="01-why-ownership"]').getAttribute("class"), "toc-item is-read");
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("lease")), "// kept\n");
  const quiz = quizBlock(page, "quizzes/locks-and-ttl.toml");
  assert.equal(await quizCounter(quiz), "2 / 3", "resumes at the first unanswered question");
  // The damaged copy is kept, and the cleaned one saved.
  const keys = await page.evaluate(() => Object.keys(localStorage));
  assert.ok(keys.some((key) => key.startsWith(`${STORAGE_KEY}:unreadable:`)));
  assert.equal(JSON.parse(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY)).exercises.lock.hintsUnlocked, 2);

  // Not even JSON: still a working page.
  await page.evaluate((key) => localStorage.setItem(key, '{"version":2,"quizzes":{'), STORAGE_KEY);
  await reloadLesson(page);
  assert.match(await notice.textContent(), /not valid JSON/);
  assert.equal(await page.locator(".quiz[data-ready]").count(), quizKeys.length);
  assert.deepEqual(problems, []);
});

test("progress saved by the first storage format is migrated without a word", async () => {
  const { page } = await openLesson(session);
  const version1 = { version: 1, read: ["01-why-ownership", "02-do-you-need-election"], drafts: { fencing: "// v1 draft\n" }, hints: { fencing: 1 }, passed: ["cas"], quizAnswers: { "quizzes/review.toml": { "cas-missing-key": { choice: [0], correct: true } } } };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, JSON.stringify(version1)]);
  await reloadLesson(page);
  assert.equal(await page.locator("#progress-notice").isVisible(), false);
  assert.equal(await page.locator('[data-progress="read"] .progress-figure').textContent(), `2 / ${lesson.sections.length}`);
  assert.equal(await page.locator('[data-progress="passed"] .progress-figure').textContent(), `1 / ${exerciseNames.length}`);
  assert.equal(await page.locator("#exercise-fencing .hint:visible").count(), 1);
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("fencing")), "// v1 draft\n");
  assert.equal(await page.locator('.toc-item[data-section="09-takeaways"] .toc-chip').textContent(), `Quiz 1/${lesson.quizzes["quizzes/review.toml"].questions.length} right, 1 of ${lesson.quizzes["quizzes/review.toml"].questions.length} answered`);
  assert.equal(JSON.parse(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY)).version, 2);
});

test("reset asks first, and only erases when confirmed", async () => {
  const { page } = await openLesson(session);
  const quiz = quizBlock(page, "quizzes/review.toml");
  await answerQuestion(quiz, lesson.quizzes["quizzes/review.toml"].questions[0], { right: true });
  await page.locator("#exercise-lease").getByRole("button", { name: "Show hint 1 of 3" }).click();
  const reset = page.getByRole("button", { name: "Reset progress…" });

  await reset.click();
  const dialog = page.getByRole("dialog", { name: "Erase all your progress?" });
  assert.equal(await dialog.isVisible(), true);
  await shot(page, "reset-dialog");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Keep my progress", "the safe choice has focus");
  await page.keyboard.press("Escape");
  assert.equal(await dialog.isVisible(), false);
  assert.equal(await page.locator("#exercise-lease .hint:visible").count(), 1, "Escape keeps everything");

  await reset.click();
  await dialog.getByRole("button", { name: "Erase everything" }).click();
  assert.equal(await page.locator("#exercise-lease .hint:visible").count(), 0);
  assert.equal(await quizCounter(quiz), `1 / ${lesson.quizzes["quizzes/review.toml"].questions.length}`);
  assert.equal(await page.locator('[data-progress="right"] .progress-figure').textContent(), `0 / ${totalQuestions}`);
  await reloadLesson(page);
  assert.equal(await page.locator("#exercise-lease .hint:visible").count(), 0, "and it stays erased");
});

test("the uptime estimator gives the lesson's figures for its presets", async () => {
  const { page, problems } = await openLesson(session);
  const widget = page.locator('[data-widget="uptime-estimator"]');
  await widget.scrollIntoViewIfNeeded();
  await page.locator('[data-widget="uptime-estimator"][data-ready="true"]').waitFor();
  const figure = widget.locator(".uptime-figure");
  const expectations = [
    ["Daily crash, 2 s restart", "99.998 %", "four nines"],
    ["Node dies daily, 5 min move", "99.653 %", "two nines"],
    ["Daily 2-minute rollout", "99.861 %", "two nines"],
    ["Hourly 2-minute rollouts", "96.667 %", "one nine"],
  ];
  for (const [preset, availability, nines] of expectations) {
    await widget.getByRole("button", { name: preset }).click();
    assert.equal(await figure.textContent(), availability, preset);
    assert.equal(squash(await widget.locator(".uptime-nines").textContent()), nines, preset);
    assert.equal(await widget.getByRole("button", { name: preset }).getAttribute("aria-pressed"), "true");
  }
  // The quiz's case: a daily crash plus a daily rollout.
  await widget.getByRole("button", { name: "Daily 2-minute rollout" }).click();
  await widget.getByRole("checkbox", { name: "Container crash, restarted" }).check();
  assert.equal(await figure.textContent(), "99.859 %");
  assert.match(await widget.locator(".uptime-arithmetic").textContent(), /1 − \(2 s \+ 2 min\) ÷ 86,400 s = 99\.859 %/);
  await widget.getByRole("textbox", { name: "Container crash, restarted happens" }).fill("soon");
  assert.match(await widget.locator(".uptime-error").first().textContent(), /Enter a number/);
  assert.equal(await widget.getByRole("textbox", { name: "Container crash, restarted happens" }).getAttribute("aria-invalid"), "true");
  await widget.getByRole("textbox", { name: "Container crash, restarted happens" }).fill("1");
  await widget.getByRole("button", { name: "Daily crash, 2 s restart" }).click();
  await shot(page, "uptime-estimator");
  assert.deepEqual(problems, []);
});

test("the CAS playground and the failover simulator run in their sections", async () => {
  const { page, problems } = await openLesson(session);
  const playground = page.locator('[data-widget="cas-playground"]');
  await playground.scrollIntoViewIfNeeded();
  await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  await playground.getByRole("button", { name: "Compare and swap" }).click();
  assert.match(await playground.getByRole("status").textContent(), /Swapped/);
  const failover = page.locator('[data-widget="failover-simulator"]');
  await failover.scrollIntoViewIfNeeded();
  await page.locator('[data-widget="failover-simulator"][data-ready="true"]').waitFor();
  assert.doesNotMatch(await failover.textContent(), /Loading the simulation/);
  assert.deepEqual(problems, []);
});

for (const colorScheme of ["light", "dark"]) {
  test(`no axe-core violations in the ${colorScheme} theme, with widgets, feedback, hints and a review on screen`, async () => {
    const { page, problems } = await openLesson(session, { colorScheme });
    const first = quizBlock(page, "quizzes/singleton-vs-election.toml");
    await answerQuestion(first, lesson.quizzes["quizzes/singleton-vs-election.toml"].questions[0], { right: false });
    const locks = quizBlock(page, "quizzes/locks-and-ttl.toml");
    for (const question of lesson.quizzes["quizzes/locks-and-ttl.toml"].questions) {
      await answerQuestion(locks, question, { right: question.multiple });
      await locks.locator('.quiz-live button[data-action="next"]').click();
    }
    await locks.getByRole("button", { name: "Review all answers" }).click();
    await page.locator("#exercise-lock").getByRole("button", { name: "Show hint 1 of 3" }).click();
    await readWholeLesson(page);
    await page.locator('[data-widget="uptime-estimator"][data-ready="true"]').waitFor();
    await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
    const violations = await axeViolations(page);
    await page.evaluate(() => scrollTo(0, 0));
    await shot(page, `top-${colorScheme}`);
    await first.scrollIntoViewIfNeeded();
    await shot(page, `quiz-feedback-${colorScheme}`);
    assert.deepEqual(violations, []);
    assert.deepEqual(problems, []);
  });
}

test("on a 375 px phone: no sideways scrolling, contents folded, everything reachable", async () => {
  const { page, problems } = await openLesson(session, { viewport: { width: 375, height: 800 } });
  assert.equal(await page.locator(".sidebar-details").getAttribute("open"), null, "contents and progress start folded");
  await shot(page, "phone-top");
  await readWholeLesson(page);
  await page.locator('[data-widget="uptime-estimator"][data-ready="true"]').waitFor();
  await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  const quiz = quizBlock(page, "quizzes/fencing-and-guarantees.toml");
  await answerQuestion(quiz, lesson.quizzes["quizzes/fencing-and-guarantees.toml"].questions[0], { right: false });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await quiz.scrollIntoViewIfNeeded();
  await shot(page, "phone-quiz");
  await page.locator('[data-widget="uptime-estimator"]').scrollIntoViewIfNeeded();
  await shot(page, "phone-uptime");
  assert.equal(overflow, 0);
  await page.locator(".sidebar-details summary").click();
  await page.locator('.toc a[href="#06-locks"]').click();
  assert.equal(await page.locator(".sidebar-details").getAttribute("open"), null, "following a link folds the contents again");
  assert.deepEqual(problems, []);
});

test("first load stays light: no wasm until a widget needs it, well under 250 KB gzip", async () => {
  const context = await newContext(session.browser, { viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const transfers = await recordTransfers(page, async () => {
    await page.goto(session.url);
    await page.waitForSelector("html[data-lesson-ready]");
    await page.waitForLoadState("networkidle");
  });
  const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null);
  const ready = await page.evaluate(() => performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd);
  const total = transfers.reduce((sum, transfer) => sum + transfer.gzipBytes, 0);
  const report = {
    files: transfers.map((transfer) => ({ file: new URL(transfer.url).pathname, bytes: transfer.bytes, gzipBytes: transfer.gzipBytes })),
    totalGzipBytes: total,
    firstContentfulPaintMs: paint,
    domContentLoadedMs: ready,
  };
  writeFileSync(`${ARTIFACTS_DIR}/lesson-first-load.json`, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`first load: ${report.files.map((file) => `${file.file} ${file.gzipBytes} B`).join(", ")}; total ${total} B gzip; first paint ${paint?.toFixed(0)} ms`);
  assert.ok(!transfers.some((transfer) => transfer.url.endsWith(".wasm")), "no wasm on first load");
  assert.ok(total <= 250 * 1024, `first load is ${total} bytes gzip`);

  // The wasm arrives once the playground comes near.
  const later = await recordTransfers(page, async () => {
    await page.locator('[data-widget="cas-playground"]').scrollIntoViewIfNeeded();
    await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  });
  assert.ok(later.some((transfer) => transfer.url.endsWith(".wasm")));
  await context.close();
});

test("the standalone playground page still links back to the lesson", async () => {
  const { page } = await openPage(session.browser, `${session.url}playground.html`);
  await page.getByRole("link", { name: "Ownership Election" }).click();
  await page.waitForSelector("html[data-lesson-ready]");
  assert.equal(await page.locator("h1").textContent(), lesson.title);
});

test("the first screen says what the lesson holds: its sections, questions and exercises, and that progress stays in this browser", async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const { page, context } = await openLesson(session, { viewport });
    const glance = page.getByRole("list", { name: "What this lesson holds" });
    const box = await glance.boundingBox();
    assert.ok(box && box.y + box.height <= viewport.height, `on the first screen at ${viewport.width} px`);
    const questions = quizKeys.reduce((sum, key) => sum + lesson.quizzes[key].questions.length, 0);
    const text = squash(await glance.innerText());
    assert.match(text, new RegExp(`${lesson.sections.length} sections to read`));
    assert.match(text, new RegExp(`${questions} quiz questions`));
    assert.match(text, new RegExp(`${exerciseNames.length} hands-on exercises, graded in your browser`));
    assert.match(text, /saved in this browser/);
    await context.close();
  }
});
