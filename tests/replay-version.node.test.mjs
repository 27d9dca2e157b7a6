// Versioned verdicts, as the runner (the page's worker and the CLI) meets
// them: reports and replay tokens carry the grader's version, a token of
// this version replays, and a token from another version is refused with a
// message that names both versions, never replayed under other rules; nor
// is a token whose plan its test never runs (a hand-made fault).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource, replaySource } from "../runner/grade.js";
import { registryOf } from "../runner/registry.js";

const starter = readFileSync(new URL("../exercises/ownership-election/lock/starter.js", import.meta.url), "utf8");
let engines;
let version;
let token;

before(async () => {
  engines = await loadNodeEngines();
  version = registryOf(engines.leaselab).graderVersion;
  const report = await gradeSource(engines, { exercise: "lock", source: starter, options: { seeds: 5 } });
  assert.equal(report.graderVersion, version, "the report carries the grader's version");
  token = report.tests.find((one) => one.counterexample)?.counterexample.replayToken;
  assert.ok(token, "the lock starter fails with a counterexample");
});

test("a replay token carries the grader's version, and this version replays it", async () => {
  assert.ok(token.startsWith(`lock@${version}:`), token);
  const replay = await replaySource(engines, { exercise: "lock", source: starter, token });
  assert.ok(replay.violation, "the starter still fails on replay");
});

// The stamp of another version: a newer and an older grader, and a token from before tokens had versions.
const stampOf = (other) => token.replace(`lock@${version}:`, other === null ? "lock:" : `lock@${other}:`);
for (const other of ["99.0.0", "0.0.1"]) {
  test(`a token from grader ${other} is refused with a message naming both versions`, async () => {
    await assert.rejects(replaySource(engines, { exercise: "lock", source: starter, token: stampOf(other) }), (error) => {
      assert.match(error.message, new RegExp(`grader ${other.replaceAll(".", "\\.")}\\b`));
      assert.match(error.message, new RegExp(`this is grader ${version.replaceAll(".", "\\.")}\\b`));
      assert.match(error.message, /run the tests again/);
      return true;
    });
  });
}

test("a token without a version is refused, naming this grader's version", async () => {
  await assert.rejects(replaySource(engines, { exercise: "lock", source: starter, token: stampOf(null) }), (error) => {
    assert.match(error.message, /carries no version/);
    assert.ok(error.message.includes(version), error.message);
    return true;
  });
});

test("a token whose faults its test never plans is refused, naming the fault", async () => {
  // The same test, workload and plan, with a pause of 1,000 s that no lock test plans.
  const scenario = token.split(":")[1];
  const forged = `${token}.P0@10+1000000`;
  await assert.rejects(replaySource(engines, { exercise: "lock", source: starter, token: forged }), (error) => {
    assert.match(error.message, /`P0@10\+1000000` is not one this test plans/);
    assert.match(error.message, new RegExp(`cannot be one of the \`${scenario}\` test's runs`));
    return true;
  });
});
