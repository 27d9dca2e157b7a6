// The failover simulator in real Chromium, in its place in the lesson, on
// the real simulation (the grader's wasm module): freeze the leader and see
// the lease move, bring it back and see it follow; replay the lesson's
// diagram step by step from the keyboard; a phone-sized screen; axe-core in
// both themes. Screenshots go to test-artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startBrowser, screenshot } from "./support/browser.mjs";
import { openLesson } from "./support/lesson.mjs";

let session;
before(async () => {
  session = await startBrowser();
});
after(async () => {
  await session?.close();
});

const WIDGET = '[data-widget="failover-simulator"]';

/** Scrolls to the simulator and waits until it runs. */
async function openSimulator(options = {}) {
  const opened = await openLesson(session, options);
  await opened.page.locator("#widget-failover-simulator").scrollIntoViewIfNeeded();
  await opened.page.locator(`${WIDGET}[data-ready="true"]`).waitFor();
  return { ...opened, widget: opened.page.locator(WIDGET) };
}

const leaderText = (widget) => widget.locator(".failover-leader").textContent();
const replicaStatus = (widget, replica) => widget.locator(`.failover-replica.replica-${replica}`).getAttribute("data-status");
const logText = (widget) => widget.locator(".failover-log").textContent();

/** axe-core on the simulator's part of the page. */
async function axeOnSimulator(page) {
  if (!(await page.evaluate(() => Boolean(globalThis.axe)))) await page.addScriptTag({ path: new URL("../node_modules/axe-core/axe.min.js", import.meta.url).pathname });
  const results = await page.evaluate(() => globalThis.axe.run({ include: [["#widget-failover-simulator"]] }, { resultTypes: ["violations"] }));
  return results.violations.map((violation) => ({ id: violation.id, help: violation.help, nodes: violation.nodes.map((node) => node.target.join(" ")) }));
}

test("the simulation loads only when the simulator comes near, saying so meanwhile, and never the grader's module", async () => {
  const { page, problems } = await openLesson(session);
  const wasmRequests = [];
  const graderRequests = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/leaselab_failover_bg.wasm")) wasmRequests.push(request.url());
    if (/\/leaselab_bg\.([0-9a-f]{16}\.wasm\.gz|wasm)$/.test(request.url())) graderRequests.push(request.url());
  });
  assert.equal(await page.locator(`${WIDGET} .widget-loading`).textContent(), "Loading the simulation…");
  // A state, not a time: nothing more is loading, and the simulation is not among what loaded.
  await page.waitForLoadState("networkidle");
  assert.deepEqual(wasmRequests, [], "the page's top does not load the simulation");
  await page.locator("#widget-failover-simulator").scrollIntoViewIfNeeded();
  await page.locator(`${WIDGET}[data-ready="true"]`).waitFor();
  assert.ok(wasmRequests.length >= 1);
  assert.deepEqual(graderRequests, [], "the simulator runs on its own small module, not the grader's (QuickJS inside)");
  assert.deepEqual(problems, []);
});

test("freeze the leader: the lease moves; bring it back: it returns as a follower", async () => {
  const { page, widget, problems } = await openSimulator();
  // The clock is driven by "+1 s", not by real time: what happens depends on the simulation's state, never on
  // how fast a busy machine draws frames (the real-time clock is the lesson's, not the test's).
  // The tests' browsers prefer reduced motion (support/browser.mjs), so the clock waits for the learner.
  assert.equal(await widget.getByRole("button", { name: "Run clock" }).count(), 1, "with reduced motion the clock does not start by itself");
  const step = widget.getByRole("button", { name: "+1 s" });
  /** Presses "+1 s" until `holds()` or `secondsMax` presses; fails with `what` if it never holds. */
  const stepUntil = async (holds, secondsMax, what) => {
    for (let second = 0; second < secondsMax && !(await holds()); second += 1) await step.click();
    assert.ok(await holds(), `${what} within ${secondsMax} s of simulated time`);
  };
  await stepUntil(async () => (await leaderText(widget)) === "Replica 1 leads", 5, "replica 1 leads");
  await widget.getByRole("button", { name: "Freeze replica 1" }).click();
  assert.equal(await replicaStatus(widget, 1), "frozen");
  assert.match(await widget.locator(".failover-detail").textContent(), /Replica 1 is frozen, but the store still holds its lease/);
  // A TTL (3 s) and a few round trips.
  await stepUntil(async () => /^Replica [23] leads$/.test(await leaderText(widget)), 5, "another replica leads");
  const newLeader = Number((await leaderText(widget)).match(/Replica (\d)/)[1]);
  assert.equal(await widget.getByRole("status").textContent(), `Replica ${newLeader} leads.`, "announced politely");
  assert.match(await logText(widget), new RegExp(`replica ${newLeader} took over after replica 1's lease expired`));
  await screenshot(widget, "failover-simulator-taken-over");

  await widget.getByRole("button", { name: "Bring back replica 1" }).click();
  await stepUntil(async () => (await replicaStatus(widget, 1)) === "campaigning" || /replica 1 found replica \d holding the lease/.test(await logText(widget)), 5, "replica 1 campaigns");
  await stepUntil(async () => /replica 1 found replica \d holding the lease and follows it/.test(await logText(widget)), 5, "replica 1 follows");
  assert.match(await logText(widget), /replica 1 stepped down: by its own clock, its lease could have run out/);
  assert.equal(await leaderText(widget), `Replica ${newLeader} leads`, "the returning replica does not take over");
  assert.match(await widget.locator(".failover-replica.replica-1 .failover-replica-detail").textContent(), new RegExp(`Follower: watches the key, held by replica ${newLeader}`));
  // The timeline shows the first lease, the freeze and the second lease.
  const timeline = widget.locator(".failover-timeline svg");
  assert.equal(await timeline.locator(".failover-hold.replica-1").count(), 1);
  assert.equal(await timeline.locator(`.failover-hold.replica-${newLeader}`).count(), 1);
  assert.equal(await timeline.locator(".failover-frozen").count(), 1);
  await screenshot(widget, "failover-simulator-returned");

  const stats = await widget.evaluate((element) => element.failoverStats);
  assert.ok(stats.runs >= 3, "every action and the moving clock ran the simulation again");
  assert.deepEqual(problems, []);
});

