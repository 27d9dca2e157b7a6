// Writing reports where the user asked. A path that cannot be written is a
// one-line `cannot write X: reason` (exit 2), not a stack trace; the caller
// carries on with every other output, so a batch still leaves what it can.
// Everything written is made well-formed first: a lone surrogate from a
// learner's text would otherwise become bytes that are not UTF-8.
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { wellFormed } from "./formats/escape.js";

/** An output that could not be written; the message is one line. */
export class OutputError extends Error {}

const REASONS = {
  ENOENT: "its folder does not exist",
  ENOTDIR: "part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "a file is in the way",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
};

function failure(label, error) {
  const reason = REASONS[error.code] ?? error.code ?? String(error.message).split("\n")[0];
  return new OutputError(`cannot write ${label}: ${reason}; choose a path that can be written`);
}

/** Writes (or, with `append`, appends to) the file at `path`; `label` names it in a failure (default: the path). */
export async function writeOutput(path, text, { append = false, label = path } = {}) {
  try {
    await (append ? appendFile : writeFile)(path, wellFormed(text));
  } catch (error) {
    throw failure(label, error);
  }
}

/** Creates the folder for a batch's reports. */
export async function makeFolder(path) {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    throw failure(path, error);
  }
}

/** Text for standard output or error. */
export function writeStream(stream, text) {
  stream.write(wellFormed(text));
}
