// The page's grading client (web/src/runner/client.js) against a stand-in
// Worker and a fake clock: which deadline each request gets, one request in
// a worker at a time, and what happens to the waiting requests when a
// worker is terminated at its deadline or dies. The real worker, the real
// stuck code and the page are in grading-deadline.browser.test.mjs; this
// covers the paths Chromium cannot be made to take on demand (a worker that
// dies, a worker that has not started by its deadline).
import { loadNodeRegistry } from "../runner/node/engines.js";
import { test, mock, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { DEADLINE_MS_MAX, deadlineMessage, gradingDeadlineMs } from "../runner/limits.js";

/** Every worker the client made, newest last. */
const workers = [];

class FakeWorker {
  constructor(url, options) {
    this.url = String(url);
    this.options = options;
    this.posted = [];
    this.listeners = new Map();
    this.terminated = false;
    workers.push(this);
  }
  addEventListener(type, listener) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  postMessage(message) {
    assert.equal(this.terminated, false, "nothing is posted to a terminated worker");
    // The grader's compiled module comes first, before any request; kept apart from the requests.
    if (message.type === "module") {
      assert.equal(this.posted.length, 0, "the module is the worker's first message");
      assert.ok(message.module instanceof WebAssembly.Module, "the module is sent compiled");
      this.module = message.module;
      return;
    }
    assert.ok(this.module, "a request goes only to a worker that has the grader's module");
    // Like structured cloning, which refuses functions.
    if (Object.values(message.options ?? {}).some((value) => typeof value === "function")) throw new TypeError("could not be cloned");
    this.posted.push(message);
  }
  terminate() {
    this.terminated = true;
  }
  /** The worker's side: an event as the page would receive it. */
  emit(type, event) {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
  answer(data) {
    this.emit("message", { data });
  }
  get last() {
    return this.posted.at(-1);
  }
}

globalThis.Worker = FakeWorker;

// The page names the grader's packed module in a <meta> (web/build/page.mjs); here a tiny valid module, gzipped, served by a stand-in fetch.
const TINY_WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const meta = { getAttribute: () => "leaselab_bg.0123456789abcdef.wasm.gz", dataset: { gzipBytes: "28", wasmBytes: "8" } };
globalThis.document = { baseURI: "http://lesson.test/course/", querySelector: (selector) => (selector === 'meta[name="leaselab-grader"]' ? meta : null) };
/** Each download the page asks for: `{ url, respond(response) }`; answered by the test. */
const downloads = [];
globalThis.fetch = (url) => new Promise((resolve, reject) => downloads.push({ url: String(url), resolve, reject }));
const gzipped = () => new Response(new Blob([gzipSync(TINY_WASM)]).stream());

const { DeadlineError, gradeInWorker, labInWorker, prepareGrading, replayInWorker, WARM_UP, warmUpState } = await import("../web/src/runner/client.js");
const { GraderNetworkError, graderModuleState } = await import("../web/src/runner/grader-module.js");
// The page passes the registry's default budget; so do these tests.
const { defaults } = await loadNodeRegistry();
const PAGE_SEEDS = defaults.seeds;
const grade = (request) => gradeInWorker({ ...request, options: { seeds: PAGE_SEEDS, ...request.options } });

beforeEach(() => {
  mock.timers.enable({ apis: ["setTimeout"] });
});
afterEach(() => {
  mock.timers.reset();
});

/** Whether `promise` has settled, after pending reactions have run. */
async function settled(promise) {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const started = (worker, maxScore = 14) => worker.answer({ id: worker.last.id, type: "started", fileName: "lock.js", maxScore, graderVersion: "9.9.9" });

/** Lets pending promise reactions and stream reads run (the mocked clock does not move). */
async function flush(rounds = 20) {
  for (let round = 0; round < rounds; round += 1) await new Promise((resolve) => setImmediate(resolve));
}

// First in the file: until it has run, the page has no grader module.
test("requests wait in the page for the grader's module, downloaded once for every worker; a failed download is retried, and no deadline runs meanwhile", async () => {
  const first = grade({ exercise: "lock", source: "first", deadlineMs: 3_000 });
  const second = replayInWorker({ exercise: "lock", source: "second", token: "t", deadlineMs: 3_000 });
  await flush();
  assert.equal(workers.length, 1, "the worker starts at once, so its script downloads beside the module");
  assert.deepEqual(workers[0].posted, [], "but it gets no request before the module is in");
  assert.equal(downloads.length, 1, "two requests, one download");
  assert.equal(downloads[0].url, "http://lesson.test/course/leaselab_bg.0123456789abcdef.wasm.gz", "the packed module the page names, beside the page");

  downloads[0].reject(new TypeError("Failed to fetch"));
  await flush();
  assert.equal(graderModuleState().phase, "offline");
  assert.match(graderModuleState().message, /connection/);
  // Far past both deadlines: neither request was sent, so neither can have run out of time.
  mock.timers.tick(60_000);
  await flush();
  assert.equal(await settled(first), false, "the grading waits for the network, it does not fail");
  assert.equal(downloads.length, 2, "the download is tried again after a pause");

  downloads[1].resolve(gzipped());
  await flush();
  assert.equal(graderModuleState().phase, "ready");
  const worker = workers.at(-1);
  assert.equal(workers.length, 1, "the same worker");
  assert.ok(worker.module instanceof WebAssembly.Module, "the worker got the compiled module");
  assert.equal(worker.last.source, "first", "the first request is sent now");
  started(worker);
  worker.answer({ id: worker.last.id, type: "result", report: { score: 1 } });
  assert.deepEqual(await first, { score: 1 });
  assert.equal(worker.last.source, "second");
  worker.answer({ id: worker.last.id, type: "result", replay: { violation: null } });
  await second;
  assert.equal(downloads.length, 2, "and nothing is downloaded again");
});

test("a worker that fails before it says anything, with no error of its own, could not download its script: the request fails as the network's problem", async () => {
  // The worker of the test before is ended (it has spoken), so this grading gets a fresh one.
  workers.at(-1).emit("error", { message: "ended", preventDefault() {} });
  const grading = grade({ exercise: "lock", source: "x" });
  const worker = workers.at(-1);
  worker.emit("error", { message: "", preventDefault() {} });
  await assert.rejects(grading, (error) => error instanceof GraderNetworkError && /script could not be downloaded/.test(error.message));
  // One that failed with a message of its own is the grader's failure, worded as before.
  const next = grade({ exercise: "lock", source: "y" });
  const fresh = workers.at(-1);
  assert.notEqual(fresh, worker);
  fresh.emit("error", { message: "Uncaught RangeError: boom", preventDefault() {} });
  await assert.rejects(next, (error) => !(error instanceof GraderNetworkError) && /the grader stopped unexpectedly \(Uncaught RangeError: boom\)/.test(error.message));
});

test("a grading past its deadline resolves to the 'took too long' report; the worker is terminated and the next request gets a fresh one", async () => {
  const grading = grade({ exercise: "lock", source: "stuck", deadlineMs: 3_000 });
  const worker = workers.at(-1);
  assert.deepEqual(worker.last.options, { seeds: PAGE_SEEDS });
  started(worker);
  mock.timers.tick(2_999);
  assert.equal(await settled(grading), false);
  mock.timers.tick(1);
  // The same keys, in the same order, as the grader's report of code that could not run.
  assert.deepEqual(await grading, { exercise: "lock", graderVersion: "9.9.9", score: 0, maxScore: 14, problems: [deadlineMessage("lock.js", 3_000)], tests: [] });
  assert.equal(worker.terminated, true);

  const next = grade({ exercise: "lock", source: "fine" });
  const fresh = workers.at(-1);
  assert.notEqual(fresh, worker);
  started(fresh);
  fresh.answer({ id: fresh.last.id, type: "result", report: { score: 14, problems: [], tests: [] } });
  assert.equal((await next).score, 14);
});

test("requests reach the worker one at a time; one queued behind a stuck grading goes to the fresh worker, with its deadline counted from then", async () => {
  const stuck = grade({ exercise: "lock", source: "stuck", deadlineMs: 1_000 });
  const queued = grade({ exercise: "lock", source: "queued", deadlineMs: 1_000 });
  const worker = workers.at(-1);
  assert.equal(worker.last.source, "stuck");
  assert.ok(!worker.posted.some((message) => message.source === "queued"), "the second request waits in the page, not in the worker");
  started(worker);
  mock.timers.tick(1_000);
  assert.match((await stuck).problems[0], /^lock\.js took too long/);

  const fresh = workers.at(-1);
  assert.notEqual(fresh, worker);
  assert.equal(fresh.last.source, "queued");
  started(fresh);
  mock.timers.tick(999);
  assert.equal(await settled(queued), false, "its deadline did not run while it waited");
  fresh.answer({ id: fresh.last.id, type: "result", report: { score: 14 } });
  assert.deepEqual(await queued, { score: 14 });
});

test("a worker that dies fails the request it was running with a clear message; queued ones go to a fresh worker", async () => {
  const running = grade({ exercise: "lock", source: "a" });
  const queued = grade({ exercise: "lock", source: "b" });
  const worker = workers.at(-1);
  started(worker);
  let prevented = false;
  worker.emit("error", { message: "Out of memory", preventDefault: () => (prevented = true) });
  await assert.rejects(running, { message: "the grader stopped unexpectedly (Out of memory)" });
  assert.equal(prevented, true);
  assert.equal(worker.terminated, true);

  // Whatever the dead worker still sends is ignored.
  worker.answer({ id: worker.posted[0].id, type: "result", report: { score: 99 } });
  const fresh = workers.at(-1);
  assert.notEqual(fresh, worker);
  assert.equal(fresh.last.source, "b");
  fresh.answer({ id: fresh.last.id, type: "result", report: { score: 3 } });
  assert.deepEqual(await queued, { score: 3 });
});

test("a deadline that passes before the worker started blames the grader, not the code", async () => {
  const grading = grade({ exercise: "lock", source: "x", deadlineMs: 2_000 });
  mock.timers.tick(2_000);
  await assert.rejects(grading, { message: "the grader did not start within 2 s" });
  assert.equal(workers.at(-1).terminated, true);
});

test("deadlines: the limit for the seeds that run, or the caller's, at most DEADLINE_MS_MAX; replays get one schedule's; a nonsense deadlineMs is refused", async () => {
  const cases = [
    [{ options: { seeds: 30 } }, gradingDeadlineMs(30)],
    [{}, gradingDeadlineMs(PAGE_SEEDS)],
    [{ deadlineMs: 5_000 }, 5_000],
    [{ deadlineMs: 3 * gradingDeadlineMs(PAGE_SEEDS) }, 3 * gradingDeadlineMs(PAGE_SEEDS)],
    [{ deadlineMs: 10 ** 9 }, DEADLINE_MS_MAX],
  ];
  for (const [extra, expected] of cases) {
    const grading = grade({ exercise: "lock", source: "x", ...extra });
    const worker = workers.at(-1);
    started(worker);
    mock.timers.tick(expected - 1);
    assert.equal(await settled(grading), false, JSON.stringify(extra));
    mock.timers.tick(1);
    assert.deepEqual((await grading).problems, [deadlineMessage("lock.js", expected)]);
  }

  const replay = replayInWorker({ exercise: "lock", source: "x", token: "t" });
  started(workers.at(-1));
  mock.timers.tick(gradingDeadlineMs(1));
  await assert.rejects(replay, (error) => error instanceof DeadlineError && error.message === deadlineMessage("lock.js", gradingDeadlineMs(1)));

  for (const deadlineMs of [0, -1, Number.NaN, Infinity, "5000"]) {
    await assert.rejects(grade({ exercise: "lock", source: "x", deadlineMs }), RangeError);
  }
});

test("lab runs have a worker of their own: a grading's deadline never ends one", async () => {
  const lab = labInWorker({ exercise: "lock", source: "x", endpoint: "http://127.0.0.1:2379", onLog: () => {} });
  const labWorker = workers.at(-1);
  const grading = grade({ exercise: "lock", source: "stuck", deadlineMs: 1_000 });
  const gradingWorker = workers.at(-1);
  assert.notEqual(gradingWorker, labWorker);
  started(gradingWorker);
  started(labWorker);
  mock.timers.tick(1_000);
  assert.match((await grading).problems[0], /took too long/);
  assert.equal(labWorker.terminated, false);
  labWorker.answer({ id: labWorker.last.id, type: "result", lab: { stoppedBecause: "every process finished" } });
  assert.deepEqual(await lab, { stoppedBecause: "every process finished" });
});

test("a request that cannot be posted fails alone and at once; the next one is sent", async () => {
  const bad = grade({ exercise: "lock", source: "x", options: { seeds: PAGE_SEEDS, extra: () => 1 } });
  const good = grade({ exercise: "lock", source: "after-bad" });
  await assert.rejects(bad, { message: "could not be cloned" });
  const worker = workers.at(-1);
  assert.equal(worker.last.source, "after-bad");
  worker.answer({ id: worker.last.id, type: "result", report: { score: 1 } });
  assert.deepEqual(await good, { score: 1 });
});

test("a grading request must name its budget: without whole-number seeds it is refused before any worker starts", async () => {
  const before = workers.length;
  for (const options of [undefined, {}, { seeds: "200" }, { seeds: 2.5 }]) {
    await assert.rejects(gradeInWorker({ exercise: "lock", source: "x", options }), /needs options\.seeds/);
  }
  assert.equal(workers.length, before);
});

/** Ends the grading lane's worker (it dies while idle is not seen; a grading that dies is), so the lane has none. */
async function emptyLane() {
  const doomed = grade({ exercise: "lock", source: "doomed" });
  workers.at(-1).emit("error", { message: "gone", preventDefault: () => {} });
  await assert.rejects(doomed);
}

test("prepareGrading loads an idle lane's engines once, grading nothing; a grading asked for meanwhile waits for it, then runs in the same worker", async () => {
  await emptyLane();
  const before = workers.length;
  prepareGrading();
  assert.equal(workers.length, before + 1, "a worker is started at once");
  const worker = workers.at(-1);
  assert.equal(worker.last.type, "load");
  prepareGrading();
  assert.equal(worker.posted.length, 1, "a second call while it loads does nothing");

  const grading = grade({ exercise: "lock", source: "after-load" });
  assert.equal(worker.posted.length, 1, "the grading waits for the loading");
  worker.answer({ id: worker.last.id, type: "result", loaded: true });
  assert.equal(worker.last.source, "after-load", "then goes to the same worker, its engines loaded");
  assert.equal(workers.length, before + 1);
  started(worker);
  worker.answer({ id: worker.last.id, type: "result", report: { score: 14 } });
  assert.deepEqual(await grading, { score: 14 });

  prepareGrading();
  assert.equal(worker.last.source, "after-load", "a lane whose workers run is not loaded again");
  assert.equal(workers.length, before + 1);
});

test("a loading that fails or outlasts its deadline is forgotten: the next grading gets a fresh worker and meets the problem itself", async () => {
  await emptyLane();
  prepareGrading();
  const failing = workers.at(-1);
  failing.answer({ id: failing.last.id, type: "error", message: "could not download quickjs.wasm" });
  assert.equal(failing.terminated, true, "a worker whose request ended in an error is not used again (its engine may be half-way through a call)");
  const grading = grade({ exercise: "lock", source: "x" });
  const again = workers.at(-1);
  assert.notEqual(again, failing);
  assert.equal(again.last.source, "x", "the grading goes to a fresh worker");
  again.answer({ id: again.last.id, type: "error", message: "could not download quickjs.wasm" });
  await assert.rejects(grading, { message: "could not download quickjs.wasm" });

  await emptyLane();
  prepareGrading();
  const slow = workers.at(-1);
  mock.timers.tick(gradingDeadlineMs(1));
  assert.equal(slow.terminated, true, "a loading past its deadline ends its worker");
  const next = grade({ exercise: "lock", source: "y" });
  const fresh = workers.at(-1);
  assert.notEqual(fresh, slow);
  assert.equal(fresh.last.source, "y");
  started(fresh);
  fresh.answer({ id: fresh.last.id, type: "result", report: { score: 2 } });
  assert.deepEqual(await next, { score: 2 });
});

/** Lets the client's promise reactions run (the warm-up goes on from one). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const STARTER = { exercise: "lock", source: "// the starter" };

/** A fresh lane whose engines loaded (the focus went to an editor): its worker, at its first warm-up grading. */
async function warming() {
  await emptyLane();
  prepareGrading(STARTER);
  const worker = workers.at(-1);
  worker.answer({ id: worker.last.id, type: "result", loaded: true });
  await turn();
  return worker;
}

test("after loading, the workers warm up on the starter: a few gradings at the tiny budget, one at a time, their reports thrown away", async () => {
  await emptyLane();
  prepareGrading(STARTER);
  const worker = workers.at(-1);
  assert.equal(worker.last.type, "load");
  assert.equal(warmUpState().state, "loading");
  worker.answer({ id: worker.last.id, type: "result", loaded: true });
  for (let round = 0; round < WARM_UP.gradings; round += 1) {
    await turn();
    assert.equal(worker.last.type, "grade", `warm-up grading ${round + 1} is sent once the one before it answered`);
    assert.equal(worker.last.source, STARTER.source);
    assert.equal(worker.last.exercise, STARTER.exercise);
    assert.equal(worker.last.options.seeds, WARM_UP.options.seeds);
    assert.equal(worker.last.options.shrinkAttemptsMax, WARM_UP.options.shrinkAttemptsMax);
    assert.deepEqual(warmUpState(), { state: "warming", gradings: round });
    started(worker);
    worker.answer({ id: worker.last.id, type: "test", index: 0, test: { name: "x", status: "failed" } });
    worker.answer({ id: worker.last.id, type: "result", report: { score: 0 } });
  }
  await turn();
  assert.deepEqual(warmUpState(), { state: "done", gradings: WARM_UP.gradings });
  assert.equal(worker.posted.length, 1 + WARM_UP.gradings, "nothing more is sent");
  assert.equal(worker.terminated, false);

  // The learner's own "Run tests" then goes to the same, warmed worker, and hears only about its own tests.
  const heard = [];
  const grading = gradeInWorker({ exercise: "lock", source: "mine", options: { seeds: PAGE_SEEDS }, onTest: (test) => heard.push(test.name) });
  assert.equal(worker.last.source, "mine");
  worker.answer({ id: worker.last.id, type: "started", fileName: "lock.js", maxScore: 14, graderVersion: "9.9.9", tests: ["own"] });
  worker.answer({ id: worker.last.id, type: "test", index: 0, test: { name: "own", status: "passed" } });
  worker.answer({ id: worker.last.id, type: "result", report: { score: 14 } });
  assert.deepEqual(await grading, { score: 14 });
  assert.deepEqual(heard, ["own"]);
});

test("a learner's request during the warm-up waits only for the warm-up grading under way; no other warm-up grading starts after it", async () => {
  const worker = await warming();
  assert.equal(worker.last.source, STARTER.source, "the first warm-up grading runs");

  const grading = grade({ exercise: "lock", source: "mine" });
  assert.equal(worker.last.source, STARTER.source, "the learner's request waits for it");
  worker.answer({ id: worker.last.id, type: "result", report: { score: 0 } });
  assert.equal(worker.last.source, "mine", "then runs at once");
  started(worker);
  worker.answer({ id: worker.last.id, type: "result", report: { score: 14 } });
  assert.deepEqual(await grading, { score: 14 });
  await turn();
  assert.equal(worker.last.source, "mine", "the warm-up did not go on");
  assert.deepEqual(warmUpState(), { state: "stopped", gradings: 1 });

  // A request made while the engines load: the warm-up never starts.
  await emptyLane();
  prepareGrading(STARTER);
  const loading = workers.at(-1);
  const early = grade({ exercise: "lock", source: "early" });
  loading.answer({ id: loading.last.id, type: "result", loaded: true });
  assert.equal(loading.last.source, "early");
  await turn();
  assert.deepEqual(warmUpState(), { state: "stopped", gradings: 0 });
  started(loading);
  loading.answer({ id: loading.last.id, type: "result", report: { score: 3 } });
  assert.deepEqual(await early, { score: 3 });
  await turn();
  assert.equal(loading.last.source, "early", "nothing was sent after it");
});

test("a warm-up grading that fails or outlasts its deadline ends the warm-up quietly; the next grading meets no trace of it", async () => {
  const worker = await warming();
  worker.answer({ id: worker.last.id, type: "error", message: "the starter broke the grader" });
  await turn();
  assert.deepEqual(warmUpState(), { state: "stopped", gradings: 0 });
  assert.equal(worker.posted.length, 2, "no more warm-up gradings");

  const slow = await warming();
  assert.equal(slow.last.source, STARTER.source);
  mock.timers.tick(gradingDeadlineMs(WARM_UP.options.seeds));
  await turn();
  assert.equal(slow.terminated, true, "its deadline ends the workers, as any grading's does");
  assert.deepEqual(warmUpState(), { state: "stopped", gradings: 0 });
  const next = grade({ exercise: "lock", source: "next" });
  const fresh = workers.at(-1);
  assert.notEqual(fresh, slow);
  started(fresh);
  fresh.answer({ id: fresh.last.id, type: "result", report: { score: 5 } });
  assert.deepEqual(await next, { score: 5 });
});
