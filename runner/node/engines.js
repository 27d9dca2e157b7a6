// Loading the runner's engines in Node: the leaselab wasm is read from the
// built package (web/pkg, made by `cargo xtask build`), QuickJS's from its
// npm package.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import initLeaselab, * as leaselab from "../../web/pkg/leaselab.js";
import { loadEngines } from "../engine.js";
import { registryFromJson, registryOf } from "../registry.js";
import { customSection, REGISTRY_SECTION } from "../wasm-sections.js";

const LEASELAB_WASM = fileURLToPath(new URL("../../web/pkg/leaselab_bg.wasm", import.meta.url));
const QUICKJS_WASM = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");

async function readLeaselabWasm() {
  try {
    return await readFile(LEASELAB_WASM);
  } catch {
    throw new Error(`the grader's WebAssembly module is not built (${LEASELAB_WASM} is missing); run \`cargo xtask build\` first`);
  }
}

/** `{ quickjs, leaselab }`, or an error that says how to build the wasm. */
export async function loadNodeEngines() {
  return loadEngines({ leaselabWasm: await readLeaselabWasm(), quickjsWasm: await readFile(QUICKJS_WASM) });
}

/**
 * The exercise registry (see registry.js) without QuickJS: for the CLI's
 * arguments and reports, and for tests that enumerate the exercises. Read
 * from the module's registry section (added at build time from the module's
 * own `exerciseRegistry()`), so the module is not compiled for it; a module
 * without the section (built by hand) is instantiated and asked.
 */
export async function loadNodeRegistry() {
  const bytes = await readLeaselabWasm();
  let section;
  try {
    section = customSection(bytes, REGISTRY_SECTION);
  } catch (error) {
    throw new Error(`${LEASELAB_WASM} cannot be read: ${error.message}; run \`cargo xtask build\` again (or reinstall the package)`);
  }
  if (section !== null) return registryFromJson(new TextDecoder().decode(section));
  await initLeaselab({ module_or_path: bytes });
  return registryOf(leaselab);
}
