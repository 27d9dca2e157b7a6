// Shared set-up for browser tests: serve web/dist on a free port and drive
// Debian's Chromium through playwright-core (never a downloaded browser).
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serveStatic } from "../../web/serve.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const ARTIFACTS_DIR = `${ROOT}test-artifacts`;

/** Flags that keep Chromium quiet and offline on a machine with no network. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * The Chromium the tests drive: Debian's `chromium-headless-shell`, the same
 * Blink and V8 (the same source package and version) as `chromium`, without
 * the whole browser around them. Loading the lesson costs it less than half
 * the CPU (0.38 CPU-s against 0.95, BENCHMARKS.md, "The test suite's own
 * time"), and nearly every test opens a page; grading costs the same in both.
 * `LEASELAB_CHROMIUM=/usr/bin/chromium` runs the tests in the whole browser.
 */
export const TEST_CHROMIUM = process.env.LEASELAB_CHROMIUM || "/usr/bin/chromium-headless-shell";
/** The browser learners use: the benchmarks measure what they get (bench/browser.bench.mjs). */
export const LEARNER_CHROMIUM = "/usr/bin/chromium";

/**
 * The built page the tests serve: `web/dist`, or the folder named by
 * `LEASELAB_DIST` (to show that a new test fails on an older build).
 */
export const DIST_DIR = process.env.LEASELAB_DIST || `${ROOT}web/dist`;

/**
 * Starts the server and the browser; returns `{ url, browser, close }`.
 * By default it serves DIST_DIR at `/`; `root`, `base` (a sub-path such as
 * `/course/leaselab/`) and `types` (MIME types per extension, to play a host
 * that gets one wrong) go to web/serve.mjs's `serveStatic`; `executablePath`
 * is the Chromium to launch (`TEST_CHROMIUM` unless told).
 */
export async function startBrowser({ root = DIST_DIR, base = "/", types = {}, executablePath = TEST_CHROMIUM } = {}) {
  const { server, url } = await serveStatic({ root, base, types });
  let browser;
  try {
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  } catch (error) {
    // The server would keep the test file's process alive after its tests failed.
    await new Promise((resolve) => server.close(resolve));
    if (!existsSync(executablePath)) {
      throw new Error(`there is no Chromium at ${executablePath}: \`cargo xtask setup\` installs Debian's (\`npm test\` does it first), or set LEASELAB_CHROMIUM to another`);
    }
    throw error;
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return {
    url,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * How long a test waits for a state (an element, a verdict on screen) before
 * it gives up. Only a broken page nears it: on a busy 2-core machine a
 * grading that takes 2 s alone can take 30 s, and a test waits for what it
 * needs to see, never for time, so the bound is generous and the same
 * everywhere (playwright's own default is 30 s).
 */
export const STATE_TIMEOUT_MS = stateTimeoutMs(process.env.LEASELAB_STATE_TIMEOUT_MS);

/**
 * `LEASELAB_STATE_TIMEOUT_MS` shortens the bound, for runs that are meant to
 * fail: showing that a new test fails on an older build (`LEASELAB_DIST`)
 * would otherwise wait the whole bound at each missing state.
 */
function stateTimeoutMs(text) {
  if (text === undefined || text === "") return 5 * 60_000;
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`LEASELAB_STATE_TIMEOUT_MS must be a whole number of milliseconds, got ${JSON.stringify(text)}`);
  return ms;
}

/**
 * A fresh browser context (empty storage) with reduced motion, whose waits
 * use `STATE_TIMEOUT_MS`. Reduced motion: the page then skips its
 * transitions, so what a test sees does not depend on how far an animation
 * got on a busy machine (screenshots also pass `animations: "disabled"`,
 * see `screenshot`).
 */
export async function newContext(browser, options = {}) {
  const context = await browser.newContext({ reducedMotion: "reduce", ...options });
  context.setDefaultTimeout(STATE_TIMEOUT_MS);
  return context;
}

/**
 * A new page (in a fresh context: empty storage) that collects uncaught page
 * errors and console errors in `problems`. `javaScriptEnabled: false` shows
 * the page as a browser without scripts would; `acceptDownloads` lets a test
 * read what the page downloads.
 */
export async function openPage(browser, url, { colorScheme = "light", viewport = { width: 1280, height: 900 }, javaScriptEnabled = true, acceptDownloads = false } = {}) {
  const context = await newContext(browser, { colorScheme, viewport, javaScriptEnabled, acceptDownloads });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  await page.goto(url);
  return { page, context, problems };
}

/** Runs axe-core on the page; returns its violations (empty is the goal). */
export async function axeViolations(page) {
  await page.addScriptTag({ path: `${ROOT}node_modules/axe-core/axe.min.js` });
  const results = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations.map((violation) => ({
    id: violation.id,
    help: violation.help,
    nodes: violation.nodes.map((node) => node.target.join(" ")),
  }));
}

/**
 * A screenshot that never waits for motion to stop: CSS animations and
 * transitions are finished at once (playwright's `animations: "disabled"`)
 * and the caret is hidden. `target` is a page or a locator.
 *
 * A locator is shot as a clip of the viewport, not with `locator.screenshot`:
 * for an element taller than the viewport (the failover simulator on a
 * phone), that one waited for the element to be "stable" and timed out every
 * time here, loaded or not, while a clip of what is on screen takes tens of
 * milliseconds. The element's top is scrolled into view, and the clip is as
 * much of it as the viewport shows. A test waits for the state it shows
 * before it shoots, never for frames or time.
 */
export async function screenshot(target, name, options = {}) {
  const shot = { path: `${ARTIFACTS_DIR}/${name}.png`, animations: "disabled", caret: "hide", ...options };
  if (typeof target.boundingBox !== "function") return target.screenshot(shot);
  const clip = await target.evaluate((element) => {
    const before = element.getBoundingClientRect();
    if (before.top < 0 || before.bottom > innerHeight) element.scrollIntoView({ block: "start" });
    const box = element.getBoundingClientRect();
    const top = Math.max(0, box.top);
    const left = Math.max(0, box.left);
    return { x: left, y: top, width: Math.max(1, Math.min(box.right, innerWidth) - left), height: Math.max(1, Math.min(box.bottom, innerHeight) - top) };
  });
  return target.page().screenshot({ ...shot, clip });
}
