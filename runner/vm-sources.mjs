// The in-VM sources the engine (crates/engine) compiles in: the sandbox's
// prelude and the two harnesses, written out of the JavaScript runner that
// also ships them, so there is one text of each. `node runner/vm-sources.mjs`
// writes them; tests/engine-vm-sources.node.test.mjs fails when the copies
// in crates/engine/vm/ differ from what this would write.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CAS_HARNESS_SOURCE, HARNESS_SOURCE } from "./harness.js";
import { PRELUDE_SOURCE } from "./sandbox.js";

/** File name under crates/engine/vm/ → its text. */
export const VM_SOURCES = {
  "prelude.js": PRELUDE_SOURCE,
  "harness.js": HARNESS_SOURCE,
  "cas-harness.js": CAS_HARNESS_SOURCE,
};

export const VM_SOURCES_DIR = fileURLToPath(new URL("../crates/engine/vm/", import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, text] of Object.entries(VM_SOURCES)) writeFileSync(VM_SOURCES_DIR + name, `${text}\n`);
  console.log(`wrote ${Object.keys(VM_SOURCES).join(", ")} to ${VM_SOURCES_DIR}`);
}
