// Custom sections of a WebAssembly module, read and added without
// compiling it. The grader's module carries its exercise registry in one
// (`REGISTRY_SECTION`), added at build time from the module's own
// `exerciseRegistry()`, so a host that only needs the registry (the CLI's
// main thread: which exercises exist, their files, the default budget) reads
// it from the file instead of compiling and instantiating 3 MB of wasm.

/** The custom section that holds the grader module's `exerciseRegistry()` JSON. */
export const REGISTRY_SECTION = "leaselab.registry";

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** An unsigned LEB128 number at `at`: `{ value, next }`. */
function readUnsigned(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length || shift > 28) throw new Error("a WebAssembly module ends inside a number");
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: at };
  }
}

function unsigned(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** The payload of the first custom section called `name` in `bytes` (a Uint8Array), or null. */
export function customSection(bytes, name) {
  if (bytes.length < 8 || MAGIC_AND_VERSION.some((byte, index) => bytes[index] !== byte)) throw new Error("not a WebAssembly module (version 1)");
  const wanted = new TextEncoder().encode(name);
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const size = readUnsigned(bytes, at + 1);
    const end = size.next + size.value;
    if (end > bytes.length) throw new Error("a WebAssembly module ends inside a section");
    if (id === 0) {
      const length = readUnsigned(bytes, size.next);
      const nameEnd = length.next + length.value;
      if (nameEnd > end) throw new Error("a WebAssembly module's custom section is shorter than its name");
      if (length.value === wanted.length && wanted.every((byte, index) => bytes[length.next + index] === byte)) return bytes.subarray(nameEnd, end);
    }
    at = end;
  }
  return null;
}

/** `bytes` with a custom section `name` holding `payload` (a Uint8Array) added at the end; refuses a second one. */
export function withCustomSection(bytes, name, payload) {
  if (customSection(bytes, name) !== null) throw new Error(`the module already has a custom section ${name}`);
  const nameBytes = new TextEncoder().encode(name);
  const body = [...unsigned(nameBytes.length), ...nameBytes];
  const header = [0, ...unsigned(body.length + payload.length), ...body];
  const out = new Uint8Array(bytes.length + header.length + payload.length);
  out.set(bytes, 0);
  out.set(header, bytes.length);
  out.set(payload, bytes.length + header.length);
  return out;
}
