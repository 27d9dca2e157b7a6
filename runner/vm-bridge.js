// The runner's hot path into QuickJS: calling a function, running promise
// jobs and handing over text, once or more per simulated step.
// quickjs-emscripten's own `callFunction` allocates the argument array with
// malloc and builds two typed arrays on every call, and `executePendingJobs`
// one more array (together about 6% of a lease grading's profile,
// BENCHMARKS.md, issue 18).
// These do the same through the same FFI functions, with one scratch array
// allocated when the sandbox is made. They use quickjs-emscripten-core's
// internals (`ffi`, `ctx`, `rt`, `memory`, `success`, `fail`) of the version
// package.json pins; where those are missing, the public API is used, so a
// different version is slower, never wrong.

/** The most arguments the scratch array holds; a call with more uses `callFunction`. */
const ARGS_MAX = 8;

/** Encodes the host's text as UTF-8, natively (see `newString`). */
const utf8 = new TextEncoder();
/**
 * Text at least this long is encoded natively. Shorter text (a step's
 * delivery, some tens of characters) is as quick the library's way, and
 * quicker in Chromium, where each call to the encoder costs more: in Node,
 * 50 characters took 0.40 µs the library's way and 0.47 natively, 150 took
 * 0.96 and 0.69, and 3,000 took 13.2 and 3.4.
 */
const NATIVE_TEXT_MIN = 256;

/**
 * `{ call(fn, thisHandle, args), executeJobs(max), newString(text),
 * dispose() }` for context `vm` of `runtime`: `call` answers as
 * `vm.callFunction` does, `executeJobs` as `runtime.executePendingJobs`
 * (`{ value: jobs }` or `{ error: handle }`), and `newString` as
 * `vm.newString`. Make it before the sandbox is sealed: its scratch array is
 * then part of the sealed memory.
 */
export function createVmBridge(vm, runtime) {
  const { ffi, module, memory } = vm;
  const ctx = vm.ctx?.value;
  const rt = runtime.rt?.value;
  const usable =
    typeof ctx === "number" &&
    typeof rt === "number" &&
    typeof ffi?.QTS_Call === "function" &&
    typeof ffi.QTS_ResolveException === "function" &&
    typeof ffi.QTS_FreeValuePointer === "function" &&
    typeof ffi.QTS_ExecutePendingJob === "function" &&
    typeof ffi.QTS_FreeValuePointerRuntime === "function" &&
    typeof ffi.QTS_NewString === "function" &&
    typeof module?._malloc === "function" &&
    typeof module._free === "function" &&
    module.HEAPU8 instanceof Uint8Array &&
    typeof memory?.heapValueHandle === "function" &&
    typeof vm.success === "function" &&
    typeof vm.fail === "function";
  if (!usable) {
    return {
      call: (fn, thisHandle, args) => vm.callFunction(fn, thisHandle, ...args),
      executeJobs: (max) => runtime.executePendingJobs(max),
      newString: (text) => vm.newString(text),
      dispose() {},
    };
  }
  // Words: the arguments' value pointers, then one for the job's context.
  const scratch = module._malloc(4 * (ARGS_MAX + 1));
  const contextOut = scratch + 4 * ARGS_MAX;
  /** The memory as 32-bit words; made again when the memory grew (a new buffer). */
  let words = new Int32Array(module.HEAPU8.buffer);
  const wordsNow = () => {
    if (words.buffer !== module.HEAPU8.buffer) words = new Int32Array(module.HEAPU8.buffer);
    return words;
  };
  return {
    call(fn, thisHandle, args) {
      if (args.length > ARGS_MAX) return vm.callFunction(fn, thisHandle, ...args);
      const heap = wordsNow();
      for (let index = 0; index < args.length; index += 1) heap[(scratch >> 2) + index] = args[index].value;
      const resultPtr = ffi.QTS_Call(ctx, fn.value, thisHandle.value, args.length, scratch);
      const errorPtr = ffi.QTS_ResolveException(ctx, resultPtr);
      if (errorPtr) {
        ffi.QTS_FreeValuePointer(ctx, resultPtr);
        return vm.fail(memory.heapValueHandle(errorPtr));
      }
      return vm.success(memory.heapValueHandle(resultPtr));
    },
    executeJobs(max) {
      const valuePtr = ffi.QTS_ExecutePendingJob(rt, max, contextOut);
      // No job ran (no context to answer in): nothing to read.
      if (wordsNow()[contextOut >> 2] === 0) {
        ffi.QTS_FreeValuePointerRuntime(rt, valuePtr);
        return { value: 0 };
      }
      // The sandbox's runtime has this one context: the jobs ran in it.
      const result = memory.heapValueHandle(valuePtr);
      if (vm.typeof(result) === "number") {
        const jobs = vm.getNumber(result);
        result.dispose();
        return { value: jobs };
      }
      return { error: result };
    },
    /**
     * The library's `newString` measures and writes the text one character
     * at a time in JavaScript (a tenth of a cas suite, whose operations
     * cross as a few KB of JSON each run); `TextEncoder` makes the same
     * bytes natively. The same bytes only for well-formed text: the
     * library writes a lone surrogate as itself, the encoder as U+FFFD, so
     * such text (which the runner never sends: its texts are JSON.stringify's
     * or the simulation's) goes the library's way. The buffer in QuickJS's
     * memory is exactly as large as the library's, so its heap is used the
     * same way, byte for byte.
     */
    newString(text) {
      if (text.length < NATIVE_TEXT_MIN || !text.isWellFormed()) return vm.newString(text);
      const encoded = utf8.encode(text);
      const pointer = module._malloc(encoded.length + 1);
      if (pointer === 0) return vm.newString(text);
      const bytes = module.HEAPU8;
      bytes.set(encoded, pointer);
      bytes[pointer + encoded.length] = 0;
      const valuePtr = ffi.QTS_NewString(ctx, pointer);
      module._free(pointer);
      return memory.heapValueHandle(valuePtr);
    },
    dispose() {
      module._free(scratch);
    },
  };
}
