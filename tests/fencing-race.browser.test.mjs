// The fencing race (section 08's widget) in real Chromium, in its place in
// the lesson, on the real race (the store wasm module): the lesson's three
// scenarios with each worker, operated from the keyboard; stepping through a
// run; loading only when it comes near; a 375 px phone; axe-core in both
// themes. Screenshots (animations disabled) go to test-artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { startBrowser, ARTIFACTS_DIR } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

const WIDGET = '[data-widget="fencing-race"]';
const FRAME = "#widget-fencing-race";

/**
 * A window tall enough to hold the whole widget: Playwright's element
 * screenshots wait forever for "stable" on this page when the element is
 * taller than the window.
 */
const TALL = { width: 1280, height: 2400 };

/** Scrolls to the widget and waits until it has drawn its first run. */
async function openRace(options = {}) {
  const opened = await openLesson(session, { viewport: TALL, ...options });
  await opened.page.locator(FRAME).scrollIntoViewIfNeeded();
  await opened.page.locator(`${WIDGET}[data-ready="true"] .fr-svg`).waitFor();
  return { ...opened, widget: opened.page.locator(WIDGET) };
}

const verdictTitle = (widget) => widget.locator(".fr-verdict-title").textContent();
/** A request's row status; null while it is not listed (not sent yet at the cursor). */
const rowStatus = (widget, id) => widget.evaluate((element, request) => element.querySelector(`.fr-requests tr[data-request="${request}"]`)?.dataset.status ?? null, id);
const shot = (locator, name) => locator.screenshot({ path: `${ARTIFACTS_DIR}/${name}.png`, animations: "disabled" });

/** Waits until the verdict's title is `title` (every choice reruns the race at once, but the DOM updates after the event). */
async function waitForVerdict(page, title) {
  await page.waitForFunction((expected) => document.querySelector(".fr-verdict-title")?.textContent === expected, title);
}

/** Presses `key` on `locator` (focused first), as a keyboard user would. */
async function press(page, locator, key = "Enter") {
  await locator.focus();
  await page.keyboard.press(key);
}

/** axe-core on the page with the widget on it. */
async function axeOnWidget(page) {
  // The whole page: landmark names must be unique across widgets, too.
  if (!(await page.evaluate(() => Boolean(globalThis.axe)))) await page.addScriptTag({ path: new URL("../node_modules/axe-core/axe.min.js", import.meta.url).pathname });
  const results = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations.map((violation) => ({ id: violation.id, help: violation.help, nodes: violation.nodes.map((node) => node.target.join(" ")) }));
}

/** The bundle's chunk that holds the widget's code (its file name is hashed). */
function widgetChunk() {
  const dist = new URL("../web/dist/", import.meta.url);
  const names = readdirSync(dist).filter((name) => name.endsWith(".js") && readFileSync(new URL(name, dist), "utf8").includes("fr-verdict-title"));
  assert.equal(names.length, 1, `one chunk holds the widget's view: ${names}`);
  return names[0];
}

test("the widget's code and the store module load only when it comes near, saying so meanwhile", async () => {
  const chunk = widgetChunk();
  const { page, problems } = await openLesson(session);
  const requested = [];
  page.on("request", (request) => requested.push(new URL(request.url()).pathname.slice(1)));
  assert.equal(await page.locator(`${WIDGET} .widget-loading`).textContent(), "Loading the race…");
  await page.waitForLoadState("networkidle");
  assert.ok(!requested.includes(chunk), "the page's top does not load the widget's code");
  assert.ok(!requested.includes("leaselab_store_bg.wasm"), "nor the store module");
  const heightOf = () => page.locator(WIDGET).evaluate((element) => element.getBoundingClientRect().height);
  const reserved = await heightOf();
  await page.locator(FRAME).scrollIntoViewIfNeeded();
  await page.locator(`${WIDGET}[data-ready="true"] .fr-svg`).waitFor();
  const mounted = await heightOf();
  assert.ok(Math.abs(mounted - reserved) <= 40, `the page reserves the widget's height (${reserved} px reserved, ${mounted} px mounted), so the text below does not jump`);
  assert.ok(requested.includes(chunk));
  assert.ok(requested.includes("leaselab_store_bg.wasm"));
  assert.ok(!requested.some((name) => /^leaselab_bg\./.test(name)), "the race needs only the small store module, not the grader's");
  assert.equal(await verdictTitle(page.locator(WIDGET)), "Only the lease holder's requests were applied");
  assert.deepEqual(problems, []);
});

