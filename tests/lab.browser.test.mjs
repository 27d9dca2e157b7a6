// Lab mode end to end: a real etcd (Debian's etcd-server) started for the
// test with CORS allowed, the lesson in Chromium, the lock exercise's
// solution run against it: both processes take, hold and release the lock.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startBrowser, screenshot } from "./support/browser.mjs";
import { startEtcd } from "./support/etcd.mjs";
import { openLesson } from "./support/lesson.mjs";

let etcd;
let endpoint;
let session;

before(async () => {
  etcd = await startEtcd();
  endpoint = etcd.endpoint;
  session = await startBrowser();
});

after(async () => {
  await session?.close();
  etcd?.stop();
});

test("lab mode: the lock solution takes, holds and releases a real etcd lock, in real time", async () => {
  const { page, problems } = await openLesson(session);
  await page.evaluate((code) => {
    window.leaselab.progress.setDraft("lock", code);
    window.leaselab.progress.flush();
  }, readFileSync(new URL("../exercises/ownership-election/lock/solution.js", import.meta.url), "utf8"));
  await page.reload();
  await page.waitForSelector("html[data-lesson-ready]");
  const exercise = page.locator("#exercise-lock");
  // The runner, not the exercise: a long README leaves the runner below the page's preload margin.
  await exercise.locator(".exercise-runner").scrollIntoViewIfNeeded();
  const lab = exercise.locator(".runner-lab");
  await lab.locator("summary").click();
  await lab.getByLabel("etcd endpoint").fill(endpoint);
  await lab.getByRole("button", { name: "Run on etcd" }).click();
  await lab.locator(".lab-status", { hasText: "Finished: every process is done" }).waitFor();
  const log = await lab.locator(".lab-log").innerText();
  const first = /p1 now believes it holds "locks\/bar" \(version (\d+)\)/.exec(log);
  const second = /p2 now believes it holds "locks\/bar" \(version (\d+)\)/.exec(log);
  assert.ok(first && second, log);
  assert.ok(Number(second[1]) > Number(first[1]), "the second holder's version is newer");
  assert.match(log, new RegExp(`p1 unlock\\(version ${first[1]}\\) returned true`));
  assert.match(log, new RegExp(`p2 unlock\\(version ${second[1]}\\) returned true`));
  assert.match(log, /p2 calls watch\("locks\/bar", \d+\)/, "p2 waited by watching, on etcd");
  await screenshot(page, `lab-mode-lock`);
  // The store agrees: the lock key is gone.
  const range = await (await fetch(`${endpoint}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: btoa("locks/bar") }) })).json();
  assert.equal(range.kvs, undefined);
  assert.deepEqual(problems, []);
});
