// The failure timeline's pure parts: a real counterexample (the TTL unlock
// bug, graded from JavaScript) becomes lanes, arrows, ownership bars, marks
// and steps; "copy link" fragments round-trip.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../web/src/runner/node.js";
import { gradeSource } from "../web/src/runner/grade.js";
import { timelineModel, describeCall } from "../web/src/runner/timeline-model.js";
import { parseReplayFragment, replayFragment } from "../web/src/runner/link.js";

let counterexample;
before(async () => {
  const engines = await loadNodeEngines();
  const source = readFileSync(new URL("./fixtures/submissions/lock/unlock-without-version.js", import.meta.url), "utf8");
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  counterexample = report.tests.find((t) => t.name.startsWith("the TTL unlock bug")).counterexample;
});

test("the TTL unlock bug as a timeline: two holders in turn, an expiry, a pause, the violation last", () => {
  const model = timelineModel(counterexample.trace, counterexample.violation, counterexample.processes);
  assert.deepEqual(model.lanes, ["p1", "p2", "store"]);
  assert.deepEqual(model.holds.map((hold) => hold.lane), ["p1", "p2"]);
  assert.ok(model.holds[0].toMs <= model.holds[1].fromMs, "p1's bar ends when its lock expires, before p2's starts");
  assert.ok(model.marks.some((mark) => mark.kind === "expire"));
  assert.equal(model.pauses.length, 1);
  assert.equal(model.pauses[0].lane, "p1");
  const last = model.steps.at(-1);
  assert.equal(last.violation, true);
  assert.equal(last.lane, "p1");
  assert.match(last.text, /the store applies delete\("locks\/bar"\): \{ ok: true \}/);
  assert.equal(model.steps.filter((step) => step.violation).length, 1);
  for (const call of model.calls.filter((call) => call.request.op !== "sleep")) {
    assert.ok(call.applyMs === null || call.applyMs >= call.invokeMs);
    assert.ok(call.completeMs === null || call.completeMs >= call.applyMs);
  }
});

test("calls read as the learner wrote them", () => {
  assert.equal(describeCall({ op: "cas", key: "k", nextValue: "p1", currentValue: null, version: null, ttlMs: 1000 }), 'compareAndSwap("k", "p1", null, { ttlMs: 1000 })');
  assert.equal(describeCall({ op: "delete", key: "k", version: 7 }), 'delete("k", { version: 7 })');
  assert.equal(describeCall({ op: "watch", key: "k", afterVersion: 3 }), 'watch("k", 3)');
});

test("a copy-link fragment carries exercise, token and code, and survives any characters", () => {
  const source = 'export async function lock() { return "ünïcode ~ # & ? / + = 🙂"; }\n';
  const fragment = replayFragment({ exercise: "lock", token: counterexample.replayToken, source });
  assert.match(fragment, /^#replay=lock~/);
  assert.deepEqual(parseReplayFragment(fragment), { exercise: "lock", token: counterexample.replayToken, source });
  assert.equal(parseReplayFragment("#section-3"), null);
  assert.match(parseReplayFragment("#replay=lock~token~%%%not-base64").error, /the code in the link is damaged/);
  assert.match(parseReplayFragment("#replay=lock~tok%E0en~AAAA").error, /percent-encoding/);
  assert.match(parseReplayFragment("#replay=lock").error, /incomplete/);
  assert.equal(parseReplayFragment("#replay=lock~x~AAA~").exercise, "lock");
});

test("a replay link round-trips any token and any source, `~` included (every cas token has one)", () => {
  const cases = [
    ["cas", "cas:create-when-absent:ca=p1/~,cb=p2/~:v1.s1.n1.l1-20.r", "export function createStore() {}\n"],
    ["lock", "a~b~~c%7E%%", "// ~ ünïcode ~ \u{1F600}\n"],
    ["fencing", "", ""],
  ];
  for (const [exercise, token, source] of cases) {
    const fragment = replayFragment({ exercise, token: token || "t", source });
    assert.equal(fragment.split("~").length, 3, fragment);
    assert.deepEqual(parseReplayFragment(fragment), { exercise, token: token || "t", source });
  }
});
