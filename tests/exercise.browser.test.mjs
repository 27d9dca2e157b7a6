// The exercises in real Chromium: the editor holds the starter; "Run tests"
// grades in a Web Worker; a failing test opens its timeline, which steps
// both ways; the solution passes; "copy link" reopens the same failing run;
// and the browser's report is byte for byte the one Node computes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startBrowser, axeViolations, screenshot, newContext } from "./support/browser.mjs";
import { openLesson, STORAGE_KEY } from "./support/lesson.mjs";
import { loadNodeEngines, loadNodeRegistry } from "../runner/node/engines.js";
import { WARM_UP } from "../web/src/runner/client.js";

// Every exercise the grader registers.
const registry = await loadNodeRegistry();
import { gradeSource } from "../runner/grade.js";

const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const read = (path) => readFileSync(new URL(path, LESSON), "utf8");

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

async function runTests(exercise) {
  await exercise.getByRole("button", { name: "Run tests" }).click();
  await exercise.locator(".runner-summary, .runner-problems").waitFor();
}

for (const name of registry.names) {
  test(`${name}: the starter fails with a timeline to step through; the solution passes`, async () => {
    const { page, problems } = await openLesson(session);
    const exercise = page.locator(`#exercise-${name}`);
    // The runner, not the exercise: a long README leaves the runner below the page's preload margin.
    await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
    await exercise.locator(".cm-editor").waitFor();
    assert.equal((await exercise.locator(".cm-content").innerText()).trim().split("\n")[0], read(`${name}/starter.js`).split("\n")[0]);

    await runTests(exercise);
    assert.match(await exercise.locator(".runner-summary").innerText(), /^(\d+) of (\d+) tests passed/);
    assert.ok((await exercise.locator(".runner-test.is-failed").count()) > 0, "the starter fails some test");
    await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
    const story = exercise.locator(".runner-story");
    await story.locator("svg.timeline-svg").waitFor();
    assert.ok((await story.locator(".story-violation").innerText()).length > 20);
    const stepText = () => story.locator(".story-step").innerText();
    const atViolation = await stepText();
    assert.match(atViolation, /the rule breaks here/);
    if (await story.getByRole("button", { name: "◀ Previous" }).isEnabled()) {
      await story.getByRole("button", { name: "◀ Previous" }).click();
      assert.notEqual(await stepText(), atViolation);
      await story.getByRole("button", { name: "Next ▶" }).click();
      assert.equal(await stepText(), atViolation);
    }
    await screenshot(page, `exercise-${name}-failing-timeline`);

    // Paste the solution in as a draft and reload: the editor comes back with it, and it passes.
    await page.evaluate(({ exercise, code }) => {
      window.leaselab.progress.setDraft(exercise, code);
      window.leaselab.progress.flush();
    }, { exercise: name, code: read(`${name}/solution.js`) });
    await page.reload();
    const again = page.locator(`#exercise-${name}`);
    await again.locator(".exercise-runner").scrollIntoViewIfNeeded();
    await again.locator(".cm-editor").waitFor();
    assert.match(await again.locator(".cm-content").innerText(), /Reference solution/);
    await runTests(again);
    assert.match(await again.locator(".runner-summary").innerText(), /^(\d+) of \1 tests passed/);
    assert.match(await again.locator(".exercise-status").innerText(), /Passed/);
    await screenshot(page, `exercise-${name}-passed`);
    assert.deepEqual(problems, []);
  });
}

test("the grading workers start when the learner starts editing, not when an exercise comes near, and warm up on the starter unseen; the first run then grades as usual", async () => {
  const { page, context, problems } = await openLesson(session);
  // With an exercise near, the page downloads the grader's module (grader-loading.browser.test.mjs); the workers wait.
  const workerStarts = [];
  context.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/grader-worker.js")) workerStarts.push(request.url());
  });
  const exercise = page.locator("#exercise-cas");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  await page.waitForFunction(() => performance.getEntriesByName("leaselab:grader-ready").length > 0);
  assert.deepEqual(workerStarts, [], "reading the lesson, with an editor on screen, starts no grading worker");

  // The focus in the editor: the workers start and load their engines now, before any "Run tests".
  const loading = context.waitForEvent("requestfinished", { predicate: (request) => new URL(request.url()).pathname.endsWith("/grader-worker.js"), timeout: 60_000 });
  await exercise.locator(".cm-content").click();
  await loading;
  // Then the workers grade the starter a few times at a tiny budget, to warm up; none of it reaches the page.
  // (warmUp() answers with a promise; each poll asks again and reads the last answer.)
  await page.waitForFunction(() => {
    window.leaselab.warmUp().then((state) => (window.warmUpSeen = state));
    return ["done", "stopped"].includes(window.warmUpSeen?.state);
  });
  const warmUp = await page.evaluate(() => window.leaselab.warmUp());
  assert.deepEqual(warmUp, { state: "done", gradings: WARM_UP.gradings }, "every warm-up grading ran, with no learner request in the way");
  assert.equal(await exercise.locator(".runner-summary, .runner-problems, .runner-test").count(), 0, "nothing graded shows");
  assert.equal(await exercise.locator(".runner-status").innerText(), "", "nor does any progress");

  await runTests(exercise);
  assert.match(await exercise.locator(".runner-summary").innerText(), /^(\d+) of (\d+) tests passed/);
  assert.ok((await exercise.locator(".runner-test.is-failed").count()) > 0, "the starter fails some test, as without the early loading");
  assert.deepEqual(problems, []);
  await context.close();
});

