// The engine (crates/engine) compiles in the in-VM JavaScript that the
// runner also ships: the sandbox's prelude and the two harnesses. Its
// copies in crates/engine/vm/ are written by `node runner/vm-sources.mjs`;
// this holds them to the runner's text, so the two cannot drift. It holds
// the engine's default limits and the words of its stops to the runner's
// sandbox's the same way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { VM_SOURCES, VM_SOURCES_DIR } from "../runner/vm-sources.mjs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { DEFAULT_LIMITS, STOP_REASONS } from "../runner/sandbox.js";

for (const [name, text] of Object.entries(VM_SOURCES)) {
  test(`crates/engine/vm/${name} is the runner's text`, () => {
    const copy = readFileSync(VM_SOURCES_DIR + name, "utf8");
    assert.ok(copy === `${text}\n`, `crates/engine/vm/${name} differs from the runner's; run \`node runner/vm-sources.mjs\` and commit the result`);
  });
}

test("the engine's default limits and the words of its stops are the runner's sandbox's", async () => {
  const { leaselab } = await loadNodeEngines();
  const { defaults, reasons } = JSON.parse(leaselab.engineLimits());
  assert.deepEqual(defaults, { ...DEFAULT_LIMITS });
  const words = Object.fromEntries(Object.entries(STOP_REASONS).map(([name, words]) => [name, words(DEFAULT_LIMITS)]));
  assert.deepEqual(reasons, words);
});
