// runner/memory-scan.js: the hand-assembled WebAssembly scanner that finds
// the last non-zero byte of a QuickJS memory when a sandbox is sealed must
// compile, and must answer exactly as the plain JavaScript loop does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lastNonZeroEnd, lastNonZeroEndInJs, SCANNER_COMPILED } from "../runner/memory-scan.js";

const PAGE = 64 * 1024;

test("the scanner's bytes are a valid module, and Node compiles it", () => {
  assert.equal(SCANNER_COMPILED, true);
});

test("the scanner and the JavaScript loop agree: empty memory, a byte at every edge, random bytes, any range", () => {
  const memory = new WebAssembly.Memory({ initial: 4, maximum: 8 });
  const bytes = new Uint8Array(memory.buffer);
  const size = bytes.length;
  const ranges = [[0, size], [8, 3 * PAGE], [PAGE, size], [16, 16], [size - 8, size]];
  const layouts = [[], [0], [1], [7], [8], [PAGE - 1], [PAGE], [size - 1], [3, 2 * PAGE + 9]];
  // Seeded, so a failure can be replayed (a small linear congruential generator).
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 20; round += 1) layouts.push(Array.from({ length: 1 + (next() % 5) }, () => next() % size));
  for (const layout of layouts) {
    bytes.fill(0);
    for (const at of layout) bytes[at] = 1 + (at % 255);
    for (const [from, to] of ranges) {
      assert.equal(lastNonZeroEnd(memory, from, to), lastNonZeroEndInJs(memory, from, to), `bytes at ${layout}, range [${from}, ${to})`);
    }
  }
  bytes.fill(0);
  bytes[5] = 9;
  assert.equal(lastNonZeroEnd(memory, 0, size), 8, "the end of the 8-byte word holding the last non-zero byte");
  assert.equal(lastNonZeroEnd(memory, 8, size), 8, "nothing non-zero in the range: its start");
});

test("a memory that grew is scanned whole", () => {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  lastNonZeroEnd(memory, 0, PAGE);
  memory.grow(2);
  new Uint8Array(memory.buffer)[3 * PAGE - 2] = 1;
  assert.equal(lastNonZeroEnd(memory, 0, 3 * PAGE), 3 * PAGE);
});
