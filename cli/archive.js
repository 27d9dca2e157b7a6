// Reading a learner's .zip or .tar (plain or gzip) as untrusted bytes, in
// memory: nothing is ever written to disk, so a name such as `../../x` can
// do no harm, but it is still refused, as is anything that is not a regular
// file. Only what the grader will read is decompressed, each file at most
// SOURCE_BYTES_MAX bytes however large it claims to be, so a zip bomb costs
// a few kilobytes of work; the archive itself, its number of entries and
// (for a gzip tar, which must be unpacked whole to be listed) its unpacked
// size are capped too.
//
// Written here rather than taken from a package: the two formats' read side
// is a few pages over Node's own zlib, and every cap sits where the bytes are
// read, which a streaming extractor would need wrapping to give.
import { gunzipSync, inflateRawSync } from "node:zlib";
import { SOURCE_BYTES_MAX } from "../runner/limits.js";

/** The largest archive read at all (a submission is a few files of a few KB). */
export const ARCHIVE_BYTES_MAX = 32 * 1024 * 1024;
/** The most entries (files, folders, links) an archive may hold. */
export const ARCHIVE_ENTRIES_MAX = 2000;
/** The most bytes a gzip tar may unpack to. */
export const ARCHIVE_UNPACKED_BYTES_MAX = 64 * 1024 * 1024;

/** An archive that cannot be read; the message says why, in words for whoever made it. */
export class ArchiveError extends Error {}

/** An entry that cannot be read (encrypted, too large, damaged); the message says why. */
export class EntryError extends Error {}

/** "zip", "tar", "tar.gz", or null: what a file is, from its name or, failing that, its first bytes. */
export function archiveKind(name, head = null) {
  const lower = name.toLowerCase();
  if (lower.endsWith(".zip")) return "zip";
  if (lower.endsWith(".tar")) return "tar";
  if (lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) return "tar.gz";
  if (head === null || lower.endsWith(".js")) return null;
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return "zip";
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  if (head.length >= 262 && String.fromCharCode(...head.subarray(257, 262)) === "ustar") return "tar";
  return null;
}

/**
 * The entries of an archive of `kind` held in `bytes`: `[{ path, kind, size,
 * target?, unsafe?, read() }]`, `kind` one of "file", "folder", "link",
 * "other"; a path is relative, with `/` between folders and none at the end,
 * except an `unsafe` entry's, whose name leads out of the archive (it is
 * never read). `read()`
 * returns a file's bytes (at most SOURCE_BYTES_MAX + 1 of them, so the
 * caller can tell it was too large) or throws EntryError. Throws
 * ArchiveError when the archive as a whole cannot be read.
 */
export function readArchive(kind, bytes) {
  if (bytes.length > ARCHIVE_BYTES_MAX) throw new ArchiveError(`it is ${megabytes(bytes.length)}, over the ${megabytes(ARCHIVE_BYTES_MAX)} an archive may be (a submission is a few files of a few KB)`);
  if (kind === "zip") return zipEntries(bytes);
  if (kind === "tar") return tarEntries(bytes);
  let unpacked;
  try {
    unpacked = gunzipSync(bytes, { maxOutputLength: ARCHIVE_UNPACKED_BYTES_MAX });
  } catch (error) {
    if (error.code === "ERR_BUFFER_TOO_LARGE") throw new ArchiveError(`it unpacks to more than ${megabytes(ARCHIVE_UNPACKED_BYTES_MAX)}, far more than a submission`);
    throw new ArchiveError("it is not a gzip file that can be unpacked (damaged or cut short?)");
  }
  return tarEntries(unpacked);
}

