// Finding the last non-zero byte of a QuickJS instance's memory, for
// `sealMemory`: it reads up to the whole 16 MiB memory, once per sandbox.
// A JavaScript loop over the words does that in a few milliseconds once V8
// has optimised it, but a grading thread or page worker seals its first
// sandbox while that code is still cold, and there the loop took 50 to 100 ms
// (a profile of the CLI's cold start, BENCHMARKS.md, issue 18). So the loop
// is a tiny WebAssembly function, compiled at once to machine code, reading
// 8 bytes at a time from the instance's own memory. Where it cannot be
// made, the JavaScript loop is used: the same answer, only slower.

/**
 * The module, written out byte by byte (hand-assembled; 98 bytes):
 *
 *   (module
 *     (import "env" "memory" (memory 0))
 *     (func (export "lastNonZero") (param $from i32) (param $to i32) (result i32)
 *       ;; from $to down to $from, 8 bytes at a time: the end of the last
 *       ;; non-zero word, or $from when all are zero (both multiples of 8)
 *       (block $done
 *         (loop $scan
 *           (br_if $done (i32.le_u (local.get $to) (local.get $from)))
 *           (br_if $done (i64.ne (i64.load (i32.sub (local.get $to) (i32.const 8))) (i64.const 0)))
 *           (local.set $to (i32.sub (local.get $to) (i32.const 8)))
 *           (br $scan)))
 *       (local.get $to)))
 */
const SCAN_MODULE_BYTES = new Uint8Array([
  // magic, version
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // type section: (i32, i32) -> i32
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f,
  // import section: "env" "memory", a memory of at least 0 pages, no maximum
  0x02, 0x0f, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x00,
  // function section: one function of type 0
  0x03, 0x02, 0x01, 0x00,
  // export section: "lastNonZero", function 0
  0x07, 0x0f, 0x01, 0x0b, 0x6c, 0x61, 0x73, 0x74, 0x4e, 0x6f, 0x6e, 0x5a, 0x65, 0x72, 0x6f, 0x00, 0x00,
  // code section: one body of 39 bytes, no locals beyond the parameters
  0x0a, 0x29, 0x01, 0x27, 0x00,
  0x02, 0x40, // block
  0x03, 0x40, // loop
  0x20, 0x01, 0x20, 0x00, 0x4d, 0x0d, 0x01, // to <= from: done
  0x20, 0x01, 0x41, 0x08, 0x6b, 0x29, 0x03, 0x00, 0x42, 0x00, 0x52, 0x0d, 0x01, // word below to is not zero: done
  0x20, 0x01, 0x41, 0x08, 0x6b, 0x21, 0x01, // to -= 8
  0x0c, 0x00, // again
  0x0b, // end loop
  0x0b, // end block
  0x20, 0x01, // to
  0x0b, // end function
]);

let scanModule;
try {
  scanModule = new WebAssembly.Module(SCAN_MODULE_BYTES);
} catch {
  scanModule = null;
}

/** True when the WebAssembly scanner is used (where the engine compiles it). */
export const SCANNER_COMPILED = scanModule !== null;

/** Each memory's scanner (an instance importing that memory). */
const scanners = new WeakMap();

/**
 * The end (exclusive) of the last non-zero 8-byte word of `memory` in
 * [from, to), or `from` when every byte there is zero. `from` and `to` are
 * multiples of 8.
 */
export function lastNonZeroEnd(memory, from, to) {
  let scanner = scanners.get(memory);
  if (scanner === undefined) {
    try {
      scanner = scanModule === null ? null : new WebAssembly.Instance(scanModule, { env: { memory } }).exports.lastNonZero;
    } catch {
      scanner = null;
    }
    scanners.set(memory, scanner);
  }
  // Addresses beyond 2 GiB do not fit the function's i32; QuickJS's memory never gets there.
  if (scanner !== null && to < 2 ** 31) return scanner(from, to) >>> 0;
  return lastNonZeroEndInJs(memory, from, to);
}

/** `lastNonZeroEnd`, in JavaScript. */
export function lastNonZeroEndInJs(memory, from, to) {
  const words = new Uint32Array(memory.buffer);
  let last = to / 4 - 1;
  while (last >= from / 4 && words[last] === 0) last -= 1;
  // The end of the 8-byte word that holds the last non-zero 4-byte one.
  return last < from / 4 ? from : Math.ceil(((last + 1) * 4) / 8) * 8;
}
