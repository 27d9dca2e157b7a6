// Loads the two WebAssembly modules the runner needs: QuickJS (the sandbox
// engine) and leaselab (the simulation kernel and the grader).
//
// QuickJS is compiled once, then instantiated many times (about 2 ms each
// from the compiled module). Each submission starts in a fresh instance, and
// its runner's sandbox serves every run from memory sealed once (see
// `sandbox.seal`), so memory stays flat however many schedules are graded.
// An instance whose engine aborted (every call into it then throws) is never
// used again. Instances are made ahead of time (`refill`), because grading
// calls back synchronously.
//
// The same code runs in a browser Web Worker and in Node; only where the
// wasm bytes come from differs, so the caller passes them in.
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import releaseSyncVariant from "@jitl/quickjs-wasmfile-release-sync";
import initLeaselab, * as leaselab from "../web/pkg/leaselab.js";

/** Spare QuickJS instances kept ready before each grading. */
const SPARE_INSTANCES = 4;

/** Each instance's memory: 16 MiB to start (QuickJS's own minimum), 64 MiB at most. */
export const WASM_PAGE_BYTES = 64 * 1024;
export const QUICKJS_MEMORY_INITIAL_BYTES = 16 * 1024 * 1024;
export const QUICKJS_MEMORY_MAXIMUM_BYTES = 64 * 1024 * 1024;

/**
 * A supply of QuickJS instances, all from one compiled module: the current
 * one, which sandboxes are made in, and fresh spares. An instance that may
 * be damaged is `discard`ed and never handed out again while a spare is
 * ready; a dead one (it aborted) never again at all.
 */
class QuickJSPool {
  /** `make()` resolves to a fresh instance; `memoryOf(instance)` is `{ memory, failedGrows }` for its WebAssembly memory. */
  constructor(make, memoryOf) {
    this.make = make;
    /** Tells an out-of-memory from a thrown null (see run-case.js). */
    this.memoryOf = memoryOf;
    this.spare = [];
    /** The instance sandboxes are made in now. */
    this.current = null;
    /** The last discarded instance: used only when no spare is ready (see `take`). */
    this.lastResort = null;
  }

  /** Makes sure `count` fresh instances are ready. */
  async refill(count = SPARE_INSTANCES) {
    while (this.spare.length < count) this.spare.push(await this.make());
  }

  /**
   * The instance to make a sandbox in: the current one, else a fresh spare.
   * When the spares ran out mid-grading (grading calls back synchronously, so
   * none can be made then), the last discarded instance is used again: its
   * abandoned runtimes stay in its memory, so a submission that keeps
   * breaking its sandbox only gets the verdict it earned sooner.
   */
  take() {
    this.current ??= this.spare.pop() ?? null;
    if (this.current) return this.current;
    if (!this.lastResort) throw new Error("no QuickJS instance is ready: call refill() before grading");
    return this.lastResort;
  }

  /**
   * A fresh instance if one is ready (it becomes the current one), else as
   * `take`. A runner's sandbox is made in one, so the memory it seals is the
   * same whether or not something (a preflight) ran in the instance before:
   * a grading and the replay of one of its runs start from the same bytes.
   */
  takeFresh() {
    const fresh = this.spare.pop();
    if (fresh) this.current = fresh;
    return this.take();
  }

  /**
   * Grading a new submission: its sandboxes start in a fresh instance, so
   * nothing an earlier submission did (even to the allocator's free lists)
   * can change how this one runs.
   */
  beginSubmission() {
    this.current = null;
    this.lastResort = null;
  }

  /**
   * The instance may be damaged: never hand it out again while a spare is
   * ready. A `dead` one (it aborted: every call into it throws) is never
   * handed out again at all.
   */
  discard(instance, { dead = false } = {}) {
    if (this.current === instance) this.current = null;
    if (dead) {
      if (this.lastResort === instance) this.lastResort = null;
    } else {
      this.lastResort = instance;
    }
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
    // Instances are made one at a time (`refill` awaits each), so the memory
    // made last belongs to the instance made last. Each memory counts its
    // failed attempts to grow: QuickJS's own out-of-memory error can vanish
    // (a rejected promise, a `catch`, a thrown null), but a failed grow is a
    // fact about the run, and does not depend on how big earlier runs made
    // the memory (sbrk fails at the cap either way).
    let lastMemory = null;
    const wasmMemory = async () => {
      const memory = new WebAssembly.Memory({
        initial: QUICKJS_MEMORY_INITIAL_BYTES / WASM_PAGE_BYTES,
        maximum: QUICKJS_MEMORY_MAXIMUM_BYTES / WASM_PAGE_BYTES,
      });
      const watched = { memory, failedGrows: 0 };
      const grow = memory.grow;
      memory.grow = (pages) => {
        try {
          return grow.call(memory, pages);
        } catch (error) {
          watched.failedGrows += 1;
          throw error;
        }
      };
      lastMemory = watched;
      return memory;
    };
    const variant = newVariant(releaseSyncVariant, { wasmModule: quickjsModule, wasmMemory });
    const memories = new WeakMap();
    const make = async () => {
      const instance = await newQuickJSWASMModuleFromVariant(variant);
      memories.set(instance, lastMemory);
      return instance;
    };
    const pool = new QuickJSPool(make, (instance) => memories.get(instance) ?? null);
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
