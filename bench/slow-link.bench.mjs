// The learner's first verdict on a slow link: a fresh browser (cold cache)
// opens the lesson at an exercise over a 1.6 Mbit/s link with a 150 ms round
// trip, reporting 4 cores, scrolls to the exercise's runner, presses "Run
// tests" as soon as it can, and waits for the first test's verdict. Then it
// reloads and does the same again, with the browser's cache as the first
// visit left it. Chromium's DevTools protocol plays the link
// (Network.emulateNetworkConditions, which also holds the workers' requests)
// and the cores (Emulation.setHardwareConcurrencyOverride).
//
// Two servers: `npm start`'s (web/serve.mjs, serving web/dist) and a plain
// static server (Debian's nginx with the README's two lines, `gzip on;` and
// its `gzip_types`, and nothing else) serving the static site (dist/site). Prints, per exercise and
// server: seconds from navigation to the first verdict, and the grader's
// bytes and all bytes that crossed the network, cold and on the reload.
//
//   node bench/slow-link.bench.mjs                      (web/dist, dist/site, web/serve.mjs)
//   node bench/slow-link.bench.mjs --dist D --site S --serve F --exercises cas,lock --python
//
// `--dist`, `--site` and `--serve` measure another build (an older one, for
// the figures before a change); `--no-nginx` skips the plain server;
// `--python` adds Python's http.server, a host that compresses nothing.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { LEARNER_CHROMIUM } from "../tests/support/browser.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The link: 1.6 Mbit/s down, 0.75 Mbit/s up, 150 ms round trip (DevTools' "Fast 3G" is 1.44 Mbit/s, 150 ms). */
export const SLOW_LINK = Object.freeze({ offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 });
const CORES = 4;
/** What the grader's wasm is called, whatever the build names it (a hashed, compressed name or not). */
const GRADER_WASM = /\/leaselab_bg[.-][^/]*$|\/leaselab_bg\.wasm$/;

function parseArgs(argv) {
  const options = { dist: `${ROOT}web/dist`, site: `${ROOT}dist/site`, serve: `${ROOT}web/serve.mjs`, exercises: ["cas", "lock"], nginx: true, python: false };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === "--no-nginx") options.nginx = false;
    else if (flag === "--python") options.python = true;
    else if (flag === "--exercises") options.exercises = argv[++i].split(",");
    else if (["--dist", "--site", "--serve"].includes(flag)) options[flag.slice(2)] = resolve(argv[++i]);
    else throw new Error(`unknown option ${flag}; see the comment at the top of bench/slow-link.bench.mjs`);
  }
  return options;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Debian's nginx on `root`, with its packaged defaults; resolves to `{ url, stop }`. */
async function startNginx(root) {
  const port = await freePort();
  const prefix = mkdtempSync(join(tmpdir(), "leaselab-nginx-"));
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  access_log off;
  client_body_temp_path ${prefix};
  proxy_temp_path ${prefix};
  fastcgi_temp_path ${prefix};
  uwsgi_temp_path ${prefix};
  scgi_temp_path ${prefix};
  gzip on;
  gzip_types text/css application/javascript application/json image/svg+xml application/wasm;
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  const child = spawn("/usr/sbin/nginx", ["-c", conf, "-p", prefix], { stdio: ["ignore", "inherit", "inherit"] });
  // Ready once it answers.
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.ok, () => false);
    if (up) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    stop() {
      child.kill("SIGTERM");
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** Python's `http.server` on `root`: a host that compresses nothing (it sends Last-Modified). */
async function startPython(root) {
  const port = await freePort();
  const child = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root], { stdio: "ignore" });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then((response) => response.ok, () => false);
    if (up) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill("SIGTERM") };
}

/**
 * One visit in `context`: opens `url` at the exercise (or reloads `page`),
 * presses "Run tests" once it can, and resolves to the seconds from
 * navigation to the first verdict, with the bytes that crossed the network.
 */
