// The engine (crates/engine) compiles in the in-VM JavaScript that the
// runner also ships: the sandbox's prelude and the two harnesses. Its
// copies in crates/engine/vm/ are written by `node runner/vm-sources.mjs`;
// this holds them to the runner's text, so the two cannot drift.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { VM_SOURCES, VM_SOURCES_DIR } from "../runner/vm-sources.mjs";

for (const [name, text] of Object.entries(VM_SOURCES)) {
  test(`crates/engine/vm/${name} is the runner's text`, () => {
    const copy = readFileSync(VM_SOURCES_DIR + name, "utf8");
    assert.ok(copy === `${text}\n`, `crates/engine/vm/${name} differs from the runner's; run \`node runner/vm-sources.mjs\` and commit the result`);
  });
}
