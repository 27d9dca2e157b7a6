// How the grader reaches a learner's browser, in real Chromium: its wasm is
// downloaded once per page load (not once per grading worker), when an
// exercise comes near, compressed, and not again on a reload; "Run tests"
// says what it waits for ("Downloading the grader: 0.4 of 0.9 MB"); and when
// the network fails, the page says so plainly and carries on by itself when
// the connection returns.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { DIST_DIR, startBrowser } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";

/** The packed grader's name (web/build/grader-wasm.mjs), and the plain module a worker once fetched. */
const GRADER = /\/leaselab_bg(\.[0-9a-f]{16}\.wasm\.gz|\.wasm)$/;
const isGrader = (url) => GRADER.test(new URL(url).pathname);

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

/** Records what crosses the network for the grader: `{ requests, bytes }`, as Chromium counts the bodies received. */
function watchGrader(context) {
  const seen = { requests: 0, bytes: 0, finished: [] };
  context.on("requestfinished", (request) => {
    if (!isGrader(request.url())) return;
    seen.finished.push(
      request.sizes().then(({ responseBodySize }) => {
        // -1: from the browser's cache, nothing crossed the network.
        if (responseBodySize > 0) {
          seen.requests += 1;
          seen.bytes += responseBodySize;
        }
      }),
    );
  });
  return seen;
}

/** Claims 4 cores, as a laptop does: 4 grading workers. */
async function fourCores(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setHardwareConcurrencyOverride", { hardwareConcurrency: 4 });
  return cdp;
}

async function runTests(exercise) {
  await exercise.getByRole("button", { name: "Run tests" }).click();
  await exercise.locator(".runner-summary, .runner-problems").waitFor();
}

test("the grader's wasm crosses the network once per page load, compressed, when an exercise comes near, with 4 grading workers; a reload downloads none of it", async () => {
  const { page, context, problems } = await openLesson(session, { viewport: { width: 1280, height: 800 } });
  const grader = watchGrader(context);
  await fourCores(context, page);
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  assert.equal(await page.evaluate(() => navigator.hardwareConcurrency), 4);
  await Promise.all(grader.finished);
  assert.equal(grader.requests, 0, "reading the top of the lesson downloads no grader");

  // The exercise comes near: the download starts, before any click.
  const downloaded = context.waitForEvent("requestfinished", { predicate: (request) => isGrader(request.url()) });
  const lock = page.locator("#exercise-lock");
  await lock.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await downloaded;
  await runTests(lock);
  const cas = page.locator("#exercise-cas");
  await cas.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await runTests(cas);
  await Promise.all(grader.finished);
  assert.equal(grader.requests, 1, "one download for four workers and two exercises");
  assert.ok(grader.bytes < 1_200_000, `compressed on the wire: ${grader.bytes} bytes (the module itself is about 2.9 MB)`);

  // A reload: the browser has it already (content-hashed names are immutable), so nothing crosses the network.
  const before = grader.bytes;
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  await lock.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await runTests(lock);
  await Promise.all(grader.finished);
  assert.equal(grader.bytes, before, "a reload downloads none of the grader");
  assert.deepEqual(problems, []);
  await context.close();
});

test("while the grader downloads, Run tests says how far it got (\"Downloading the grader: 0.4 of 0.9 MB\"), then the tests run", async () => {
  const { page, context, problems } = await openLesson(session);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  // A slow link, so the download is seen under way.
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: 100_000, uploadThroughput: 100_000 });
  const exercise = page.locator("#exercise-cas");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  await exercise.getByRole("button", { name: "Run tests" }).click();
  const status = exercise.locator(".runner-status");
  await status.filter({ hasText: /^Downloading the grader: \d\.\d of 0\.9 MB$/ }).waitFor();
  const shown = await status.innerText();
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await exercise.locator(".runner-summary").waitFor();
  assert.match(shown, /^Downloading the grader: 0\.\d of 0\.9 MB$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("when the grader's download fails, Run tests says the network is the problem, in plain words, and the tests run by themselves once it is back", async () => {
  const { page, context, problems } = await openLesson(session);
  // The lesson's server stops answering for the grader only: the page cannot tell it from a network that failed.
  const refuse = (route) => route.abort("internetdisconnected");
  await context.route(GRADER, refuse);
  const exercise = page.locator("#exercise-cas");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  await exercise.locator(".cm-editor").waitFor();
  await exercise.getByRole("button", { name: "Run tests" }).click();
  const status = exercise.locator(".runner-status");
  await status.filter({ hasText: /^Waiting for the network/ }).waitFor();
  assert.equal(
    await status.innerText(),
    "Waiting for the network: the grader could not be downloaded (the connection to the lesson's server failed). The tests start by themselves when the connection returns.",
  );
  await context.unroute(GRADER, refuse);
  // The page tries again by itself (after a pause, or at once when the browser says it is online again).
  await exercise.locator(".runner-summary").waitFor();
  assert.match(await exercise.locator(".runner-summary").innerText(), /^\d+ of \d+ tests passed/);
  // The browser reports each refused request as a console error; nothing else may go wrong.
  assert.deepEqual(problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED/.test(problem)), []);
  await context.close();
});

test("offline, an exercise's editor and the grader wait for the connection with a plain message, and come by themselves once the browser is online again", async () => {
  const { page, context, problems } = await openLesson(session);
  await context.setOffline(true);
  const exercise = page.locator("#exercise-lock");
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  const note = exercise.locator(".exercise-runner .widget-error");
  await note.waitFor();
  assert.equal(await note.innerText(), "The code editor could not be downloaded: the network seems to be down. It loads by itself when the connection returns; meanwhile, here is the starter code.");
  assert.doesNotMatch(await exercise.innerText(), /Failed to fetch|dynamically imported module/, "no raw error shown");
  assert.equal(await exercise.locator(".exercise-runner pre.code").count(), 1, "the starter is still on show");

  await context.setOffline(false);
  await exercise.locator(".cm-editor").waitFor();
  assert.equal(await note.count(), 0, "the message goes once the editor is in");
  await runTests(exercise);
  assert.match(await exercise.locator(".runner-summary").innerText(), /^\d+ of \d+ tests passed/);
  assert.deepEqual(problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch dynamically imported module/.test(problem)), []);
  await context.close();
});

test("a host that sends the packed grader marked gzip-encoded (so the browser unpacks it, not the page) still grades", async () => {
  // What some servers do with a .gz file: send its bytes as they are, marked Content-Encoding: gzip.
  const packed = readdirSync(DIST_DIR).find((name) => GRADER.test(`/${name}`));
  const host = createServer((request, response) => {
    const bytes = readFileSync(join(DIST_DIR, packed));
    response.writeHead(200, { "content-type": "application/gzip", "content-encoding": "gzip", "content-length": bytes.length }).end(bytes);
  });
  await new Promise((resolve) => host.listen(0, "127.0.0.1", resolve));
  try {
    const { page, context, problems } = await openLesson(session);
    await context.route(GRADER, (route) => route.continue({ url: `http://127.0.0.1:${host.address().port}/${packed}` }));
    const exercise = page.locator("#exercise-cas");
    await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
    await runTests(exercise);
    assert.match(await exercise.locator(".runner-summary").innerText(), /^\d+ of \d+ tests passed/);
    const sizes = await page.evaluate(() => performance.getEntriesByType("resource").filter((entry) => /leaselab_bg\./.test(entry.name)).map((entry) => entry.decodedBodySize));
    assert.ok(sizes[0] > 2_000_000, `the browser unpacked it (${sizes[0]} bytes), and the page compiled it as it was`);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await new Promise((resolve) => host.close(resolve));
  }
});
