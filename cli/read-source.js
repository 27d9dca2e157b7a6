// Reading one learner source file as untrusted input. A submission folder is
// made by the learner, so its `lock.js` may be a named pipe (opening it for
// reading blocks for ever), a device such as /dev/zero (reading it never
// ends), a link to a file elsewhere (the reference solution), or simply huge.
// Each is refused with a sentence that names the file; nothing is opened
// before its type is known, and nothing is read past the size limit.
import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";
import { SOURCE_BYTES_MAX } from "../runner/limits.js";

/** A file that will not be graded; the message says which and why, and what to do. */
export class RefusedFile extends Error {}

// O_NONBLOCK: if the file became a pipe after it was checked, opening it
// still returns at once. O_NOFOLLOW: the path opened is already resolved, so
// a link in its last component now means it was swapped; refuse.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * The UTF-8 text of the source at `path`. With `within` (the real path of
 * the submission folder), the file, once every link is followed, must lie
 * inside that folder. Throws RefusedFile.
 */
export async function readSource(path, { within = null } = {}) {
  return sourceText(path, await readBytes(path, { within, limit: SOURCE_BYTES_MAX }));
}

/** `bytes`, the content of the source `path` names, as UTF-8 text; throws RefusedFile when it is too large or not UTF-8. */
export function sourceText(path, bytes) {
  if (bytes.length > SOURCE_BYTES_MAX) throw tooLarge(path, `more than ${SOURCE_BYTES_MAX} bytes`);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new RefusedFile(`${path} is not valid UTF-8 text; save the file as UTF-8`);
  }
}

/**
 * The bytes of the regular file at `path`, at most `limit + 1` of them (one
 * more than allowed tells the caller it is too large); a file whose size is
 * already over `limit` is refused before it is opened, unless `head` asks
 * for its first `limit` bytes only (to tell what kind of file it is).
 * `within` as for readSource. Throws RefusedFile.
 */
export async function readBytes(path, { within = null, limit, head = false }) {
  const real = await realpath(path).catch((error) => {
    throw new RefusedFile(`${path} cannot be read (${error.code ?? error.message}); check that it exists and is readable`);
  });
  if (within !== null && !isInside(real, within)) {
    throw new RefusedFile(`${path} is a link to ${real}, outside its submission folder; submit the file itself, not a link`);
  }
  const before = await stat(real);
  if (!before.isFile()) throw new RefusedFile(`${path} is ${kindOf(before)}, not a regular file; submit the source as an ordinary .js file`);
  if (before.size > limit && !head) {
    if (limit === SOURCE_BYTES_MAX) throw tooLarge(path, `${before.size} bytes`);
    throw new RefusedFile(`${path} is ${before.size} bytes, over the limit of ${limit} bytes; a submission is a few files of a few KB`);
  }

  let handle;
  try {
    handle = await open(real, OPEN_FLAGS);
  } catch (error) {
    throw new RefusedFile(`${path} cannot be read (${error.code ?? error.message}); check that it is a readable file`);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev) {
      throw new RefusedFile(`${path} changed while it was being read; grade it again once nothing is writing to it`);
    }
    return await readAtMost(handle, head ? limit : limit + 1);
  } finally {
    await handle.close();
  }
}

/** At most `limit` bytes from the start of the file, however long it is (or grows to be). */
async function readAtMost(handle, limit) {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function tooLarge(path, size) {
  return new RefusedFile(`${path} is ${size}, over the limit of ${SOURCE_BYTES_MAX} bytes (${SOURCE_BYTES_MAX / 1024} KiB) for a source file; a solution is a few KB, so remove pasted data or generated code`);
}

function isInside(path, folder) {
  const rest = relative(folder, path);
  return rest !== "" && rest !== ".." && !rest.startsWith(`..${sep}`) && !isAbsolute(rest);
}

function kindOf(info) {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}
