// A conventional test suite for the lock exercise, as an instructor would
// write it with Vitest: the learner's module imported directly (no sandbox),
// an in-memory store with the same API and semantics as the lesson's (one
// store-wide version, per-key versions, TTLs, watches), fake timers, and
// random schedules: every store call's reply arrives after a random delay,
// the same number of schedules as leaselab's default budget. No faults
// beyond delays (no pauses, crashes, clock drift or jumps), no traces, no
// shrinking, no replay tokens: the baseline that `bench/runner.bench.mjs`
// compares leaselab's grading with (`npx vitest run --root bench/conventional`).
//
// LEASELAB_SOLUTION is the file to test (the benchmark passes the lesson's
// lock solution); LEASELAB_SEEDS the number of schedules (the default budget).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const solution = await import(process.env.LEASELAB_SOLUTION);
const SEEDS = Number(process.env.LEASELAB_SEEDS ?? 200);

/** SplitMix64-like seeded numbers (32-bit), so every schedule is reproducible. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}

/** An in-memory store with the lesson's API; every reply is delayed by `delay()` ms of fake time. */
function createStore(delay) {
  let revision = 1;
  const keys = new Map();
  const history = [];
  const watchers = [];
  const later = (answer) => new Promise((resolve) => setTimeout(() => resolve(answer()), delay()));
  const record = (key) => {
    const entry = keys.get(key);
    return entry ? { value: entry.value, version: entry.version, keyVersion: entry.keyVersion } : null;
  };
  const changed = (event) => {
    history.push(event);
    for (let index = watchers.length - 1; index >= 0; index -= 1) {
      const watcher = watchers[index];
      if (watcher.key === event.key && event.version > watcher.after) {
        watchers.splice(index, 1);
        watcher.resolve(event);
      }
    }
  };
  const remove = (key, type) => {
    const entry = keys.get(key);
    clearTimeout(entry.timer);
    keys.delete(key);
    revision += 1;
    changed({ type, key, value: entry.value, version: revision });
  };
  return {
    get: (key) => later(() => record(key)),
    compareAndSwap: (key, nextValue, currentValue, { version, ttlMs } = {}) =>
      later(() => {
        const entry = keys.get(key);
        const matches = currentValue === null ? !entry : entry && entry.value === currentValue && (version === undefined || entry.version === version);
        if (!matches) return { ok: false, current: record(key) };
        if (entry) clearTimeout(entry.timer);
        revision += 1;
        const next = { value: nextValue, version: revision, keyVersion: entry ? entry.keyVersion + 1 : 1, timer: null };
        if (ttlMs !== undefined) next.timer = setTimeout(() => remove(key, "expire"), ttlMs);
        keys.set(key, next);
        changed({ type: "put", key, value: nextValue, version: revision });
        return { ok: true, version: revision };
      }),
    delete: (key, { version } = {}) =>
      later(() => {
        const entry = keys.get(key);
        if (!entry || (version !== undefined && entry.version !== version)) return { ok: false };
        remove(key, "delete");
        return { ok: true };
      }),
    watch: (key, afterVersion) =>
      later(() => {
        const seen = history.find((event) => event.key === key && event.version > afterVersion);
        return seen ?? new Promise((resolve) => watchers.push({ key, after: afterVersion, resolve }));
      }),
  };
}

describe("lock: random schedules", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(Array.from({ length: SEEDS }, (_, index) => index + 1))("schedule %i: one holder at a time, unlock answers true", async (seed) => {
    const next = random(seed);
    const store = createStore(() => 1 + Math.floor(next() * 40));
    const processes = 2 + Math.floor(next() * 3);
    const ttlMs = 2000;
    let holder = null;
    const overlaps = [];
    const answers = [];
    const run = async (index) => {
      const ctx = { name: `p${index + 1}`, now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), store };
      for (let round = 0; round < 2; round += 1) {
        await ctx.sleep(Math.floor(next() * 50));
        const held = await solution.lock(ctx, "locks/bench", ttlMs);
        if (holder !== null) overlaps.push([holder, ctx.name]);
        holder = ctx.name;
        await ctx.sleep(Math.floor(next() * 100));
        holder = null;
        answers.push(await solution.unlock(ctx, "locks/bench", held.version));
      }
      const attempt = await solution.tryLock(ctx, "locks/bench", ttlMs);
      if (attempt) answers.push(await solution.unlock(ctx, "locks/bench", attempt.version));
    };
    const all = Promise.all(Array.from({ length: processes }, (_, index) => run(index)));
    await vi.runAllTimersAsync();
    await all;
    expect(overlaps).toEqual([]);
    expect(answers.every((answer) => answer === true)).toBe(true);
  });
});