function megabytes(bytes) {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/**
 * A path as the archive names it, made relative with `/` separators, or
 * null for one that leaves the archive (absolute, a drive letter, `..`).
 */
function cleanPath(raw) {
  const path = raw.replace(/\\/g, "/");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return null;
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return null;
  return parts.join("/");
}

/** An entry whose path leaves the archive: listed, never read. */
function unsafeEntry(raw) {
  return { path: raw, unsafe: true, kind: "other", size: 0, read: refuse("its name leads out of the archive") };
}

function refuse(why) {
  return () => {
    throw new EntryError(why);
  };
}

// ---- zip ----------------------------------------------------------------

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const UNIX_HOST = 3;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

function zipEntries(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (offset) => view.getUint16(offset, true);
  const u32 = (offset) => view.getUint32(offset, true);
  // The end record is the last 22 bytes, or sits before a comment of at most 65535.
  let end = -1;
  for (let offset = bytes.length - 22; offset >= Math.max(0, bytes.length - 22 - 0xffff); offset -= 1) {
    if (u32(offset) === END_OF_CENTRAL_DIRECTORY) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw new ArchiveError("it is not a zip archive that can be read (no central directory: damaged or cut short?)");
  const count = u16(end + 10);
  const directorySize = u32(end + 12);
  const directoryOffset = u32(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new ArchiveError("it is a ZIP64 archive, which is not read (a submission is a few KB: zip the files again with an ordinary zip tool)");
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0) throw new ArchiveError("it is one part of a zip split over several files; zip the files again as one archive");
  if (count > ARCHIVE_ENTRIES_MAX) throw new ArchiveError(`it holds ${count} entries, more than the ${ARCHIVE_ENTRIES_MAX} an archive may hold`);
  if (directoryOffset + directorySize > end) throw new ArchiveError("it is not a zip archive that can be read (its directory lies outside it: damaged?)");

  const entries = [];
  let offset = directoryOffset;
  for (let index = 0; index < count; index += 1) {
    if (offset + 46 > end || u32(offset) !== CENTRAL_FILE_HEADER) throw new ArchiveError("it is not a zip archive that can be read (its directory is damaged)");
    const madeBy = u16(offset + 4);
    const flags = u16(offset + 8);
    const method = u16(offset + 10);
    const crc = u32(offset + 16);
    const packedSize = u32(offset + 20);
    const size = u32(offset + 24);
    const nameLength = u16(offset + 28);
    const extraLength = u16(offset + 30);
    const commentLength = u16(offset + 32);
    const external = u32(offset + 38);
    const local = u32(offset + 42);
    const rawName = new TextDecoder().decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;

    const path = cleanPath(rawName);
    if (path === null) {
      entries.push(unsafeEntry(rawName));
      continue;
    }
    if (path === "") continue;
    const mode = madeBy >> 8 === UNIX_HOST ? external >>> 16 : 0;
    let kind;
    if ((mode & S_IFMT) === S_IFLNK) kind = "link";
    else if (rawName.endsWith("/") || (mode & S_IFMT) === S_IFDIR || (mode === 0 && external & 0x10)) kind = "folder";
    else if ((mode & S_IFMT) === S_IFREG || (mode & S_IFMT) === 0) kind = "file";
    else kind = "other";
    const entry = { path, kind, size, read: refuse(`it is ${kind === "folder" ? "a folder" : kind === "link" ? "a link" : "not a regular file"}`) };
    const stored = { local, flags, method, crc, packedSize, size, end };
    if (kind === "file") entry.read = () => zipFileBytes(bytes, view, stored);
    // A link's target is its data: read for the message that refuses it, never followed.
    if (kind === "link" && size <= 4096) entry.target = linkTarget(() => zipFileBytes(bytes, view, stored));
    entries.push(entry);
  }
  return entries;
}

function zipFileBytes(bytes, view, { local, flags, method, crc, packedSize, size, end }) {
  if (flags & 1) throw new EntryError("it is encrypted (a password-protected zip); zip the files again without a password");
  if (local + 30 > end || view.getUint32(local, true) !== LOCAL_FILE_HEADER) throw new EntryError("the archive is damaged where it is stored");
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + packedSize > end) throw new EntryError("the archive is cut short where it is stored");
  const packed = bytes.subarray(start, start + packedSize);
  let data;
  if (method === 0) {
    data = packed.subarray(0, Math.min(packed.length, SOURCE_BYTES_MAX + 1));
    if (packed.length > SOURCE_BYTES_MAX) return data;
  } else if (method === 8) {
    try {
      data = inflateRawSync(packed, { maxOutputLength: SOURCE_BYTES_MAX + 1 });
    } catch (error) {
      // Larger than any source: the caller says so, from the length.
      if (error.code === "ERR_BUFFER_TOO_LARGE") return new Uint8Array(SOURCE_BYTES_MAX + 1);
      throw new EntryError("its compressed data is damaged");
    }
  } else {
    throw new EntryError(`it is compressed with method ${method}, which is not read; zip the files again with an ordinary zip tool (deflate)`);
  }
  if (data.length !== size || crc32(data) !== crc) throw new EntryError("its data does not match the archive's record of it (damaged?)");
  return data;
}

function linkTarget(read) {
  try {
    return new TextDecoder().decode(read());
  } catch {
    return null;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE), as zip records it for every file. */
export function crc32(data) {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// ---- tar ----------------------------------------------------------------

const BLOCK = 512;

function tarEntries(bytes) {
  if (bytes.length % BLOCK !== 0 && bytes.length < BLOCK) throw new ArchiveError("it is not a tar archive (shorter than one 512-byte header)");
  const text = (block, offset, length) => {
    const field = block.subarray(offset, offset + length);
    const nul = field.indexOf(0);
    return new TextDecoder().decode(nul === -1 ? field : field.subarray(0, nul));
  };
  const entries = [];
  let longName = null;
  let paxPath = null;
  let offset = 0;
  let headers = 0;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    headers += 1;
    if (headers > ARCHIVE_ENTRIES_MAX) throw new ArchiveError(`it holds more than the ${ARCHIVE_ENTRIES_MAX} entries an archive may hold`);
    let sum = 0;
    for (let index = 0; index < BLOCK; index += 1) sum += index >= 148 && index < 156 ? 32 : block[index];
    if (Number.parseInt(text(block, 148, 8).trim(), 8) !== sum) throw new ArchiveError(entries.length === 0 ? "it is not a tar archive (its first header is not one)" : "the tar archive is damaged (a header's checksum is wrong)");
    if (block[124] & 0x80) throw new ArchiveError("the tar archive holds an entry of several gigabytes");
    const size = Number.parseInt(text(block, 124, 12).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError("the tar archive is damaged (a size is not a number)");
    const dataStart = offset + BLOCK;
    if (dataStart + size > bytes.length) throw new ArchiveError("the tar archive is cut short");
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const type = block[156] === 0 ? "0" : String.fromCharCode(block[156]);
    const data = () => bytes.subarray(dataStart, dataStart + size);
    if (type === "L") {
      longName = text(data(), 0, size);
      continue;
    }
    if (type === "x") {
      paxPath = paxField(data(), "path");
      continue;
    }
    if (type === "g" || type === "K") continue;
    const ustar = text(block, 257, 5) === "ustar";
    const prefix = ustar ? text(block, 345, 155) : "";
    const rawName = paxPath ?? longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    longName = null;
    paxPath = null;
    const path = cleanPath(rawName);
    if (path === null) {
      entries.push(unsafeEntry(rawName));
      continue;
    }
    if (path === "") continue;
    const kind = type === "0" || type === "7" ? "file" : type === "5" ? "folder" : type === "1" || type === "2" ? "link" : "other";
    const entry = { path, kind, size, read: refuse(`it is ${kind === "folder" ? "a folder" : kind === "link" ? "a link" : "not a regular file"}`) };
    if (kind === "link") entry.target = text(block, 157, 100);
    if (kind === "file") entry.read = () => data().subarray(0, Math.min(size, SOURCE_BYTES_MAX + 1));
    entries.push(entry);
  }
  return entries;
}

/** One record of a pax extended header (`LENGTH KEY=VALUE\n` records), or null. */
function paxField(data, key) {
  const text = new TextDecoder().decode(data);
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(" ", at);
    const length = Number.parseInt(text.slice(at, space), 10);
    if (space < 0 || !Number.isSafeInteger(length) || length <= 0) return null;
    const record = text.slice(space + 1, at + length - 1);
    const equals = record.indexOf("=");
    if (record.slice(0, equals) === key) return record.slice(equals + 1);
    at += length;
  }
  return null;
}
