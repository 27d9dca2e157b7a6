// The grader module's registry section (runner/wasm-sections.js): added at
// build time from the module's own `exerciseRegistry()`, it lets a host that
// needs only the registry (the CLI's main thread) read it without compiling
// 3 MB of wasm. The section must say exactly what the module says, and
// reading the registry must not compile the module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import initLeaselab, * as leaselab from "../web/pkg/leaselab.js";
import { loadNodeRegistry } from "../runner/node/engines.js";
import { registryOf } from "../runner/registry.js";
import { customSection, REGISTRY_SECTION, withCustomSection } from "../runner/wasm-sections.js";

const WASM = fileURLToPath(new URL("../web/pkg/leaselab_bg.wasm", import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

test("the built module's registry section is the module's own exerciseRegistry(), byte for byte", async () => {
  const bytes = readFileSync(WASM);
  const section = customSection(bytes, REGISTRY_SECTION);
  assert.ok(section, `web/pkg/leaselab_bg.wasm has no ${REGISTRY_SECTION} section: cargo xtask build adds it`);
  await initLeaselab({ module_or_path: bytes });
  assert.equal(new TextDecoder().decode(section), leaselab.exerciseRegistry());
  // The registry's data (its two lookup functions are closures of each).
  assert.equal(JSON.stringify(await loadNodeRegistry()), JSON.stringify(registryOf(leaselab)));
});

test("loadNodeRegistry reads the section without compiling or instantiating any WebAssembly", () => {
  const script = `
    let touched = 0;
    for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming", "validate"]) {
      const original = WebAssembly[name];
      WebAssembly[name] = (...args) => { touched += 1; return original.apply(WebAssembly, args); };
    }
    const Module = WebAssembly.Module;
    WebAssembly.Module = function (...args) { touched += 1; return new Module(...args); };
    const { loadNodeRegistry } = await import("./runner/node/engines.js");
    const registry = await loadNodeRegistry();
    console.log(JSON.stringify({ touched, exercises: registry.names.length }));`;
  const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" }));
  assert.equal(out.touched, 0, "no WebAssembly was compiled or instantiated for the registry");
  assert.ok(out.exercises > 0);
});

test("custom sections: added at the end, read back, never twice; a broken module is named as such", () => {
  const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  const payload = new TextEncoder().encode("x".repeat(300));
  const added = withCustomSection(empty, "some.name", payload);
  assert.ok(WebAssembly.validate(added), "still a valid module");
  assert.deepEqual(WebAssembly.Module.customSections(new WebAssembly.Module(added), "some.name").map((section) => new Uint8Array(section)), [payload]);
  assert.deepEqual(customSection(added, "some.name"), payload);
  assert.equal(customSection(added, "other.name"), null);
  assert.throws(() => withCustomSection(added, "some.name", payload), /already has a custom section some\.name/);
  assert.throws(() => customSection(added.subarray(0, added.length - 1), "some.name"), /ends inside a section/);
  assert.throws(() => customSection(new Uint8Array([1, 2, 3]), "some.name"), /not a WebAssembly module/);
});
