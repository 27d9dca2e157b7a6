// `leaselab grade --shard I/N`: a class split across machines. Each shard
// grades a disjoint part, together they grade everyone, the split does not
// depend on the order the inputs were listed in, and the shards' CSVs
// concatenated in shard order are the class's CSV.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { byCodePoint, parseShard, shardOf } from "../cli/shard.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "cli/leaselab.mjs");
const CAS = join(ROOT, "exercises/ownership-election/cas");

function leaselab(args) {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ status: error ? error.code : 0, stdout, stderr }));
  });
}

// A small class: each learner's folder holds cas.js, the solution or the starter, so scores differ.
// Two learners share a folder name (x/carol, y/carol), as when a class is collected from two sections.
const classDir = mkdtempSync(join(tmpdir(), "leaselab-shard-"));
const learners = ["zoe", "Alice", "bob", "x/carol", "y/carol", "dave", "émile", "frank"];
const inputs = learners.map((learner, index) => {
  const dir = join(classDir, learner);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(CAS, index % 2 === 0 ? "solution.js" : "starter.js"), join(dir, "cas.js"));
  return dir;
});
/** The submissions' names as the CLI gives them, in code-point order. */
const byName = ["Alice", "bob", "dave", "frank", "x/carol", "y/carol", "zoe", "émile"];
const inputsByName = byName.map((name) => join(classDir, name));
const GRADE = ["grade", "--seeds", "2", "--jobs", "2"];

async function gradeToCsv(args) {
  const csv = join(mkdtempSync(join(tmpdir(), "leaselab-shard-csv-")), "scores.csv");
  const result = await leaselab([...GRADE, ...args, "--csv", csv]);
  assert.ok(result.status === 0 || result.status === 1, result.stderr);
  return { ...result, csv: readFileSync(csv, "utf8") };
}

const rowsOf = (csv) => csv.split("\n").filter((line) => line !== "" && !line.startsWith("submission,"));
// Names are quoted cells (csvCell); none of these holds a comma or a quote.
const nameOf = (row) => row.split(",")[0].replace(/^"(.*)"$/, "$1");

test("shards 1/3, 2/3, 3/3 grade disjoint parts that together are the class; their CSVs concatenate to the class's CSV", async () => {
  const whole = await gradeToCsv(inputsByName);
  assert.equal(rowsOf(whole.csv).length, learners.length);
  // Each machine is given the same inputs, listed in whatever order its shell lists them.
  const shards = [];
  for (const index of [1, 2, 3]) {
    const listed = index === 2 ? [...inputs].reverse() : inputs;
    shards.push(await gradeToCsv([...listed, "--shard", `${index}/3`]));
  }
  const parts = shards.map((shard) => rowsOf(shard.csv).map(nameOf));
  assert.deepEqual(parts.map((part) => part.length), [2, 3, 3], "parts differ in size by at most one");
  assert.deepEqual(parts.flat(), byName, "disjoint, complete, in name order");
  assert.ok(shards[0].csv.startsWith("submission,"), "shard 1 writes the header");
  assert.ok(!shards[1].csv.includes("submission,") && !shards[2].csv.includes("submission,"), "later shards do not");
  assert.equal(shards.map((shard) => shard.csv).join(""), whole.csv, "cat shard-1.csv shard-2.csv shard-3.csv is the class's CSV");
  assert.match(shards[1].stderr, /shard 2\/3: 3 of the 8 submissions \(dave to x\/carol by name\)/);
});

test("--shard 1/1 is the whole class in name order, whatever order the inputs came in", async () => {
  const [listed, reversed] = [await gradeToCsv(inputsByName), await gradeToCsv(["--shard", "1/1", ...[...inputsByName].reverse()])];
  assert.equal(reversed.csv, listed.csv);
});

test("a shard with nothing to grade (more parts than submissions) writes a CSV with no rows and succeeds", async () => {
  // Two submissions in five parts: parts 3 and 5 hold one each, parts 1, 2 and 4 none.
  const second = await gradeToCsv([inputs[0], inputs[1], "--shard", "2/5"]);
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.csv, "");
  assert.match(second.stderr, /shard 2\/5: 0 of the 2 submissions/);
  const first = await gradeToCsv([inputs[0], inputs[1], "--shard", "1/5"]);
  assert.deepEqual(first.csv.split("\n"), [first.csv.split("\n")[0], ""], "the header only");
  assert.match(first.csv, /^submission,/);
});

test("a bad --shard is refused with exit 2 and a message saying what to write", async () => {
  const cases = [
    ["3/2", /--shard 3\/2: the part must be from 1 to 2/],
    ["0/2", /--shard 0\/2: the part must be from 1 to 2 \(parts are numbered from 1\)/],
    ["1/0", /--shard 1\/0: the number of parts must be from 1 to 10000/],
    ["a/b", /--shard needs I\/N, .* \(2\/5 grades the second of five parts\); got "a\/b"/],
    ["2", /--shard needs I\/N/],
  ];
  for (const [value, message] of cases) {
    const result = await leaselab(["grade", inputs[0], "--shard", value]);
    assert.equal(result.status, 2, value);
    assert.match(result.stderr, message);
  }
  const missing = await leaselab(["grade", inputs[0], "--shard"]);
  assert.match(missing.stderr, /--shard needs a value/);
  assert.match((await leaselab(["--help"])).stdout, /--shard I\/N {7}grade only part I of N of the submissions/);
});

test("shardOf: parts of every class size are contiguous, disjoint, complete and balanced", () => {
  for (let size = 0; size <= 12; size += 1) {
    const named = Array.from({ length: size }, (_, index) => ({ name: `s${String(index).padStart(2, "0")}` }));
    for (let count = 1; count <= 5; count += 1) {
      const parts = Array.from({ length: count }, (_, index) => shardOf([...named].reverse(), parseShard(`${index + 1}/${count}`)));
      assert.deepEqual(parts.flat(), named, `${size} submissions in ${count} parts`);
      const sizes = parts.map((part) => part.length);
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${size} in ${count}: ${sizes}`);
    }
  }
});

test("shards are cut in code-point order, not UTF-16's: a full-width letter (U+FF5A) comes before an emoji (U+1F600)", () => {
  const names = ["\u{1F600}", "\uFF5A", "z", "\u{1F600}a", "\uFF5Ab", "\uD7FF"];
  const sorted = [...names].sort(byCodePoint);
  // The reference order: compare the arrays of code points.
  const points = (text) => [...text].map((character) => character.codePointAt(0));
  const reference = [...names].sort((a, b) => {
    const [x, y] = [points(a), points(b)];
    for (let index = 0; index < Math.min(x.length, y.length); index += 1) if (x[index] !== y[index]) return x[index] - y[index];
    return x.length - y.length;
  });
  assert.deepEqual(sorted, reference);
  assert.deepEqual(sorted, ["z", "\uD7FF", "\uFF5A", "\uFF5Ab", "\u{1F600}", "\u{1F600}a"]);
  const named = names.map((name) => ({ name }));
  assert.deepEqual(shardOf(named, { index: 1, count: 2 }).map((one) => one.name), ["z", "\uD7FF", "\uFF5A"]);
});
