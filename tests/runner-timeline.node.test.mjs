// The failure timeline's pure parts: a real counterexample (the TTL unlock
// bug, graded from JavaScript) becomes lanes, arrows, ownership bars, marks
// and steps; "copy link" fragments round-trip.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";
import { timelineModel } from "../web/src/runner/timeline-model.js";
import { parseReplayFragment, replayFragment } from "../web/src/runner/link.js";

let counterexample;
let engines;
let report;
before(async () => {
  engines = await loadNodeEngines();
  const source = readFileSync(new URL("./fixtures/submissions/lock/unlock-without-version.js", import.meta.url), "utf8");
  report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  counterexample = report.tests.find((t) => t.name.startsWith("the TTL unlock bug")).counterexample;
});

test("the TTL unlock bug as a timeline: two holders in turn, an expiry, a pause, the violation last", () => {
  const model = timelineModel(counterexample.trace, counterexample.violation, counterexample.processes, counterexample.words);
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

test("calls read as the learner wrote them, in the grader's words (lab mode uses these)", () => {
  const { describeCall, describeReply } = engines.leaselab;
  assert.equal(describeCall(JSON.stringify({ op: "cas", key: "k", nextValue: "p1", currentValue: null, version: null, ttlMs: 1000 })), 'compareAndSwap("k", "p1", null, { ttlMs: 1000 })');
  assert.equal(describeCall(JSON.stringify({ op: "delete", key: "k", version: 7 })), 'delete("k", { version: 7 })');
  assert.equal(describeCall(JSON.stringify({ op: "watch", key: "k", afterVersion: 3 })), 'watch("k", 3)');
  assert.equal(describeReply(JSON.stringify({ reply: "slept" })), "woke up");
});

test("one story, one wording: the page's timeline steps, the CLI's text timeline and a replay's words are the same sentences", async () => {
  const model = timelineModel(counterexample.trace, counterexample.violation, counterexample.processes, counterexample.words);
  // What the CLI prints for a failing test (cli/grade-file.js).
  const text = engines.leaselab.renderCounterexample(JSON.stringify(counterexample));
  for (const step of model.steps) assert.ok(text.includes(step.text), `the CLI's timeline lacks "${step.text}"`);
  const words = JSON.parse(engines.leaselab.describeTrace(JSON.stringify(counterexample.trace)));
  assert.deepEqual(words, counterexample.words);
  // The cas harness words the call that threw inside the VM; the grader's words for that call match.
  const thrower = "export function createStore() { return { get() { throw new Error(\"boom\"); }, compareAndSwap() { return { ok: true, version: 1 }; }, delete() { return false; } }; }";
  const cas = await gradeSource(engines, { exercise: "cas", source: thrower, options: { seeds: 1 } });
  const failed = cas.tests.find((t) => t.counterexample?.violation.invariant === "no-errors");
  const op = /(get\("[^"]*"\))/.exec(failed.message)?.[1];
  assert.ok(op, failed.message);
  const key = JSON.parse(/get\(("[^"]*")\)/.exec(op)[1]);
  assert.equal(op, engines.leaselab.describeCall(JSON.stringify({ op: "get", key })));
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

test("a very long failing run shows its first and last events, says how many it left out, and the page and the CLI agree on where", async () => {
  // A 1.6 KB election.js that lists the queue 500 times inside resign(): every failing run is that flood.
  const source = readFileSync(new URL("./fixtures/hostile/election/list-flood-in-resign.js", import.meta.url), "utf8");
  const flood = await gradeSource(engines, { exercise: "election", source, options: { seeds: 2 } });
  const long = flood.tests.map((t) => t.counterexample).find((c) => c?.omitted);
  assert.ok(long, "some counterexample leaves events out");
  const { after, count } = long.omitted;
  assert.ok(count > 0 && after > 0 && after < long.trace.length);
  assert.equal(long.words.length, long.trace.length, "one sentence per event shown");
  assert.equal(long.violation.traceIndex, long.trace.length - 1, "the violation is the last event shown");
  const model = timelineModel(long.trace, long.violation, long.processes, long.words, long.omitted);
  assert.deepEqual(model.gap, { afterStep: after - 1, count, fromMs: long.trace[after - 1].atMs, toMs: long.trace[after].atMs });
  assert.equal(model.steps.at(-1).violation, true);
  // Nobody is drawn holding a key across the events left out: nothing says what happened to it there.
  for (const hold of model.holds.filter((hold) => hold.fromMs <= model.gap.fromMs)) assert.ok(hold.toMs <= model.gap.fromMs, `${hold.label} runs across the gap`);
  const text = engines.leaselab.renderCounterexample(JSON.stringify(long));
  const lines = text.split("\n");
  const gapLine = lines.findIndex((line) => line.includes(`… ${count} events not shown`));
  assert.equal(gapLine, 2 + after, "the CLI marks the gap after the same events: a violation line, a header, then the first events");
  for (const step of model.steps) assert.ok(text.includes(step.text), `the CLI's timeline lacks "${step.text}"`);
  // Without the gap, the same model has none.
  assert.equal(timelineModel(counterexample.trace, counterexample.violation, counterexample.processes, counterexample.words).gap, null);
});