async function visit(context, page, url, exercise, requests) {
  requests.length = 0;
  if (page.url() === "about:blank") await page.goto(`${url}#exercise-${exercise}`);
  else {
    // What the first visit was still loading (a widget's module) is in the cache before the reload (a page that never idles is reloaded after 30 s).
    await page.waitForLoadState("networkidle", { timeout: 30_000 }).catch(() => {});
    requests.length = 0;
    await page.reload();
  }
  await page.waitForSelector("html[data-lesson-ready]");
  const runner = page.locator(`#exercise-${exercise} .exercise-runner`);
  await runner.scrollIntoViewIfNeeded();
  const run = runner.getByRole("button", { name: "Run tests" });
  await runner.locator(".cm-editor").waitFor();
  const clickedS = (await page.evaluate(() => performance.now())) / 1000;
  await run.click();
  const verdictS = await page.evaluate(
    (name) =>
      new Promise((resolveVerdict) => {
        const results = document.querySelector(`#exercise-${name} .runner-results`);
        const seen = () => results.querySelector(".runner-test.is-passed, .runner-test.is-failed, .runner-problems, .runner-error");
        if (seen()) resolveVerdict(performance.now() / 1000);
        const observer = new MutationObserver(() => {
          if (!seen()) return;
          observer.disconnect();
          resolveVerdict(performance.now() / 1000);
        });
        observer.observe(results, { childList: true, subtree: true, attributes: true });
      }),
    exercise,
  );
  await runner.locator(".runner-summary, .runner-problems, .runner-error").waitFor({ timeout: 600_000 });
  const error = await runner.locator(".runner-error").count();
  // When the page started the grader's download and had it compiled (marks the page sets; none in older builds).
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((mark) => [mark.name, mark.startTime / 1000])));
  // Every request's body as it crossed the network (compressed, or 0 for a 304 or the cache).
  const sizes = await Promise.all(requests.map(async (request) => ({ url: request.url(), bytes: (await request.sizes()).responseBodySize })));
  // A response from the browser's cache reports -1: nothing crossed the network.
  const crossed = sizes.filter((one) => one.bytes > 0);
  const grader = crossed.filter((one) => GRADER_WASM.test(new URL(one.url).pathname));
  const graderBytes = grader.reduce((sum, one) => sum + one.bytes, 0);
  const allBytes = crossed.reduce((sum, one) => sum + one.bytes, 0);
  return { verdictS, clickedS, graderBytes, graderRequests: grader.length, allBytes, error: error > 0, downloadS: marks["leaselab:grader-download"] ?? null, readyS: marks["leaselab:grader-ready"] ?? null };
}

async function measure(browser, label, url, exercise) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: "reduce" });
  context.setDefaultTimeout(600_000);
  const requests = [];
  context.on("requestfinished", (request) => requests.push(request));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", SLOW_LINK);
  await cdp.send("Emulation.setHardwareConcurrencyOverride", { hardwareConcurrency: CORES });
  console.error(`(${label}, ${exercise}: cold…)`);
  const cold = await visit(context, page, url, exercise, requests);
  console.error(`(${label}, ${exercise}: reload…)`);
  const reload = await visit(context, page, url, exercise, requests);
  await context.close();
  const mb = (bytes) => (bytes / 1e6).toFixed(2);
  const line = (name, one) =>
    `${name}: first verdict ${one.verdictS.toFixed(1)} s (Run tests pressed at ${one.clickedS.toFixed(1)} s${one.readyS === null ? "" : `, grader from ${one.downloadS.toFixed(1)} to ${one.readyS.toFixed(1)} s`}); grader ${mb(one.graderBytes)} MB in ${one.graderRequests} request${one.graderRequests === 1 ? "" : "s"}, all ${mb(one.allBytes)} MB${one.error ? "  GRADER ERROR SHOWN" : ""}`;
  console.log(`  ${label.padEnd(28)} ${exercise.padEnd(6)} ${line("cold", cold)}`);
  console.log(`  ${"".padEnd(28)} ${"".padEnd(6)} ${line("reload", reload)}`);
}

const options = parseArgs(process.argv.slice(2));
const { serveStatic } = await import(pathToFileURL(options.serve).href);
const npmStart = await serveStatic({ root: options.dist });
const nginx = options.nginx && existsSync(options.site) ? await startNginx(options.site) : null;
const python = options.python && existsSync(options.site) ? await startPython(options.site) : null;
if (options.nginx && !nginx) console.log(`(no ${options.site}: \`cargo xtask site\` writes it; the plain server is skipped)`);
// Stopped early (Ctrl-C), the servers go too.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    nginx?.stop();
    python?.stop();
    process.exit(130);
  });
}
const browser = await chromium.launch({ executablePath: LEARNER_CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"] });
try {
  console.log(`first verdict on a ${SLOW_LINK.downloadThroughput * 8 / 1e6} Mbit/s, ${SLOW_LINK.latency} ms link, hardwareConcurrency ${CORES}, 1280×800, cold cache then a reload (seconds from navigation)`);
  for (const exercise of options.exercises) {
    await measure(browser, "npm start (web/serve.mjs)", npmStart.url, exercise);
    if (nginx) await measure(browser, "dist/site behind nginx", nginx.url, exercise);
    if (python) await measure(browser, "dist/site, python http.server", python.url, exercise);
  }
} finally {
  await browser.close();
  npmStart.server.close();
  nginx?.stop();
  python?.stop();
}
