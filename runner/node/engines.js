// Loading the grader's module in Node: read from the built package
// (web/pkg, made by `cargo xtask build`).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as leaselab from "../../web/pkg/leaselab.js";
import { loadEngines } from "../engine.js";
import { registryFromJson, registryOf, rememberRegistry } from "../registry.js";
import { customSection, REGISTRY_SECTION } from "../wasm-sections.js";

const LEASELAB_WASM = fileURLToPath(new URL("../../web/pkg/leaselab_bg.wasm", import.meta.url));

async function readLeaselabWasm() {
  try {
    return await readFile(LEASELAB_WASM);
  } catch {
    throw new Error(`the grader's WebAssembly module is not built (${LEASELAB_WASM} is missing); run \`cargo xtask build\` first`);
  }
}

/** `{ leaselab }`, or an error that says how to build the wasm. */
export async function loadNodeEngines() {
  const bytes = await readLeaselabWasm();
  const section = registrySection(bytes);
  const engines = await loadEngines({ leaselabWasm: bytes });
  if (section !== null) rememberRegistry(engines.leaselab, section);
  return engines;
}

/** The registry section's JSON text, or null for a module built without it. */
function registrySection(bytes) {
  let section;
  try {
    section = customSection(bytes, REGISTRY_SECTION);
  } catch (error) {
    throw new Error(`${LEASELAB_WASM} cannot be read: ${error.message}; run \`cargo xtask build\` again (or reinstall the package)`);
  }
  return section === null ? null : new TextDecoder().decode(section);
}

/**
 * The exercise registry (see registry.js) without compiling the module: for the CLI's
 * arguments and reports, and for tests that enumerate the exercises. Read
 * from the module's registry section (added at build time from the module's
 * own `exerciseRegistry()`), so the module is not compiled for it; a module
 * without the section (built by hand) is instantiated and asked.
 */
export async function loadNodeRegistry() {
  const bytes = await readLeaselabWasm();
  const section = registrySection(bytes);
  if (section !== null) return registryFromJson(section);
  leaselab.initSync({ module: bytes });
  return registryOf(leaselab);
}
