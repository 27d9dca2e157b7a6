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
import * as leaselab from "../web/pkg/leaselab.js";
import { compileWasm, compileWasmAndRead } from "./wasm-fetch.js";

/** Spare QuickJS instances kept ready before each grading. */
const SPARE_INSTANCES = 4;

/**
 * Each instance's memory: 16 MiB to start (QuickJS's own minimum), 32 MiB at
 * most. Nothing but a memory bomb grows it at all (the lesson's solutions,
 * the accuracy corpus's 49 files, right and wrong, at 200 seeds, and every
 * hostile file that must pass all run within the first 16 MiB), and a
 * memory bomb's runs cost in proportion to the cap, because QuickJS copies
 * a growing array or string element by element: at 64 MiB the hostile
 * corpus's eight memory files took 11.0 CPU-s to grade, at 32 MiB 4.4
 * (BENCHMARKS.md).
 */
export const WASM_PAGE_BYTES = 64 * 1024;
export const QUICKJS_MEMORY_INITIAL_BYTES = 16 * 1024 * 1024;
export const QUICKJS_MEMORY_MAXIMUM_BYTES = 32 * 1024 * 1024;

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
 * Both engines: `{ quickjs: QuickJSPool, leaselab, spareLeaselab }`
 * (`spareLeaselab()` resolves to a fresh instance of leaselab's module, the
 * first time it is asked).
 * `sources.quickjsWasm` and `sources.leaselabWasm` are the wasm files' bytes
 * (Node) or URLs (browser).
 */
export function loadEngines(sources) {
  loading ??= (async () => {
    // Grading runs in the engine, inside leaselab's module; QuickJS's own
    // module serves lab mode and the JavaScript runner, so it is compiled and
    // instantiated only when one of them first asks for an instance
    // (`refill`): four idle instances cost 64 MiB in every grading thread.
    let quickjsCompiled = null;
    const quickjs = () => (quickjsCompiled ??= compileWithLayout(sources.quickjsWasm));
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
      const watched = { memory, failedGrows: 0, layout: (await quickjs()).layout };
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
    // quickjs-emscripten's own JavaScript too: loaded with the first instance.
    let library = null;
    const loadLibrary = () =>
      (library ??= Promise.all([import("quickjs-emscripten-core"), import("@jitl/quickjs-wasmfile-release-sync")]).then(([core, variant]) => ({
        core,
        releaseSyncVariant: variant.default,
      })));
    let variant = null;
    const memories = new WeakMap();
    const make = async () => {
      const { core, releaseSyncVariant } = await loadLibrary();
      variant ??= core.newVariant(releaseSyncVariant, { wasmModule: (await quickjs()).module, wasmMemory });
      const instance = await core.newQuickJSWASMModuleFromVariant(variant);
      memories.set(instance, lastMemory);
      return instance;
    };
    const pool = new QuickJSPool(make, (instance) => memories.get(instance) ?? null);
    const leaselabModule = await compile(sources.leaselabWasm);
    // Instantiated synchronously from the compiled module: the glue's async
    // init first asks whether its argument is a fetch `Response`, and in
    // Node the first mention of `Response` loads Node's fetch (undici),
    // about 30 ms of every grading thread's start.
    leaselab.initSync({ module: leaselabModule });
    // A second instance of the same module, for after the engine broke down
    // in the first (runner/grade.js): wasm-bindgen's glue holds one instance
    // per copy of its file, so xtask writes a second copy (leaselab_spare.js).
    // Made once, from the module already compiled, only when asked.
    let spare = null;
    const spareLeaselab = () =>
      (spare ??= import("../web/pkg/leaselab_spare.js").then((glue) => {
        glue.initSync({ module: leaselabModule });
        return glue;
      }));
    return { quickjs: pool, leaselab, spareLeaselab };
  })();
  return loading;
}

/** A URL (browser: whatever MIME type the host sends, see wasm-fetch.js) or the bytes (Node). */
async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof URL || typeof source === "string") return compileWasm(source);
  return WebAssembly.compile(source);
}

/**
 * The compiled QuickJS module, and where its memory's parts are (see
 * `memoryLayout`). In a browser the module comes by URL (see wasm-fetch.js,
 * which also hands back its bytes, for the layout).
 */
async function compileWithLayout(source) {
  if (source instanceof URL || typeof source === "string") {
    const { module, bytes } = await compileWasmAndRead(source);
    return { module, layout: memoryLayout(bytes) };
  }
  return { module: await WebAssembly.compile(source), layout: memoryLayout(new Uint8Array(source.buffer ?? source, source.byteOffset ?? 0, source.byteLength)) };
}

/**
 * Where an emscripten-built module keeps its static data and its stack, read
 * from the module's bytes: `{ dataEnd, stackTop }`, or null when the module
 * does not have the expected shape (the sandbox then restores its whole used
 * memory, as before). `dataEnd` is the end of the last data segment (the
 * zero-initialised statics follow it, before the stack); `stackTop` is the
 * initial value of the stack pointer (global 0, a mutable i32): the stack
 * grows down from it, the heap starts at it.
 */
export function memoryLayout(bytes) {
  let at = 8;
  /** A LEB128 number: unsigned, or a signed 32-bit one. */
  const leb = (signed = false) => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return signed && byte & 0x40 ? result - 2 ** shift : result;
  };
  const unsigned = () => leb();
  const signed32 = () => leb(true);
  let stackTop = null;
  let dataEnd = null;
  try {
    if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return null;
    while (at < bytes.length) {
      const id = bytes[at++];
      const size = unsigned();
      const end = at + size;
      if (id === 2) {
        // Imported globals would come before global 0: this shape has none.
        const count = unsigned();
        for (let index = 0; index < count; index += 1) {
          const moduleName = unsigned();
          at += moduleName;
          const fieldName = unsigned();
          at += fieldName;
          const kind = bytes[at++];
          if (kind === 3) return null;
          if (kind === 0) unsigned();
          else if (kind === 1) {
            at += 1;
            const flags = unsigned();
            unsigned();
            if (flags & 1) unsigned();
          } else if (kind === 2) {
            const flags = unsigned();
            unsigned();
            if (flags & 1) unsigned();
          } else return null;
        }
      } else if (id === 6) {
        unsigned();
        const type = bytes[at++];
        const mutable = bytes[at++];
        const opcode = bytes[at++];
        if (type !== 0x7f || mutable !== 1 || opcode !== 0x41) return null;
        stackTop = signed32();
      } else if (id === 11) {
        const count = unsigned();
        for (let index = 0; index < count; index += 1) {
          const flags = unsigned();
          if (flags === 1) {
            const length = unsigned();
            at += length;
            continue;
          }
          if (flags === 2) unsigned();
          if (flags !== 0 && flags !== 2) return null;
          if (bytes[at++] !== 0x41) return null;
          const offset = signed32();
          if (bytes[at++] !== 0x0b) return null;
          const length = unsigned();
          at += length;
          dataEnd = Math.max(dataEnd ?? 0, offset + length);
        }
      }
      at = end;
    }
  } catch {
    return null;
  }
  if (stackTop === null || dataEnd === null || !(stackTop > dataEnd)) return null;
  return { dataEnd, stackTop };
}
