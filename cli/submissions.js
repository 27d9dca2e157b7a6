// Turning the command line's inputs into submissions: a directory holds one
// exercise file per exercise; a file is one exercise.
//
// An input that does not exist is the caller's mistake and stops the run
// (exit 2). So does a directory with no exercise file when it is the only
// input; in a batch (several inputs, or --shard) that directory alone is
// refused (`refused` on its submission: named on standard error, left out of
// the table and the CSV, exit 2) and the others are graded. Under
// `--require` such a directory is no input error at all: it is graded as
// every required exercise missing. A file that exists but is refused (a
// pipe, a device, a link out of its folder, too large, not UTF-8) is the
// submission's problem: it is kept with its reason, scores 0 as an error,
// and every other file is still graded. So is a file that `--require` asks
// for and the directory lacks: the learner left out an exercise.
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { UsageError } from "./args.js";
import { registry } from "./registry.js";
import { readSource, RefusedFile } from "./read-source.js";

const FILES = registry.exercises.map((entry) => entry.file).join(", ");

/** An input that cannot be used at all: exit status 2. */
export class InputError extends Error {}

/**
 * `[{ input, files: [{ exercise, path, source } or { exercise, path, refused } or { exercise, path, missing }] }]`,
 * one entry per input, in order; `refused` and `missing` are one-line
 * reasons (ungradedReason). `require`: the exercise names each directory
 * must hold (--require), or null. `batch`: whether the run grades several
 * submissions; a directory with no exercise file (without --require) then
 * comes back as `{ input, files: [], refused: message }` instead of stopping
 * the run.
 */
export async function loadSubmissions(inputs, { exercise, require = null, batch = inputs.length > 1 }) {
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
      const lacking = [];
      for (const entry of registry.exercises) {
        if (exercise !== null && entry.name !== exercise) continue;
        if (names.includes(entry.file)) files.push(await loadFile(entry.name, join(input, entry.file), folder));
        else if (require?.includes(entry.name)) {
          const file = { exercise: entry.name, path: join(input, entry.file), missing: null };
          lacking.push({ file, misnamed: await misnamedFiles(input, names, entry) });
          files.push(file);
        }
      }
      // A directory with no exercise file at all is more likely the wrong folder (or a
      // zip unpacked one level too deep) than a learner who skipped every exercise:
      // what it does hold is listed, so whoever made it sees where the files went.
      const empty = files.every((file) => "missing" in file);
      const found = empty ? await listFiles(input) : null;
      for (const { file, misnamed } of lacking) file.missing = missingMessage(registry.exercise(file.exercise).file, misnamed, found);
      if (empty && !require) {
        const seen = found.length > 0 ? `; it holds ${found.join(", ")}` : "; it is empty";
        const message =
          exercise !== null
            ? `${input}: no ${registry.exercise(exercise).file} found; --exercise ${exercise} grades that file of the directory${seen}`
            : `${input}: no exercise file found; a submission directory holds ${FILES} (any of them)${seen}`;
        if (!batch) throw new InputError(message);
        submissions.push({ input, files: [], refused: message });
        continue;
      }
      submissions.push({ input, files });
    } else {
      if (require) throw new UsageError(`${input}: --require applies to submission directories, and this is a file; grade its directory, or drop --require`);
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

/** Why a loaded file is not graded (refused, or required and missing), or null when it is graded. */
export function ungradedReason(file) {
  return file.refused ?? file.missing ?? null;
}

/** The most misnamed files one message names. */
const MISNAMED_SHOWN_MAX = 3;

/**
 * The entries of `directory` (`names`) that look like the exercise
 * `entry`'s file under another name, in name order, compared without letter
 * case: its file name in other letter case (`Lock.js`), a name that starts
 * with the exercise's name and ends in `.js` (`lock (1).js`,
 * `lock-final.js`, `Lock_v2.js`), or its file name with more after a dot
 * (`lock.js.txt`). Never another exercise's own file, a dot-entry or a
 * directory.
 */
export async function misnamedFiles(directory, names, entry) {
  const file = entry.file.toLowerCase();
  const stem = entry.name.toLowerCase();
  const candidates = names
    .filter((name) => {
      if (name === entry.file || name.startsWith(".") || registry.byFile(name)) return false;
      const lower = name.toLowerCase();
      return lower === file || (lower.startsWith(stem) && lower.endsWith(".js")) || lower.startsWith(`${file}.`);
    })
    .sort();
  const files = [];
  for (const name of candidates) {
    const info = await lstat(join(directory, name)).catch(() => null);
    if (info !== null && !info.isDirectory()) files.push(name);
  }
  return files;
}

/**
 * What a learner reads for an exercise file `--require` asks for and their
 * submission lacks: the file to add or, when the directory holds files that
 * look like it (`misnamed`, misnamedFiles), the file to rename; or else,
 * when the directory holds no exercise file at all, what it does hold
 * (`found`, listFiles), as it may be the wrong folder.
 */
function missingMessage(fileName, misnamed, found) {
  const head = `${fileName} is missing from this submission, and this exercise is required, so it scores 0; `;
  let advice;
  if (misnamed.length === 0) {
    advice = `add your ${fileName} (named exactly that, beside the other exercise files) and submit again`;
  } else {
    const shown = misnamed.slice(0, MISNAMED_SHOWN_MAX);
    const more = misnamed.length - shown.length;
    const listed = more > 0 ? `${shown.join(", ")} and ${more} more` : shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
    advice = `it holds ${listed}: rename ${misnamed.length === 1 ? "it" : "the one to grade"} to ${fileName} (exactly that name) and submit again`;
  }
  // Renaming says what to do; the folder's listing would only repeat the name.
  const folder = found === null || misnamed.length > 0 ? "" : `; this submission holds no exercise file at all (${found.length > 0 ? `it holds ${found.join(", ")}` : "it is empty"}), so check that it is the right folder`;
  return head + advice + folder;
}

/** The most files `listFiles` names, and the most directory entries it looks at (a submission is untrusted: it may hold a huge tree). */
const LISTED_FILES_MAX = 20;
const LISTED_ENTRIES_MAX = 2000;

/**
 * Up to LISTED_FILES_MAX files under `folder`, as paths relative to it,
 * breadth first in name order, with "… (N more)" when there are more: what a
 * message shows of a folder that holds no exercise file, so whoever made it
 * sees where their files went. Links are listed, never followed; dot-entries
 * and macOS's `__MACOSX` zip metadata are left out.
 */
async function listFiles(folder) {
  const files = [];
  let more = 0;
  let looked = 0;
  const queue = [""];
  while (queue.length > 0 && looked < LISTED_ENTRIES_MAX) {
    const relative = queue.shift();
    const names = (await readdir(join(folder, relative)).catch(() => [])).sort();
    for (const name of names) {
      if (name.startsWith(".") || name === "__MACOSX" || looked >= LISTED_ENTRIES_MAX) continue;
      looked += 1;
      const path = relative === "" ? name : `${relative}/${name}`;
      const info = await lstat(join(folder, path)).catch(() => null);
      if (info?.isDirectory()) queue.push(path);
      else if (files.length < LISTED_FILES_MAX) files.push(path);
      else more += 1;
    }
  }
  if (more > 0 || queue.length > 0) files.push(`… (${more > 0 ? `${more} more` : "more"}${queue.length > 0 ? ", not all folders looked at" : ""})`);
  return files;
}
