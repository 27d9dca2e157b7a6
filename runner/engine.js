// Loads the grader's WebAssembly module (crates/wasm with the `grader`
// feature): the engine, with QuickJS-ng compiled in, the simulation and the
// grader, in one module. Every grading, replay and lab run happens inside it.
//
// The same code runs in a browser Web Worker and in Node; only where the
// module comes from differs, so the caller passes it in.
import * as leaselab from "../web/pkg/leaselab.js";
import { compileWasm } from "./wasm-fetch.js";

let loading = null;

/**
 * `{ leaselab }`: wasm-bindgen's glue, its module instantiated.
 * `sources.leaselabWasm` is the module's bytes (Node), its URL (browser), or
 * the module already compiled (a page that compiles it once for all its workers).
 */
export function loadEngines(sources) {
  loading ??= (async () => {
    const module = await compile(sources.leaselabWasm);
    // Instantiated synchronously from the compiled module: the glue's async
    // init first asks whether its argument is a fetch `Response`, and in
    // Node the first mention of `Response` loads Node's fetch (undici),
    // about 30 ms of every grading thread's start.
    leaselab.initSync({ module });
    return { leaselab };
  })();
  return loading;
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  // A URL (browser: whatever MIME type the host sends, see wasm-fetch.js) or the bytes (Node).
  if (source instanceof URL || typeof source === "string") return compileWasm(source);
  return WebAssembly.compile(source);
}
