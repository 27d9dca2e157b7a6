// Loads the two WebAssembly modules the runner needs: QuickJS (the sandbox
// engine) and leaselab (the simulation kernel and the grader).
//
// QuickJS is compiled once, then instantiated many times: every sandbox gets
// an instance of its own (about 2 ms each from the compiled module). A
// sandbox is never disposed, only dropped with its instance: QuickJS aborts
// the whole instance if a runtime is freed while objects leaked (which can
// happen after a stack overflow or an out-of-memory in learner code), and an
// instance that is dropped cannot abort. Instances are made ahead of time
// (`refill`), because grading calls back synchronously.
//
// The same code runs in a browser Web Worker and in Node; only where the
// wasm bytes come from differs, so the caller passes them in.
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import releaseSyncVariant from "@jitl/quickjs-wasmfile-release-sync";
import initLeaselab, * as leaselab from "../../pkg/leaselab.js";

/** Spare QuickJS instances kept ready before each grading. */
const SPARE_INSTANCES = 4;

/** Each instance's memory: 16 MiB to start (QuickJS's own minimum), 64 MiB at most. */
const WASM_PAGE_BYTES = 64 * 1024;
export const QUICKJS_MEMORY_INITIAL_BYTES = 16 * 1024 * 1024;
export const QUICKJS_MEMORY_MAXIMUM_BYTES = 64 * 1024 * 1024;

/** A supply of fresh QuickJS instances, all from one compiled module. */
class QuickJSPool {
  constructor(variant) {
    this.variant = variant;
    this.spare = [];
    /** Used when the spares run out mid-grading (see `take`). */
    this.fallback = null;
  }

  /** Makes sure `count` fresh instances are ready. */
  async refill(count = SPARE_INSTANCES) {
    while (this.spare.length < count) this.spare.push(await newQuickJSWASMModuleFromVariant(this.variant));
    this.fallback = null;
  }

  /**
   * A fresh instance if one is ready; otherwise the last one handed out is
   * shared (its abandoned runtimes stay in its memory until the next refill).
   */
  take() {
    const fresh = this.spare.pop();
    if (fresh) {
      this.fallback = fresh;
      return fresh;
    }
    if (!this.fallback) throw new Error("no QuickJS instance is ready: call refill() before grading");
    return this.fallback;
  }
}

let loading = null;

/**
 * Both engines: `{ quickjs: QuickJSPool, leaselab }`.
 * `sources.quickjsWasm` and `sources.leaselabWasm` are the wasm files' bytes
 * (Node) or URLs (browser).
 */
export function loadEngines(sources) {
  loading ??= (async () => {
    const quickjsModule = await compile(sources.quickjsWasm);
    // QuickJS's own memory limit does not see large allocations in this
    // build, so the limit is the instance's memory itself: a fixed maximum
    // makes a memory bomb fail fast with "out of memory" inside the VM.
    const wasmMemory = async () =>
      new WebAssembly.Memory({
        initial: QUICKJS_MEMORY_INITIAL_BYTES / WASM_PAGE_BYTES,
        maximum: QUICKJS_MEMORY_MAXIMUM_BYTES / WASM_PAGE_BYTES,
      });
    const pool = new QuickJSPool(newVariant(releaseSyncVariant, { wasmModule: quickjsModule, wasmMemory }));
    await Promise.all([pool.refill(), initLeaselab({ module_or_path: sources.leaselabWasm })]);
    return { quickjs: pool, leaselab };
  })();
  return loading;
}

async function compile(source) {
  if (source instanceof URL || typeof source === "string") {
    return WebAssembly.compileStreaming(fetch(source));
  }
  return WebAssembly.compile(source);
}
