// The CAS playground in real Chromium, on the real wasm store.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startBrowser, openPage, axeViolations, screenshot } from "./support/browser.mjs";

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

async function openPlayground(options) {
  const opened = await openPage(session.browser, `${session.url}playground.html`, options);
  await opened.page.locator('[data-widget="cas-playground"][data-ready="true"]').waitFor();
  return opened;
}

const outcome = (page) => page.getByRole("status").textContent();
const rowCells = (page, key) => page.locator(`tr[data-key="${key}"] td`).allTextContents();

test("create, conflict, versioned CAS and TTL expiry on the wasm store", async () => {
  const { page, problems } = await openPlayground();
  const casButton = page.getByRole("button", { name: "Compare and swap" });

  await page.getByLabel("Key", { exact: true }).fill("locks/leader");
  await page.getByLabel("New value").fill("p1");
  await page.getByLabel("absent (create it)").check();
  await page.getByLabel("TTL in ms (optional)").fill("3000");
  await casButton.click();
  assert.match(await outcome(page), /Swapped: "locks\/leader" is now "p1" at version 2\./);
  assert.deepEqual((await rowCells(page, "locks/leader")).slice(0, 4), ["p1", "2", "1", " 3 s left"]);

  // Creating again fails: the key exists now.
  await page.getByLabel("New value").fill("p2");
  await casButton.click();
  assert.match(await outcome(page), /No change: expected absent, but "locks\/leader" holds "p1" at version 2\./);

  // Take the key over by expecting its current value and version.
  await page.getByRole("button", { name: "Expect locks/leader as it is now" }).click();
  assert.equal(await page.getByLabel("Expected version (optional)").inputValue(), "2");
  await casButton.click();
  assert.match(await outcome(page), /is now "p2" at version 3\./);

  // The old version is stale even though a value matches.
  await page.getByLabel("Expected value").fill("p2");
  await page.getByLabel("Expected version (optional)").fill("2");
  await casButton.click();
  assert.match(await outcome(page), /No change: expected value = "p2", version = 2/);

  // Let the TTL run out: the expiry is one write.
  await page.getByRole("button", { name: "+1 s" }).click();
  await page.getByRole("button", { name: "+1 s" }).click();
  assert.equal(await page.locator(".revision").textContent(), "3");
  await screenshot(page, `cas-playground-before-expiry`, { fullPage: true });
  await page.getByRole("button", { name: "+1 s" }).click();
  assert.match(await outcome(page), /"locks\/leader" expired at 3000 ms/);
  assert.equal(await page.locator(".revision").textContent(), "4");
  assert.equal(await page.locator(".now").textContent(), "3 s");
  assert.equal(await page.locator('tr[data-key="locks/leader"]').count(), 0);

  // After expiry, a create wins again, with a version never used before.
  await page.getByLabel("absent (create it)").check();
  await page.getByLabel("New value").fill("p3");
  await casButton.click();
  assert.match(await outcome(page), /is now "p3" at version 5\./);
  assert.deepEqual((await rowCells(page, "locks/leader")).slice(0, 3), ["p3", "5", "1"]);
  assert.deepEqual(problems, []);
});

test("bad input is named beside its field and nothing is sent", async () => {
  const { page, problems } = await openPlayground();
  await page.getByLabel("TTL in ms (optional)").fill("soon");
  await page.getByRole("button", { name: "Compare and swap" }).click();
  const ttl = page.getByLabel("TTL in ms (optional)");
  assert.equal(await ttl.getAttribute("aria-invalid"), "true");
  assert.equal(await page.evaluate(() => document.activeElement.name), "ttlMs");
  assert.match(await page.locator("#cas1-ttlMs-error").textContent(), /whole number/);
  assert.equal(await page.locator(".revision").textContent(), "1");
  // The store's own refusals (e.g. a huge TTL) come back as messages too.
  await ttl.fill("999999999999");
  await page.getByRole("button", { name: "Compare and swap" }).click();
  assert.match(await outcome(page), /out of range; use a whole number of milliseconds from 1 to 86400000/);
  assert.deepEqual(problems, []);
});

test("the running clock expires a key without further clicks", async () => {
  const { page } = await openPlayground();
  await page.getByLabel("TTL in ms (optional)").fill("300");
  await page.getByRole("button", { name: "Compare and swap" }).click();
  await page.getByRole("button", { name: "Run clock" }).click();
  await page.locator("li.tone-expire").first().waitFor();
  await page.getByRole("button", { name: "Pause clock" }).click();
  assert.equal(await page.locator('tr[data-key="locks/leader"]').count(), 0);
});

for (const colorScheme of ["light", "dark"]) {
  test(`no axe-core violations in the ${colorScheme} theme, with keys in the table`, async () => {
    const { page } = await openPlayground({ colorScheme });
    await page.getByRole("button", { name: "Compare and swap" }).click();
    const violations = await axeViolations(page);
    await screenshot(page, `cas-playground-${colorScheme}`, { fullPage: true });
    assert.deepEqual(violations, []);
  });
}

test("usable on a 375 px phone: no horizontal scrolling of the page", async () => {
  const { page } = await openPlayground({ viewport: { width: 375, height: 800 } });
  await page.getByRole("button", { name: "Compare and swap" }).click();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await screenshot(page, `cas-playground-phone`, { fullPage: true });
  assert.equal(overflow, 0);
});
