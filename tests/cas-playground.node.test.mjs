// The CAS playground's pure core: form parsing and the update function.
import { test } from "node:test";
import assert from "node:assert/strict";
import { initialState, parseCasForm, update, LOG_ENTRIES_MAX } from "../web/src/widgets/cas-playground/state.js";

const form = (changes) => ({ ...initialState().form, ...changes });

test("a create request expects the key to be absent", () => {
  const { request } = parseCasForm(form({ key: " locks/a ", nextValue: "p1", expectAbsent: true, ttlMs: "2000" }));
  assert.deepEqual(request, { key: "locks/a", nextValue: "p1", expect: { value: null }, options: { ttlMs: 2000 } });
});

test("an expected value and version are both sent; an empty TTL means no expiry", () => {
  const { request } = parseCasForm(form({ expectAbsent: false, expectedValue: "p1", expectedVersion: "7", ttlMs: "" }));
  assert.deepEqual(request.expect, { value: "p1", version: 7 });
  assert.deepEqual(request.options, {});
});

test("a version is ignored while the key is expected to be absent", () => {
  const { request } = parseCasForm(form({ expectAbsent: true, expectedVersion: "2" }));
  assert.deepEqual(request.expect, { value: null });
});

test("bad fields are named with what to type instead", () => {
  const { errors } = parseCasForm(form({ key: "  ", expectAbsent: false, expectedVersion: "2.5", ttlMs: "0" }));
  assert.deepEqual(Object.keys(errors).sort(), ["expectedVersion", "key", "ttlMs"]);
  assert.match(errors.key, /Enter a key/);
  assert.match(errors.expectedVersion, /whole number/);
  assert.match(errors.ttlMs, /at least 1/);
});

test("a mismatch on a missing key says the key does not exist", () => {
  const request = { key: "k", nextValue: "v", expect: { value: "old" }, options: {} };
  const snapshot = { revision: 1, nowMs: 0, keys: [], leases: [], waitingWatchers: 0 };
  const state = update(initialState(), { type: "cas-done", request, result: { ok: false, current: null, revision: 1 }, snapshot });
  assert.equal(state.outcome.tone, "mismatch");
  assert.match(state.outcome.text, /does not exist/);
  assert.equal(state.log.length, 1);
});

test("expiry events are logged newest first and the log is bounded", () => {
  let state = initialState();
  const snapshot = { revision: 2, nowMs: 10, keys: [], leases: [], waitingWatchers: 0 };
  for (let i = 0; i < LOG_ENTRIES_MAX + 5; i++) {
    const events = [{ type: "expire", key: `k${i}`, version: i + 2, atMs: i, value: null }];
    state = update(state, { type: "advanced", deltaMs: 1, events, snapshot });
  }
  assert.equal(state.log.length, LOG_ENTRIES_MAX);
  assert.match(state.log[0].text, new RegExp(`"k${LOG_ENTRIES_MAX + 4}" expired`));
  assert.match(state.outcome.text, /Clock \+1 ms/);
});

test("'Expect this' fills the form from a record", () => {
  const record = { key: "locks/x", value: "p2", version: 9, keyVersion: 3, createVersion: 4, lease: null, ttlLeftMs: null };
  const state = update(initialState(), { type: "use-record", record });
  assert.equal(state.form.expectAbsent, false);
  assert.equal(state.form.expectedValue, "p2");
  assert.equal(state.form.expectedVersion, "9");
});
