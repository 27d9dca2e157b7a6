// Lab mode end to end: a real etcd (Debian's etcd-server) started for the
// test with CORS allowed, the lesson in Chromium, the lock exercise's
// solution run against it: both processes take, hold and release the lock.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBrowser, screenshot } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";

const ETCD = "/usr/bin/etcd";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

let etcd;
let dataDir;
let endpoint;
let session;

before(async () => {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  endpoint = `http://127.0.0.1:${clientPort}`;
  dataDir = mkdtempSync(join(tmpdir(), "leaselab-etcd-"));
  etcd = spawn(ETCD, [
    "--data-dir", dataDir,
    "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
    "--listen-peer-urls", `http://127.0.0.1:${peerPort}`, "--initial-advertise-peer-urls", `http://127.0.0.1:${peerPort}`,
    "--initial-cluster", `default=http://127.0.0.1:${peerPort}`,
    "--cors", "*",
  ], { stdio: "ignore" });
  etcd.once("error", (error) => assert.fail(`cannot start ${ETCD} (${error.message}); install Debian's etcd-server`));
  // Wait (bounded) until the gateway answers.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(`${endpoint}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: "cHJvYmU=" }) });
      if (response.ok) break;
    } catch {}
    if (attempt > 100) throw new Error(`etcd did not start on ${endpoint} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  session = await startBrowser();
});

after(async () => {
  await session?.close();
  etcd?.kill("SIGTERM");
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
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
  await exercise.scrollIntoViewIfNeeded();
  const lab = exercise.locator(".runner-lab");
  await lab.locator("summary").click();
  await lab.getByLabel("etcd endpoint").fill(endpoint);
  await lab.getByRole("button", { name: "Run on etcd" }).click();
  await lab.locator(".lab-status", { hasText: "Finished: every process is done" }).waitFor({ timeout: 30_000 });
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