test("copy link reopens exactly the same failing run", async () => {
  const { page, context } = await openLesson(session);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, readFileSync(new URL("./fixtures/submissions/lock/unlock-without-version.js", import.meta.url), "utf8"));
  await page.reload();
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await runTests(exercise);
  const failing = exercise.locator(".runner-test.is-failed", { hasText: "the TTL unlock bug" });
  await failing.getByRole("button", { name: "Show the failing run" }).click();
  const violation = await exercise.locator(".story-violation").innerText();
  const steps = await exercise.locator(".story-position").innerText();
  await exercise.getByRole("button", { name: "Copy link" }).click();
  await exercise.locator(".copy-note", { hasText: /Link copied|Copy this link/ }).waitFor();
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#replay=lock~/);

  const fresh = await newContext(session.browser);
  const other = await fresh.newPage();
  await other.goto(link);
  const reopened = other.locator("#exercise-lock .runner-story");
  await reopened.locator("svg.timeline-svg").waitFor();
  assert.equal(await reopened.locator(".story-violation").innerText(), violation);
  assert.equal(await reopened.locator(".story-position").innerText(), steps);
  await screenshot(other, `exercise-linked-run`);
  await fresh.close();

  // The link stays in the address bar; the learner goes on working, and reloads. Before, the editor then held
  // the link's older code, and the next keystroke saved it over the newer work.
  const newer = `// newer work, after the link was copied\n${readFileSync(new URL("./fixtures/submissions/lock/unlock-without-version.js", import.meta.url), "utf8")}`;
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, newer);
  await page.reload();
  await exercise.locator(".runner-story svg.timeline-svg").waitFor();
  assert.equal(await exercise.locator(".story-violation").innerText(), violation, "the linked run is shown");
  assert.match(await exercise.locator(".cm-content").innerText(), /newer work, after the link was copied/, "the editor keeps the learner's newer draft");
  assert.equal(await page.evaluate(() => window.leaselab.progress.getDraft("lock")), newer);
  // The linked code is a confirmed click away.
  page.once("dialog", (dialog) => dialog.accept());
  await exercise.getByRole("button", { name: "Put the linked code in the editor" }).click();
  await page.waitForFunction(() => !window.leaselab.progress.getDraft("lock").includes("newer work"));
  assert.doesNotMatch(await exercise.locator(".cm-content").innerText(), /newer work/);
});

test("the browser grades byte for byte like Node, for every exercise", async () => {
  const engines = await loadNodeEngines();
  const { page } = await openLesson(session);
  for (const exercise of registry.names) {
    for (const file of ["solution.js", "starter.js"]) {
      const source = read(`${exercise}/${file}`);
      const options = { seeds: 30, firstSeed: 7 };
      const inNode = await gradeSource(engines, { exercise, source, options });
      const inBrowser = await page.evaluate((request) => window.leaselab.grade(request), { exercise, source, options });
      assert.equal(JSON.stringify(inBrowser), JSON.stringify(inNode), `${exercise}/${file}`);
    }
  }
});

test("the exercise area has no axe violations with a failing run open", async () => {
  const { page } = await openLesson(session, { colorScheme: "dark" });
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await runTests(exercise);
  await exercise.getByRole("button", { name: "Show the failing run" }).first().click();
  await exercise.locator("svg.timeline-svg").waitFor();
  const violations = await axeViolations(page);
  await screenshot(page, `exercise-dark`);
  assert.deepEqual(violations, []);
});