test("the lesson's diagram, replayed step by step from the keyboard; crash; reset", async () => {
  const { page, widget, problems } = await openSimulator();
  const press = async (locator, key = "Enter") => {
    await locator.focus();
    await page.keyboard.press(key);
  };
  await press(widget.getByRole("button", { name: "Replay the diagram" }));
  assert.equal(await widget.getByRole("button", { name: "Replay the diagram" }).getAttribute("aria-pressed"), "true");
  await press(widget.getByRole("button", { name: "Pause clock" }));
  assert.equal(await widget.getByRole("button", { name: "Run clock" }).count(), 1);
  const step = widget.getByRole("button", { name: "+1 s" });
  const stepTo = async (seconds) => {
    await step.focus();
    while (Number((await widget.locator(".failover-clock").textContent()).match(/t = ([\d.]+) s/)[1]) < seconds) await page.keyboard.press("Enter");
  };
  await stepTo(3);
  assert.equal(await leaderText(widget), "Replica 1 leads");
  await stepTo(5);
  assert.equal(await replicaStatus(widget, 1), "frozen");
  assert.equal(await leaderText(widget), "No replica leads");
  await stepTo(7);
  assert.equal(await leaderText(widget), "Replica 3 leads", "as in the diagram, replica 3 takes over");
  await stepTo(11);
  assert.equal(await replicaStatus(widget, 1), "campaigning");
  assert.equal(await leaderText(widget), "Replica 3 leads");
  assert.match(await logText(widget), /replica 1 came back after 6\.0 s/);
  await screenshot(widget, "failover-simulator-diagram");

  // Crash the leader from the keyboard; the crashed replica's buttons stay focusable but do nothing.
  const crash3 = widget.getByRole("button", { name: "Crash replica 3" });
  await press(crash3);
  assert.equal(await replicaStatus(widget, 3), "crashed");
  assert.equal(await crash3.getAttribute("aria-disabled"), "true");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Crash replica 3", "focus stays put");
  await press(widget.getByRole("button", { name: "Freeze replica 3" }));
  assert.equal(await replicaStatus(widget, 3), "crashed");
  await stepTo(18);
  assert.match(await leaderText(widget), /^Replica [12] leads$/);

  // The speed is a radio group: arrow keys move it.
  await widget.getByLabel("1×").focus();
  await page.keyboard.press("ArrowRight");
  assert.equal(await widget.getByLabel("2×").isChecked(), true);

  await press(widget.getByRole("button", { name: "Reset" }));
  assert.equal(await widget.locator(".failover-clock").textContent(), "t = 0.0 s");
  assert.equal(await widget.locator(".failover-replica[data-status='crashed']").count(), 0);
  assert.deepEqual(problems, []);
});

test("on a 375 px phone everything fits and still works", async () => {
  const { page, widget, problems } = await openSimulator({ viewport: { width: 375, height: 812 } });
  await widget.getByRole("button", { name: "Replay the diagram" }).click();
  await widget.getByRole("button", { name: "Pause clock" }).click();
  for (let second = 0; second < 11; second += 1) await widget.getByRole("button", { name: "+1 s" }).click();
  assert.equal(await leaderText(widget), "Replica 3 leads");
  assert.equal(await replicaStatus(widget, 1), "campaigning");
  const overflow = await widget.evaluate((element) => element.scrollWidth - element.clientWidth);
  assert.ok(overflow <= 0, `the simulator is ${overflow} px wider than its box`);
  const pageOverflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(pageOverflow <= 0, `the page scrolls sideways by ${pageOverflow} px`);
  const [fromMs, toMs] = (await widget.locator(".failover-timeline").getAttribute("data-range")).split("-").map(Number);
  assert.equal(toMs - fromMs, 10_000, "a 10 s window on a phone");
  await screenshot(page.locator("#widget-failover-simulator"), "failover-simulator-phone");
  assert.deepEqual(problems, []);
});

for (const colorScheme of ["light", "dark"]) {
  test(`no axe-core violations in the simulator, ${colorScheme} theme, with a freeze, a crash and a new leader on screen`, async () => {
    const { page, widget, problems } = await openSimulator({ colorScheme });
    await widget.getByRole("button", { name: "Replay the diagram" }).click();
    await widget.getByRole("button", { name: "Pause clock" }).click();
    for (let second = 0; second < 8; second += 1) await widget.getByRole("button", { name: "+1 s" }).click();
    await widget.getByRole("button", { name: "Crash replica 2" }).click();
    assert.equal(await leaderText(widget), "Replica 3 leads");
    assert.deepEqual(await axeOnSimulator(page), []);
    await screenshot(widget, `failover-simulator-${colorScheme}`);
    assert.deepEqual(problems, []);
  });
}