test("a paused old leader, from the keyboard: the trusting worker applies A's stale write after B's, the others stop it", async () => {
  const { page, widget, problems } = await openRace();
  const preset = widget.getByRole("button", { name: "A paused old leader" });
  await press(page, preset);
  assert.equal(await preset.getAttribute("aria-pressed"), "true");
  await waitForVerdict(page, "Two leaders' requests were both applied");
  assert.equal(await widget.getByLabel("Trusts the caller").isChecked(), true);
  assert.equal(await rowStatus(widget, "A3"), "double");
  assert.match(await widget.locator(".fr-verdict-detail").textContent(), /^A3 from A's earlier tenure landed at t=[\d.]+ s, after B1 from B had landed/);
  assert.equal(await widget.locator(".fr-announcer").textContent(), "Two leaders' requests were both applied.", "announced politely");
  assert.equal(await widget.locator(".fr-announcer").getAttribute("aria-live"), "polite");
  assert.match(await widget.locator(".fr-log").textContent(), /A3: applied at t=[\d.]+ s, after B's B1: both leaders' requests applied\./);
  assert.equal(await widget.locator('.fr-svg .fr-outcome[data-request="A3"]').getAttribute("data-outcome"), "double");
  await shot(widget, "fencing-race-paused-trusts");

  // The worker is a radio group: the arrow keys move through the four designs.
  await press(page, widget.getByLabel("Trusts the caller"), "ArrowDown");
  assert.equal(await widget.getByLabel("Asks the store").isChecked(), true);
  await waitForVerdict(page, "Only the lease holder's requests were applied");
  assert.equal(await rowStatus(widget, "A3"), "rejected");
  assert.match(await widget.locator('.fr-requests tr[data-request="A3"]').textContent(), /Rejected by the worker at t=[\d.]+ s: when it asked, the lock is B's at version \d+, not A's at version \d+\./);
  assert.equal(await preset.getAttribute("aria-pressed"), "false", "a choice by hand ends the preset");
  for (const [label, status] of [
    ["Atomic check-and-write", "refusedByStore"],
    ["Keeps the highest token", "refusedByData"],
  ]) {
    await page.keyboard.press("ArrowDown");
    assert.equal(await widget.getByLabel(label).isChecked(), true);
    await page.waitForFunction((expected) => document.querySelector('.fr-requests tr[data-request="A3"]')?.dataset.status === expected, status);
    assert.equal(await verdictTitle(widget), "Only the lease holder's requests were applied");
  }
  assert.equal(await widget.locator(".fr-svg text", { hasText: "data (store)" }).count(), 0, "the highest-token worker's data is not in the store");
  await shot(widget, "fencing-race-paused-highest");
  assert.deepEqual(problems, []);
});

test("a delayed request from an earlier tenure: the choices are the preset's, and only checking workers stop it", async () => {
  const { page, widget, problems } = await openRace();
  await widget.getByRole("button", { name: "A delayed request" }).click();
  await waitForVerdict(page, "Two leaders' requests were both applied");
  assert.equal(await widget.getByLabel("Request", { exact: true }).inputValue(), "2");
  assert.equal(await widget.getByLabel("on its way to the worker").isChecked(), true);
  assert.equal(await widget.locator(".fr-output").nth(1).textContent(), "3 s");
  assert.equal(await rowStatus(widget, "A2"), "double");
  await widget.getByLabel("Asks the store").check();
  await waitForVerdict(page, "Only the lease holder's requests were applied");
  assert.equal(await rowStatus(widget, "A2"), "rejected");
  await shot(widget, "fencing-race-delayed-asks");
  assert.deepEqual(problems, []);
});

test("the read-then-write gap defeats asking the store but not the atomic or the highest-token worker; step through it", async () => {
  const { page, widget, problems } = await openRace();
  await press(page, widget.getByRole("button", { name: "The read-then-write gap" }));
  await waitForVerdict(page, "Two leaders' requests were both applied");
  assert.equal(await widget.getByLabel("Asks the store").isChecked(), true);
  assert.equal(await rowStatus(widget, "A3"), "double");
  assert.match(await widget.locator('.fr-requests tr[data-request="A3"]').textContent(), /Double apply\. Applied at t=[\d.]+ s, after B's B1: both leaders' requests applied\./);
  await shot(widget, "fencing-race-gap-asks");

  // Step through the run from the start with "Next moment": the verdict turns when A3 lands, not before.
  await press(page, widget.getByRole("slider", { name: "Time" }), "Home");
  assert.equal(await widget.locator(".fr-clock").textContent(), "t = 0.00 s");
  assert.equal(await widget.locator(".fr-log li.empty").count(), 1);
  assert.equal(await widget.locator(".fr-requests tbody").textContent(), "No request sent yet.", "the table tells no more than the timeline");
  const next = widget.getByRole("button", { name: "Next moment" });
  await next.focus();
  const seen = [];
  const newestLines = [];
  while ((await rowStatus(widget, "A3")) !== "double") {
    await page.keyboard.press("Enter");
    seen.push(await verdictTitle(widget));
    newestLines.push(await widget.locator(".fr-log li").first().textContent());
    assert.ok(seen.length < 60, "A3 lands within the run");
  }
  assert.ok(newestLines.some((line) => /the worker asked the store about A3: the lock is A's at version \d+\./.test(line)), "on the way, the worker's read found A holding");
  assert.ok(seen.slice(0, -1).every((title) => title === "Only the lease holder's requests were applied"), seen.join(" / "));
  assert.equal(seen.at(-1), "Two leaders' requests were both applied");
  assert.ok(Number((await widget.locator(".fr-clock").textContent()).match(/t = ([\d.]+) s/)[1]) < 3, "A3 lands before 3 s");
  await shot(widget, "fencing-race-gap-stepped");
  await widget.getByRole("button", { name: "Show the whole run" }).click();

  for (const [label, status] of [
    ["Atomic check-and-write", "refusedByStore"],
    ["Keeps the highest token", "refusedByData"],
  ]) {
    await widget.getByLabel(label).check();
    await page.waitForFunction((expected) => document.querySelector('.fr-requests tr[data-request="A3"]')?.dataset.status === expected, status);
    assert.equal(await verdictTitle(widget), "Only the lease holder's requests were applied", label);
  }
  await widget.getByLabel("Atomic check-and-write").check();
  await page.waitForFunction(() => [...document.querySelectorAll(".fr-svg text")].some((text) => text.textContent === "data (store)"));
  await shot(widget, "fencing-race-gap-atomic");
  assert.deepEqual(problems, []);
});

test("choosing a pause by hand: the select and the slider, from the keyboard", async () => {
  const { page, widget, problems } = await openRace();
  await widget.getByLabel("Trusts the caller").check();
  const before = widget.getByLabel("Before its request");
  await before.selectOption("3");
  const slider = widget.getByLabel("For", { exact: true });
  await press(page, slider, "End");
  assert.equal(await widget.locator(".fr-output").first().textContent(), "3 s");
  await waitForVerdict(page, "Two leaders' requests were both applied");
  await press(page, slider, "Home");
  assert.equal(await widget.locator(".fr-output").first().textContent(), "50 ms");
  await waitForVerdict(page, "Only the lease holder's requests were applied");
  assert.equal(await widget.locator(".fr-svg .fr-paused").count(), 1);
  await widget.getByRole("button", { name: "Calm run" }).click();
  assert.equal(await before.inputValue(), "0");
  assert.equal(await widget.locator(".fr-svg .fr-paused").count(), 0);
  assert.deepEqual(problems, []);
});

test("on a 375 px phone everything fits and still works", async () => {
  const { page, widget, problems } = await openRace({ viewport: { width: 375, height: 3600 } });
  await widget.getByRole("button", { name: "The read-then-write gap" }).click();
  await waitForVerdict(page, "Two leaders' requests were both applied");
  const overflow = await widget.evaluate((element) => element.scrollWidth - element.clientWidth);
  assert.ok(overflow <= 0, `the widget is ${overflow} px wider than its box`);
  const pageOverflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(pageOverflow <= 0, `the page scrolls sideways by ${pageOverflow} px`);
  // The drawing keeps a readable scale and scrolls sideways in its own box, following the cursor.
  const timeline = widget.locator(".fr-timeline");
  const scroll = () => timeline.evaluate((box) => ({ scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, scrollLeft: box.scrollLeft }));
  const atEnd = await scroll();
  assert.ok(atEnd.scrollWidth > atEnd.clientWidth, "wider than a phone");
  assert.ok(atEnd.scrollLeft > 0, "showing the whole run, it is scrolled to the end");
  await widget.getByRole("slider", { name: "Time" }).focus();
  await page.keyboard.press("Home");
  assert.equal((await scroll()).scrollLeft, 0, "at t = 0 it shows the start");
  // Scrolled sideways, the lanes' names stay in view.
  await widget.getByRole("button", { name: "Show the whole run" }).click();
  const label = await widget.locator(".fr-timeline-labels text", { hasText: "worker" }).boundingBox();
  const box = await timeline.boundingBox();
  assert.ok(label.x >= box.x && label.x < box.x + 20, `the name "worker" stays at the left edge (${label.x} px, box at ${box.x} px)`);
  await widget.getByRole("button", { name: "Show the whole run" }).click();
  await shot(page.locator(FRAME), "fencing-race-phone");
  assert.deepEqual(problems, []);
});

for (const colorScheme of ["light", "dark"]) {
  test(`no axe-core violations in the widget, ${colorScheme} theme, with a double apply on screen`, async () => {
    const { page, widget, problems } = await openRace({ colorScheme });
    await widget.getByRole("button", { name: "A paused old leader" }).click();
    await waitForVerdict(page, "Two leaders' requests were both applied");
    assert.deepEqual(await axeOnWidget(page), []);
    await widget.getByLabel("Atomic check-and-write").check();
    await waitForVerdict(page, "Only the lease holder's requests were applied");
    assert.deepEqual(await axeOnWidget(page), []);
    await shot(widget, `fencing-race-${colorScheme}`);
    assert.deepEqual(problems, []);
  });
}

test("a fault's length and hop can be set only while that fault is chosen", async () => {
  const { widget, problems } = await openRace();
  const pauseFor = widget.getByLabel("For", { exact: true });
  const delayBy = widget.getByLabel("By", { exact: true });
  // The calm run: no pause, no delay, so nothing to set the length of.
  assert.equal(await pauseFor.isDisabled(), true, "no pause: its length waits");
  assert.equal(await delayBy.isDisabled(), true, "no delay: its length waits");
  assert.equal(await widget.getByLabel("on its way to the worker").isDisabled(), true, "and so does its hop");
  await widget.getByLabel("Before its request").selectOption("3");
  assert.equal(await pauseFor.isDisabled(), false);
  await widget.getByLabel("Request", { exact: true }).selectOption("2");
  assert.equal(await delayBy.isDisabled(), false);
  assert.equal(await widget.getByLabel("on its way to the worker").isDisabled(), false);
  assert.deepEqual(problems, []);
});

test("a scenario that changes the worker the learner chose says so", async () => {
  const { page, widget, problems } = await openRace();
  await widget.getByLabel("Atomic check-and-write").check();
  await widget.getByRole("button", { name: "A paused old leader" }).click();
  await waitForVerdict(page, "Two leaders' requests were both applied");
  assert.match(await widget.locator(".fr-preset-now").innerText(), /The scenario set the worker to “[^”]+” \(it was “[^”]+”\)\./);
  assert.deepEqual(problems, []);
});

test("the requests' names on the timeline never print over each other, in any scenario with any worker", async () => {
  const { page, widget, problems } = await openRace();
  const overlaps = [];
  for (const scenario of ["A paused old leader", "A delayed request", "The read-then-write gap"]) {
    await widget.getByRole("button", { name: scenario }).click();
    for (const worker of await widget.locator('.fr-worker-option input[type="radio"]').all()) {
      await worker.check();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const boxes = await widget.locator(".fr-svg .fr-mark-label").evaluateAll((labels) =>
        labels.map((label) => {
          const { x, y, width, height } = label.getBoundingClientRect();
          return { text: label.textContent, x, y, width, height };
        }),
      );
      for (const [at, a] of boxes.entries()) {
        for (const b of boxes.slice(at + 1)) {
          if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) overlaps.push(`${scenario}, ${await worker.getAttribute("value")}: ${a.text} over ${b.text}`);
        }
      }
    }
  }
  assert.deepEqual(overlaps, []);
  assert.deepEqual(problems, []);
});
