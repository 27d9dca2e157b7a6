// Shared set-up for browser tests: serve web/dist on a free port and drive
// Debian's Chromium through playwright-core (never a downloaded browser).
import { mkdirSync } from "node:fs";
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
 * The built page the tests serve: `web/dist`, or the folder named by
 * `LEASELAB_DIST` (to show that a new test fails on an older build).
 */
export const DIST_DIR = process.env.LEASELAB_DIST || `${ROOT}web/dist`;

/** Starts the server and the browser; returns `{ url, browser, close }`. */
export async function startBrowser() {
  const { server, url } = await serveStatic({ root: DIST_DIR });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
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
 * A new page (in a fresh context: empty storage) that collects uncaught page
 * errors and console errors in `problems`. `javaScriptEnabled: false` shows
 * the page as a browser without scripts would; `acceptDownloads` lets a test
 * read what the page downloads.
 */
export async function openPage(browser, url, { colorScheme = "light", viewport = { width: 1280, height: 900 }, javaScriptEnabled = true, acceptDownloads = false } = {}) {
  // Reduced motion: the page then skips its transitions, so what a test sees does not depend on how far an
  // animation got on a busy machine (screenshots also pass `animations: "disabled"`, see `screenshot`).
  const context = await browser.newContext({ colorScheme, viewport, javaScriptEnabled, acceptDownloads, reducedMotion: "reduce" });
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
 * A screenshot that never waits for an animation to settle: CSS animations
 * and transitions are finished at once (playwright's `animations:
 * "disabled"`), and the caret is hidden. `target` is a page or a locator.
 */
export function screenshot(target, name, options = {}) {
  return target.screenshot({ path: `${ARTIFACTS_DIR}/${name}.png`, animations: "disabled", caret: "hide", ...options });
}
