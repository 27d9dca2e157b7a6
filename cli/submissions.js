// Turning the command line's inputs into submissions: a directory holds one
// exercise file per exercise; a file is one exercise.
//
// An input that does not exist, or a directory with no exercise file, is the
// caller's mistake and stops the run (exit 2). A file that exists but is
// refused (a pipe, a device, a link out of its folder, too large, not UTF-8)
// is the submission's problem: it is kept with its reason, scores 0 as an
// error, and every other file is still graded.
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { UsageError } from "./args.js";
import { registry } from "./registry.js";

const FILES = registry.exercises.map((entry) => entry.file).join(", ");
import { readSource, RefusedFile } from "./read-source.js";

/** An input that cannot be used at all: exit status 2. */
export class InputError extends Error {}

/**
 * `[{ input, files: [{ exercise, path, source } or { exercise, path, refused }] }]`,
 * one entry per input, in order; `refused` is the one-line reason.
 */
export async function loadSubmissions(inputs, { exercise }) {
  const submissions = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (info === null) throw new InputError(`${input}: no such file or directory`);
    if (info.isDirectory()) {
      const folder = await realpath(input);
      const names = await readdir(input).catch((error) => {
        throw new InputError(`${input}: cannot list this directory (${error.code ?? error.message})`);
      });
      const files = [];
      for (const entry of registry.exercises) {
        if (exercise !== null && entry.name !== exercise) continue;
        if (!names.includes(entry.file)) continue;
        files.push(await loadFile(entry.name, join(input, entry.file), folder));
      }
      if (files.length === 0 && exercise !== null) {
        throw new InputError(`${input}: no ${registry.exercise(exercise).file} found; --exercise ${exercise} grades that file of the directory`);
      }
      if (files.length === 0) {
        throw new InputError(`${input}: no exercise file found; a submission directory holds ${FILES} (any of them)`);
      }
      submissions.push({ input, files });
    } else {
      const guessed = registry.byFile(basename(input))?.name;
      const chosen = exercise ?? guessed;
      if (!chosen) {
        throw new UsageError(`${input}: cannot tell which exercise this is; name it ${FILES} or pass --exercise`);
      }
      // A file named on the command line was chosen by whoever runs the
      // grader, so a link there is followed (but must still end at a regular file).
      submissions.push({ input, files: [await loadFile(chosen, input, null)] });
    }
  }
  return submissions;
}

async function loadFile(exercise, path, folder) {
  try {
    return { exercise, path, source: await readSource(path, { within: folder }) };
  } catch (error) {
    if (error instanceof RefusedFile) return { exercise, path, refused: error.message };
    throw error;
  }
}
