// Turning the command line's inputs into submissions: a directory holds one
// exercise file per exercise; a file is one exercise.
import { readFile, readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { EXERCISE_NAMES, UsageError } from "./args.js";

/** An input that cannot be read: exit status 2. */
export class InputError extends Error {}

/**
 * `[{ name, files: [{ exercise, path, source }] }]`, one entry per input.
 * A directory with no exercise file, or a file whose exercise is unknown,
 * is an error that says what to do.
 */
export async function loadSubmissions(inputs, { exercise }) {
  const submissions = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (info === null) throw new InputError(`${input}: no such file or directory`);
    if (info.isDirectory()) {
      const names = await readdir(input);
      const files = [];
      for (const name of EXERCISE_NAMES) {
        if (exercise !== null && name !== exercise) continue;
        if (!names.includes(`${name}.js`)) continue;
        const path = join(input, `${name}.js`);
        files.push({ exercise: name, path, source: await readSource(path) });
      }
      if (files.length === 0) {
        throw new InputError(`${input}: no exercise file found; a submission directory holds ${EXERCISE_NAMES.map((name) => `${name}.js`).join(", ")} (any of them)`);
      }
      submissions.push({ name: basename(input.replace(/[\\/]+$/, "")) || input, files });
    } else {
      const guessed = EXERCISE_NAMES.find((name) => basename(input) === `${name}.js`);
      const chosen = exercise ?? guessed;
      if (!chosen) {
        throw new UsageError(`${input}: cannot tell which exercise this is; name it ${EXERCISE_NAMES.map((name) => `${name}.js`).join(", ")} or pass --exercise`);
      }
      submissions.push({ name: basename(input), files: [{ exercise: chosen, path: input, source: await readSource(input) }] });
    }
  }
  return submissions;
}

async function readSource(path) {
  try {
    const bytes = await readFile(path);
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text;
  } catch (error) {
    if (error instanceof TypeError) throw new InputError(`${path}: not valid UTF-8 text; save the file as UTF-8`);
    throw new InputError(`${path}: cannot be read (${error.code ?? error.message})`);
  }
}
