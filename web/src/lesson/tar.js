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
