// Adds the exercise registry to the grader's built module as a custom
// section (runner/wasm-sections.js), from that very module's
// `exerciseRegistry()`: xtask runs this right after making
// web/pkg/leaselab_bg.wasm, so the two can never disagree.
//
//   node runner/node/embed-registry.mjs web/pkg/leaselab_bg.wasm
import { readFileSync, writeFileSync } from "node:fs";
import { initSync, exerciseRegistry } from "../../web/pkg/leaselab.js";
import { REGISTRY_SECTION, withCustomSection } from "../wasm-sections.js";

const [path] = process.argv.slice(2);
if (!path) throw new Error("usage: node runner/node/embed-registry.mjs <the grader's leaselab_bg.wasm>");
const bytes = readFileSync(path);
initSync({ module: bytes });
const registry = exerciseRegistry();
JSON.parse(registry);
writeFileSync(path, withCustomSection(bytes, REGISTRY_SECTION, new TextEncoder().encode(registry)));
