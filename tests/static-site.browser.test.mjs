// The lesson as a static site (`cargo xtask site` → dist/site), the way a
// course deploys it: under a sub-path of someone else's host. The page, its
// chunks, its worker and its wasm must all resolve under that path; a widget
// must load its wasm; an exercise must be graded in the page; and a host that
// serves .wasm under the wrong MIME type must still work.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openPage, startBrowser } from "./support/browser.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The site `cargo xtask site` writes, or the folder named by `LEASELAB_SITE` (to show a test failing on an older build). */
const SITE_DIR = process.env.LEASELAB_SITE || `${ROOT}dist/site`;
const BASE = "/course/leaselab/";
const SOLUTION = readFileSync(`${ROOT}exercises/ownership-election/cas/solution.js`, "utf8");

// `cargo xtask test` writes the site before the node tests; run alone, this test builds it once.
if (!existsSync(`${SITE_DIR}/index.html`)) {
  try {
    execFileSync("cargo", ["xtask", "site"], { cwd: ROOT, stdio: "inherit" });
  } catch (error) {
    throw new Error(`dist/site is missing and \`cargo xtask site\` could not build it (${error.message}); run it yourself to see why`);
  }
}

/**
 * Opens the site and records every response and failed request, so a test
 * can say that nothing was missing and nothing was asked for outside the
 * site's own path. `warnings` collects console warnings too: wasm-bindgen's
 * loader warns when it falls back from a wrong MIME type.
 */
async function openSite(session, path = "") {
  const opened = await openPage(session.browser, "about:blank");
  const { page } = opened;
  const responses = [];
  const failed = [];
  const warnings = [];
  // Listened to on the context, which also sees the Web Worker's own fetches (the grader's wasm).
  opened.context.on("response", (response) => responses.push({ url: response.url(), status: response.status() }));
  opened.context.on("requestfailed", (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on("console", (message) => {
    if (message.type() === "warning") warnings.push(message.text());
  });
  await page.goto(`${session.url}${path}`);
  await page.waitForSelector("html[data-lesson-ready]");
  return { ...opened, responses, failed, warnings };
}

/** Scrolls to the CAS playground and waits until it runs on the wasm store. */
async function casPlaygroundRuns(page) {
  const widget = page.locator('[data-widget="cas-playground"]');
  await widget.scrollIntoViewIfNeeded();
  await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  await widget.getByLabel("Key", { exact: true }).fill("locks/leader");
  await widget.getByLabel("New value").fill("p1");
  await widget.getByLabel("absent (create it)").check();
  await widget.getByRole("button", { name: "Compare and swap" }).click();
  assert.match(await widget.getByRole("status").textContent(), /Swapped: "locks\/leader" is now "p1"/);
}

/** Types the reference solution into the cas exercise's editor, presses "Run tests" and waits for the verdict. */
async function solutionPasses(page) {
  const exercise = page.locator("#exercise-cas");
  // The runner, not the exercise: a long README leaves the runner below the page's preload margin.
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  await exercise.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(SOLUTION);
  await exercise.getByRole("button", { name: "Run tests" }).click();
  // Whatever the run ends in (a summary, problems with the code, the grader failing to start), its text is the verdict.
  const ended = exercise.locator(".runner-summary, .runner-problems, .runner-error");
  await ended.first().waitFor({ timeout: 60_000 });
  assert.match(await ended.first().innerText(), /^(\d+) of \1 tests passed/);
  assert.match(await exercise.locator(".exercise-status").innerText(), /Passed/);
}

const wasmFetched = (responses, name) => responses.some((response) => response.url.endsWith(`/${name}`) && response.status === 200);
/** The grader's module, packed under a content-hashed name (web/build/grader-wasm.mjs). */
const graderFetched = (responses) => responses.some((response) => /\/leaselab_bg\.[0-9a-f]{16}\.wasm\.gz$/.test(response.url) && response.status === 200);

let session;
after(async () => {
  await session?.close();
});

test(`served under ${BASE}: every file resolves there, a widget and the grader load their wasm, the solution passes`, async () => {
  session = await startBrowser({ root: SITE_DIR, base: BASE });
  assert.ok(session.url.endsWith(BASE), session.url);
  const { page, problems, responses, failed } = await openSite(session);
  await casPlaygroundRuns(page);
  await solutionPasses(page);

  // Every link, stylesheet, script and icon in the page resolves inside the site and exists.
  const linked = await page.evaluate(() => [...document.querySelectorAll("a[href], link[href], script[src]")]
    .map((element) => element.href || element.src)
    .filter((url) => !new URL(url).hash || new URL(url).pathname !== location.pathname));
  for (const url of linked) {
    assert.ok(url.startsWith(session.url), `${url} is outside the site's path ${session.url}`);
    assert.equal((await fetch(url)).status, 200, url);
  }

  assert.ok(wasmFetched(responses, "leaselab_store_bg.wasm"), "the playground's store wasm was fetched");
  assert.ok(graderFetched(responses), "the grader's wasm (its engine, QuickJS inside) was fetched");
  const origin = new URL(session.url).origin;
  const outside = responses.filter((response) => response.url.startsWith(origin) && !response.url.startsWith(session.url));
  assert.deepEqual(outside, [], "nothing is asked for outside the site's path");
  assert.deepEqual(responses.filter((response) => response.status >= 400), [], "no missing file");
  assert.deepEqual(failed, []);
  assert.deepEqual(problems, []);

  // The site's other page works there too, and links back to the lesson.
  await page.goto(`${session.url}playground.html`);
  await page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  assert.equal(await page.locator(".brand-lesson").evaluate((link) => link.href), session.url);
  assert.deepEqual(problems, []);
  await session.close();
  session = null;
});

test("a host that serves .wasm as application/octet-stream: the widget and the grader still load, without a warning", async () => {
  session = await startBrowser({ root: SITE_DIR, base: BASE, types: { ".wasm": "application/octet-stream" } });
  const { page, problems, responses, warnings } = await openSite(session);
  await casPlaygroundRuns(page);
  await solutionPasses(page);
  assert.ok(wasmFetched(responses, "leaselab_store_bg.wasm") && graderFetched(responses));
  assert.deepEqual(problems, []);
  assert.deepEqual(warnings.filter((text) => /wasm|MIME/i.test(text)), []);
  await session.close();
  session = null;
});
