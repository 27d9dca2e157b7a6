// Lab mode's election run on a real etcd (Debian's etcd-server), in Node: the
// lesson's solution queues three candidates through etcd's JSON gateway (a
// range over the prefix sorted by create revision, watches from the read's
// revision), and they take office in the order they joined, each woken alone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { runLab } from "../runner/lab-run.js";
import { prefixRangeEnd } from "../runner/etcd-gateway.js";
import { startEtcd } from "./support/etcd.mjs";

let etcd;
let endpoint;

before(async () => {
  etcd = await startEtcd();
  endpoint = etcd.endpoint;
});

after(() => etcd?.stop());

test("a prefix's range ends just past every key that starts with it", () => {
  assert.equal(atob(prefixRangeEnd("election/")), "election0");
  // Bytes, not characters: "é" is UTF-8 c3 a9, so its range ends at c3 aa.
  const bytes = Uint8Array.from(atob(prefixRangeEnd("\u00e9")), (char) => char.charCodeAt(0));
  assert.deepEqual([...bytes], [0xc3, 0xaa]);
});

test("lab mode: the election solution queues three candidates on etcd, each woken alone", async () => {
  const engines = await loadNodeEngines();
  const source = readFileSync(new URL("../exercises/ownership-election/election/solution.js", import.meta.url), "utf8");
  const lines = [];
  const result = await runLab(engines, { exercise: "election", source, endpoint, onLog: ({ who, text }) => lines.push(`${who} ${text}`) });
  const log = lines.join("\n");
  assert.equal(result.stoppedBecause, "every process is done", log);
  const leaders = lines.filter((line) => / leads: campaign\(\) returned /.test(line)).map((line) => line.split(" ")[0]);
  assert.deepEqual(leaders, ["p1", "p2", "p3"], log);
  // p3 waits on p2, not on the leader: the queue, not the herd.
  assert.match(log, /p2 calls watch\("election\/p1", \d+\)/);
  assert.match(log, /p3 calls watch\("election\/p2", \d+\)/);
  assert.equal(lines.filter((line) => / gets \{ type: "delete"/.test(line)).length, 2, log);
  assert.equal(lines.filter((line) => /resign\(\) returned true/.test(line)).length, 3, log);
  // etcd agrees: the queue is empty again.
  const range = await (await fetch(`${endpoint}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: btoa("election/"), range_end: prefixRangeEnd("election/") }) })).json();
  assert.equal(range.kvs, undefined);
});
