// The class report (`leaselab grade … --report class.html`) as course staff
// read it: opened in Debian's Chromium with nothing else served and every
// other request refused, it shows each exercise's score histogram, the
// rules broken most with who broke them, and each rule's example story and
// replay token folded under it; it passes axe-core in both themes, and its
// JSON twin holds the same numbers.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { axeViolations, openPage, screenshot, startBrowser } from "./support/browser.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LESSON = join(ROOT, "exercises/ownership-election");
const registry = await loadNodeRegistry();

function leaselab(args) {
  return new Promise((resolve) => {
    execFile("node", [join(ROOT, "cli/leaselab.mjs"), ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ status: error ? error.code : 0, stdout, stderr }));
  });
}

// A small class: full marks, all starters, one who skipped an exercise, and one whose name is markup.
const dir = mkdtempSync(join(tmpdir(), "leaselab-class-"));
const learners = {
  ada: () => "solution",
  ben: () => "starter",
  cy: (name) => (name === "fencing" ? null : name === "lock" ? "starter" : "solution"),
  "<i>dee": (name) => (name === "lease" ? "starter" : "solution"),
};
for (const [learner, pick] of Object.entries(learners)) {
  mkdirSync(join(dir, "class", learner), { recursive: true });
  for (const { name, file } of registry.exercises) {
    const which = pick(name);
    if (which) copyFileSync(join(LESSON, name, `${which}.js`), join(dir, "class", learner, file));
  }
}
mkdirSync(join(dir, "report"));
const folders = Object.keys(learners).map((learner) => join(dir, "class", learner));
const graded = await leaselab(["grade", ...folders, "--seeds", "5", "--report", join(dir, "report/class.html")]);
assert.equal(graded.status, 1, graded.stderr);
const json = await leaselab(["grade", ...folders, "--seeds", "5", "--report", join(dir, "report/class.json")]);
assert.equal(json.status, 1, json.stderr);
const data = JSON.parse(readFileSync(join(dir, "report/class.json"), "utf8"));

const { browser, url, close } = await startBrowser({ root: join(dir, "report") });
after(close);

test("the class report reads offline: one file, no request for anything else, no script", async () => {
  const { page, context, problems } = await openPage(browser, "about:blank", { javaScriptEnabled: false });
  const requests = [];
  await context.route("**/*", (route) => {
    requests.push(route.request().url());
    return route.request().url() === `${url}class.html` ? route.continue() : route.abort();
  });
  await page.goto(`${url}class.html`);
  await page.getByRole("heading", { name: "leaselab class report" }).waitFor();
  assert.deepEqual(requests, [`${url}class.html`]);
  assert.equal(await page.locator("script").count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("each exercise's histogram counts every learner, and the totals agree with the JSON", async () => {
  const { page, context } = await openPage(browser, `${url}class.html`);
  // The total's histogram and one per exercise, each an image with a name.
  const charts = page.getByRole("img");
  assert.equal(await charts.count(), registry.exercises.length + 1);
  for (const exercise of data.exercises) {
    const chart = page.getByRole("img", { name: new RegExp(`^${exercise.name}: how many learners scored each number of points, out of ${exercise.maxScore}$`) });
    await chart.waitFor();
    const counts = await chart.locator("text.count").allTextContents();
    const graded = exercise.graded;
    assert.equal(counts.reduce((sum, count) => sum + Number(count), 0), graded, exercise.name);
    assert.equal(graded + exercise.missing, Object.keys(learners).length);
  }
  // cy skipped fencing: the card says so.
  await page.locator("section", { has: page.locator("#ex-fencing") }).getByText("file missing 1").waitFor();
  await screenshot(page, "class-report");
  await context.close();
});

test("the rules broken most: learners, a statement, and an example story with its replay token", async () => {
  const { page, context } = await openPage(browser, `${url}class.html`);
  const rows = page.locator("table.rules tbody tr");
  assert.equal(await rows.count(), data.rules.length);
  assert.ok(data.rules.length > 3);
  // Sorted by how many learners broke each.
  const counts = data.rules.map((rule) => rule.learnerCount);
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
  const first = data.rules.find((rule) => rule.example?.replayToken);
  const row = rows.nth(data.rules.indexOf(first));
  await row.getByText(first.rule, { exact: true }).waitFor();
  for (const learner of first.learners) assert.ok((await row.locator("td.learners").textContent()).includes(learner), learner);
  const story = row.locator("pre.story");
  assert.equal(await story.isVisible(), false, "the story is folded until asked for");
  await row.locator("summary").click();
  await story.waitFor({ state: "visible" });
  assert.match(await story.textContent(), /^violated: /);
  assert.match(await row.locator(".token code").textContent(), new RegExp(`^leaselab replay ${first.example.replayToken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `));
  // The missing file is a rule of its own, with who lacks it.
  const missing = data.rules.find((rule) => rule.rule === "missing-file");
  assert.deepEqual(missing.learners, ["cy"]);
  // A learner's name is text, never markup.
  assert.equal(await page.locator("i", { hasText: "dee" }).count(), 0);
  await page.getByRole("rowheader", { name: "<i>dee" }).waitFor();
  await context.close();
});

test("the class report passes axe-core in the light and the dark theme", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context } = await openPage(browser, `${url}class.html`, { colorScheme });
    assert.deepEqual(await axeViolations(page), [], colorScheme);
    await context.close();
  }
});
