// A minimal ustar writer: regular files only, enough to hand the learner's
// solutions over in one download that every system's `tar` reads.

const BLOCK_BYTES = 512;
const encoder = new TextEncoder();

/**
 * `files`: [{ name, text }], names as "folder/file.js" (ASCII, at most 100
 * bytes). `mtimeSeconds`: the files' modification time. Returns the archive.
 */
export function makeTar(files, mtimeSeconds = 0) {
  const blocks = [];
  for (const file of files) {
    const body = encoder.encode(file.text);
    blocks.push(header(file.name, body.length, mtimeSeconds), padded(body));
  }
  blocks.push(new Uint8Array(BLOCK_BYTES * 2));
  const archive = new Uint8Array(blocks.reduce((sum, block) => sum + block.length, 0));
  let offset = 0;
  for (const block of blocks) {
    archive.set(block, offset);
    offset += block.length;
  }
  return archive;
}

function header(name, size, mtimeSeconds) {
  const nameBytes = encoder.encode(name);
  if (nameBytes.length === 0 || nameBytes.length > 100 || /[^\x20-\x7e]/.test(name)) {
    throw new Error(`tar: the file name "${name}" must be 1 to 100 printable ASCII characters`);
  }
  const block = new Uint8Array(BLOCK_BYTES);
  const put = (text, offset) => block.set(encoder.encode(text), offset);
  const octal = (value, width) => `${value.toString(8).padStart(width - 1, "0")}\0`;
  block.set(nameBytes, 0);
  put(octal(0o644, 8), 100); // mode
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(size, 12), 124);
  put(octal(Math.max(0, Math.floor(mtimeSeconds)), 12), 136);
  put("        ", 148); // checksum, counted as spaces
  put("0", 156); // regular file
  put("ustar\0", 257);
  put("00", 263);
  put("leaselab", 265); // owner name
  put("leaselab", 297); // group name
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  put(`${checksum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

function padded(bytes) {
  const length = Math.ceil(bytes.length / BLOCK_BYTES) * BLOCK_BYTES;
  const block = new Uint8Array(length);
  block.set(bytes);
  return block;
}

/** The tar format's limits on what `readTar` accepts: a learner's export is a few files of a few KB. */
const READ_FILES_MAX = 64;
const READ_BYTES_MAX = 8 * 1024 * 1024;

/**
 * The regular files of a ustar (or old-style tar) archive, `[{ name, text }]`,
 * as UTF-8 text. Throws an Error saying what is wrong when `bytes` is not a
 * tar archive this page can read.
 */
export function readTar(bytes) {
  if (!(bytes instanceof Uint8Array)) throw new Error("readTar: expected the archive's bytes");
  if (bytes.length > READ_BYTES_MAX) throw new Error(`the file is larger than ${READ_BYTES_MAX / 1024 / 1024} MiB, far larger than an export`);
  if (bytes.length < BLOCK_BYTES || bytes.length % BLOCK_BYTES !== 0) throw new Error("it is not a tar archive (its size is not a whole number of 512-byte blocks)");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const field = (block, offset, length) => {
    const end = block.indexOf(0, offset);
    return new TextDecoder().decode(block.subarray(offset, end === -1 || end > offset + length ? offset + length : end));
  };
  const files = [];
  let offset = 0;
  while (offset + BLOCK_BYTES <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK_BYTES);
    if (block.every((byte) => byte === 0)) break;
    const stored = Number.parseInt(field(block, 148, 8).trim(), 8);
    let sum = 0;
    for (let index = 0; index < BLOCK_BYTES; index += 1) sum += index >= 148 && index < 156 ? 32 : block[index];
    if (stored !== sum) throw new Error("it is not a tar archive (a header's checksum is wrong)");
    const size = Number.parseInt(field(block, 124, 12).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0 || offset + BLOCK_BYTES + size > bytes.length) throw new Error("the tar archive is cut short");
    const type = String.fromCharCode(block[156] || 48);
    const prefix = field(block, 345, 155);
    const name = prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100);
    if (type === "0") {
      if (files.length >= READ_FILES_MAX) throw new Error(`the archive holds more than ${READ_FILES_MAX} files, far more than an export`);
      let text;
      try {
        text = decoder.decode(bytes.subarray(offset + BLOCK_BYTES, offset + BLOCK_BYTES + size));
      } catch {
        throw new Error(`${name} in the archive is not UTF-8 text`);
      }
      files.push({ name, text });
    }
    offset += BLOCK_BYTES + Math.ceil(size / BLOCK_BYTES) * BLOCK_BYTES;
  }
  return files;
}
