// The grader's wasm as the page downloads it: gzip-compressed, under a name
// that carries a hash of its bytes (`leaselab_bg.<hash>.wasm.gz`).
//
// Compressed here, so its bytes cross the network compressed on any static
// host, one that compresses nothing included (the page unpacks it,
// web/src/runner/grader-module.js); hashed, so a host may let browsers keep
// it for good (web/serve.mjs does) and a new build can never be paired with
// an old module.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** The file `cargo xtask build` copies into the page's folder. */
export const GRADER_WASM = "leaselab_bg.wasm";

/** The packed name of `bytes`: `leaselab_bg.<first 16 hex digits of their SHA-256>.wasm.gz`. */
export function packedName(bytes) {
  return `leaselab_bg.${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.wasm.gz`;
}

/**
 * Replaces `dir`'s `leaselab_bg.wasm` with its packed form; returns
 * `{ file, gzipBytes, wasmBytes }`, or null when `dir` holds no grader (a
 * page rendered on its own, for a test).
 */
export function packGraderWasm(dir) {
  const path = join(dir, GRADER_WASM);
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  const packed = gzipSync(bytes, { level: 9 });
  const file = packedName(bytes);
  writeFileSync(join(dir, file), packed);
  rmSync(path);
  return { file, gzipBytes: packed.length, wasmBytes: bytes.length };
}
