// The submission reader: turning the command line's inputs into
// submissions, the one place that decides what a learner's upload holds.
// The CLI, the Gradescope bundle and the Exercism runner all grade through
// it, so one upload gets one score on every platform.
//
// An input is a folder, a .zip or .tar (.tar.gz, .tgz) archive (the lesson's
// own export `ownership-election-solutions.tar` among them), or one exercise
// file. A folder or an archive is one submission, read the same way:
//
// - Dot-entries (.DS_Store, .git) and `__MACOSX` (the metadata macOS Finder
//   adds to a zip) never count.
// - While the submission's top level holds no exercise file and exactly one
//   folder (or, in a folder, exactly one archive and no folder), that is
//   where the files are: a zip of a folder, the export's
//   `ownership-election/`, a Gradescope upload of a .tar. Up to
//   WRAPPING_FOLDERS_MAX levels, one archive at most.
// - An exercise file must be a regular file. A link is refused wherever it
//   points (a link inside an upload becomes a link on one platform and a
//   copy on another, so one rule for every platform: submit files), and so is
//   a folder, pipe or device under an exercise file's name.
// - Every limit is named: the source size, the archive's size and entries,
//   how deep a folder is walked.
//
// What a learner reads when something is missing says what the submission
// does hold: a file named like the missing one (`Lock.js`), the same file in
// another folder (`ownership-election/fencing.js` beside a top-level
// lock.js), or, when it holds no exercise file at all, its files.
//
// A class (several submissions, or --shard) requires every exercise by
// default (`--require all`), so its table and CSV never show incomplete work
// as complete; one submission alone is graded on what it holds unless
// `--require` says otherwise, and `--require none` grades a class so too.
// An input that does not exist is the caller's mistake and stops the run
// (exit 2). So does a submission with no exercise file, required or not,
// when nothing is required and it is the only input; in a batch that
// submission alone is refused (`refused`) and the others are graded.
import { lstat, readdir, readlink, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { UsageError, WRAPPING_FOLDERS_MAX } from "./args.js";
import { registry } from "./registry.js";
import { readBytes, readSource, RefusedFile, sourceText } from "./read-source.js";
import { ARCHIVE_BYTES_MAX, ArchiveError, archiveKind, EntryError, readArchive } from "./archive.js";
import { SOURCE_BYTES_MAX } from "../runner/limits.js";

const FILES = registry.exercises.map((entry) => entry.file).join(", ");

/** How deep, and over how many entries, a submission folder is walked (it is untrusted: it may hold a huge tree). */
const FOLDER_DEPTH_MAX = 8;
const FOLDER_ENTRIES_MAX = 2000;
/** The most files a message lists, and the most misnamed or misplaced files it names. */
const LISTED_FILES_MAX = 20;
const NAMED_MAX = 3;

/** An input that cannot be used at all: exit status 2. */
export class InputError extends Error {}

/**
 * `[{ input, files: [{ exercise, path, source } or { exercise, path, refused } or { exercise, path, missing }] }]`,
 * one entry per input, in order; `refused` and `missing` are one-line
 * reasons (ungradedReason), `path` what the learner calls the file
 * (`sub.zip/ownership-election/lock.js`). `exercise`: grade only that
 * exercise's file (it is then required). `require`: the exercises each
 * submission must hold, [] for none, null for the default (all in a
 * batch, none for one submission). `batch`: whether the run
 * grades several submissions; a submission with no exercise file (under
 * `require: []`) then comes back as `{ input, files: [], refused: message }`
 * instead of stopping the run.
 */
export async function loadSubmissions(inputs, { exercise = null, require = null, batch = inputs.length > 1 }) {
  // A class (batch) requires every exercise unless told otherwise; one submission is graded on what it holds.
  const required = exercise !== null ? [exercise] : (require ?? (batch ? registry.names : []));
  const submissions = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (info === null) throw new InputError(`${input}: no such file or directory`);
    let opened;
    if (info.isDirectory()) {
      opened = { tree: await folderTree(input), unreadable: null };
    } else {
      const kind = archiveKind(basename(input), info.isFile() ? await firstBytes(input) : null);
      if (kind === null) {
        if (require !== null) throw new UsageError(`${input}: --require applies to submissions (a folder or an archive), and this is one file; grade its folder, or drop --require`);
        submissions.push({ input, files: [await singleFile(input, exercise)] });
        continue;
      }
      opened = await archiveTree(input, kind, null);
    }
    const submission = await readSubmission(input, opened, { exercise, required });
    if (submission.empty && required.length === 0) {
      const message = submission.unreadable
        ? `${submission.unreadable}; upload the files again as a .zip or .tar of ordinary files, or the files themselves`
        : `${input}: no exercise file found; a submission holds ${FILES} (any of them)${holdings(submission.found)}`;
      if (!batch) throw new InputError(message);
      submissions.push({ input, files: [], refused: message });
      continue;
    }
    submissions.push({ input, files: submission.files });
  }
  return submissions;
}

/** Why a loaded file is not graded (refused, or required and missing), or null when it is graded. */
export function ungradedReason(file) {
  return file.refused ?? file.missing ?? null;
}

/** A file named on the command line: chosen by whoever runs the grader, so a link there is followed (to a regular file). */
async function singleFile(input, exercise) {
  const chosen = exercise ?? registry.byFile(basename(input))?.name;
  if (!chosen) throw new UsageError(`${input}: cannot tell which exercise this is; name it ${FILES}, pass --exercise, or give the folder or archive that holds it`);
  try {
    return { exercise: chosen, path: input, source: await readSource(input) };
  } catch (error) {
    if (error instanceof RefusedFile) return { exercise: chosen, path: input, refused: error.message };
    throw error;
  }
}

/** The first 512 bytes of a file (enough for zip's, gzip's and ustar's magic numbers), or null when it cannot be read. */
async function firstBytes(path) {
  try {
    return await readBytes(path, { limit: 512, head: true });
  } catch (error) {
    if (error instanceof RefusedFile) return null;
    throw error;
  }
}

// ---- the tree: a submission's entries, from disk or from an archive --------

/**
 * A submission's entries as a tree: `folder(path)` lists a folder's entries
 * that count (`[{ name, path, kind, entry }]`, by name), `files()` every file
 * that counts. Folders an archive leaves implicit (`a/b/lock.js` with no
 * `a/` entry) are there too.
 */
class Tree {
  constructor(entries, { truncated = false } = {}) {
    this.truncated = truncated;
    this.folders = new Map([["", new Map()]]);
    for (const entry of entries) {
      // A name that leads out of the archive (`../lock.js`, `/etc/x`) is never read, nor listed.
      if (entry.unsafe) continue;
      const parts = entry.path.split("/").filter((part) => part !== "");
      if (parts.length === 0 || parts.some(ignored)) continue;
      for (let depth = 1; depth <= parts.length; depth += 1) {
        const parent = parts.slice(0, depth - 1).join("/");
        const path = parts.slice(0, depth).join("/");
        const last = depth === parts.length;
        if (!this.folders.has(parent)) this.folders.set(parent, new Map());
        const siblings = this.folders.get(parent);
        if (last) siblings.set(parts[depth - 1], { name: parts[depth - 1], path, kind: entry.kind, entry });
        else if (!siblings.has(parts[depth - 1]) || siblings.get(parts[depth - 1]).kind !== "folder") siblings.set(parts[depth - 1], { name: parts[depth - 1], path, kind: "folder", entry: null });
        if (last && entry.kind === "folder" && !this.folders.has(path)) this.folders.set(path, new Map());
      }
    }
  }

  folder(path) {
    return [...(this.folders.get(path)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Every entry that is not a folder, breadth first, in name order. */
  files() {
    const files = [];
    const queue = [""];
    while (queue.length > 0) {
      for (const child of this.folder(queue.shift())) {
        if (child.kind === "folder") queue.push(child.path);
        else files.push(child);
      }
    }
    return files;
  }
}

/** Entries that never count: dot-entries and macOS's zip metadata. */
function ignored(name) {
  return name.startsWith(".") || name === "__MACOSX";
}

/** The entries of a folder on disk, walked breadth first (links listed, never followed), within FOLDER_DEPTH_MAX and FOLDER_ENTRIES_MAX. */
async function folderTree(input) {
  const real = await realpath(input);
  const entries = [];
  let truncated = false;
  const queue = [{ path: "", depth: 0 }];
  while (queue.length > 0) {
    const { path, depth } = queue.shift();
    const names = await readdir(join(input, path)).catch((error) => {
      if (path === "") throw new InputError(`${input}: cannot list this folder (${error.code ?? error.message})`);
      return [];
    });
    for (const name of names.sort()) {
      if (ignored(name)) continue;
      if (entries.length >= FOLDER_ENTRIES_MAX) {
        truncated = true;
        break;
      }
      const relative = path === "" ? name : `${path}/${name}`;
      const full = join(input, relative);
      const info = await lstat(full).catch(() => null);
      if (info === null) continue;
      const entry = { path: relative, size: info.size };
      if (info.isSymbolicLink()) {
        entry.kind = "link";
        entry.target = await readlink(full).catch(() => null);
      } else if (info.isDirectory()) {
        entry.kind = "folder";
        if (depth + 1 < FOLDER_DEPTH_MAX) queue.push({ path: relative, depth: depth + 1 });
        else truncated = true;
      } else if (info.isFile()) {
        entry.kind = "file";
        // readBytes checks again, at the moment it opens the file, that it is a regular file inside the folder.
        entry.read = () => readBytes(full, { within: real, limit: SOURCE_BYTES_MAX });
        entry.openArchive = (kind) => readBytes(full, { within: real, limit: ARCHIVE_BYTES_MAX }).then((bytes) => readArchive(kind, bytes));
      } else {
        entry.kind = "other";
        entry.what = info.isFIFO() ? "a named pipe (FIFO)" : info.isSocket() ? "a socket" : "a device";
      }
      entries.push(entry);
    }
  }
  return new Tree(entries, { truncated });
}

/** `{ tree, unreadable }` for the archive at `path` (or a nested `entry`): an unreadable one is an empty tree and why. */
async function archiveTree(path, kind, entry) {
  try {
    const entries = entry ? await entry.openArchive(kind) : readArchive(kind, await readBytes(path, { limit: ARCHIVE_BYTES_MAX }));
    return { tree: new Tree(entries), unreadable: null };
  } catch (error) {
    if (error instanceof ArchiveError || error instanceof RefusedFile) {
      const reason = error instanceof ArchiveError ? `${path} cannot be read: ${error.message}` : error.message;
      return { tree: new Tree([]), unreadable: reason };
    }
    throw error;
  }
}

// ---- reading a submission --------------------------------------------------

/**
 * The exercise files of one opened submission: `{ files, empty, found,
 * where, unreadable }`. `where` names the folder graded (`sub.zip/ownership-election`),
 * `found` lists what the submission holds (for messages), `empty` is true
 * when it holds no exercise file that could be graded or refused,
 * `unreadable` why an archive in it could not be read (or null).
 */
async function readSubmission(input, { tree, unreadable }, { exercise, required }) {
  const wanted = registry.exercises.filter((entry) => exercise === null || entry.name === exercise);
  const isExerciseFile = (name) => wanted.some((entry) => entry.file === name);
  // Where each of the submission's trees shows, and how a learner names its paths.
  let base = input;
  let root = "";
  let inArchive = unreadable !== null || !(await stat(input)).isDirectory();
  const outer = { tree, base: input };
  for (let depth = 0; depth < WRAPPING_FOLDERS_MAX + 1 && unreadable === null; depth += 1) {
    const children = tree.folder(root);
    if (children.some((child) => isExerciseFile(child.name))) break;
    const folders = children.filter((child) => child.kind === "folder");
    const archives = children.filter((child) => child.kind === "file" && archiveKind(child.name) !== null);
    if (folders.length === 1 && (archives.length === 0 || inArchive) && depth < WRAPPING_FOLDERS_MAX) {
      root = folders[0].path;
      continue;
    }
    if (folders.length === 0 && archives.length === 1 && !inArchive) {
      const [archive] = archives;
      const inner = join(base, archive.path);
      ({ tree, unreadable } = await archiveTree(inner, archiveKind(archive.name), archive.entry));
      base = inner;
      root = "";
      inArchive = true;
      continue;
    }
    break;
  }
  const where = root === "" ? base : join(base, root);
  const shown = (child) => join(base, child.path);
  const children = tree.folder(root);
  const files = [];
  for (const entry of wanted) {
    const child = children.find((candidate) => candidate.name === entry.file);
    if (child) {
      files.push(await exerciseFile(entry.name, shown(child), child));
    } else if (required.includes(entry.name)) {
      // Named as the learner finds them: inside an unwrapped folder, with its path.
      const misnamed = misnamedFiles(children, entry).map((name) => (root === "" ? name : `${root}/${name}`));
      const elsewhere = tree
        .files()
        .filter((file) => file.name === entry.file)
        .map((file) => relativeTo(input, shown(file)));
      files.push({ exercise: entry.name, path: join(where, entry.file), missing: null, misnamed, elsewhere });
    }
  }
  const empty = files.every((file) => "missing" in file);
  const found = empty ? listed(outer, tree, base) : null;
  for (const file of files) {
    if (!("missing" in file)) continue;
    file.missing = missingMessage(registry.exercise(file.exercise).file, { misnamed: file.misnamed, elsewhere: file.elsewhere, found, unreadable });
    delete file.misnamed;
    delete file.elsewhere;
  }
  return { files, empty, found: unreadable ? null : found, where, unreadable };
}

/** One exercise file of the tree, read, or refused with its reason. */
async function exerciseFile(exercise, path, child) {
  const refused = (why) => ({ exercise, path, refused: `${path} ${why}` });
  if (child.kind === "link") return refused(`is a link${child.entry?.target ? ` to ${child.entry.target}` : ""}, not a file; submit the file itself, not a link`);
  if (child.kind === "folder") return refused("is a folder, not a file; submit the source as an ordinary .js file");
  if (child.kind === "other") return refused(`is ${child.entry?.what ?? "not a regular file"}, not a regular file; submit the source as an ordinary .js file`);
  try {
    return { exercise, path, source: sourceText(path, await child.entry.read()) };
  } catch (error) {
    if (error instanceof RefusedFile) return { exercise, path, refused: error.message.startsWith(path) ? error.message : `${path}: ${error.message}` };
    if (error instanceof EntryError) return refused(`cannot be read from the archive: ${error.message}`);
    throw error;
  }
}

/**
 * The entries of the graded folder (`children`) that look like the
 * exercise `entry`'s file under another name, in name order, compared
 * without letter case: its file name in other letter case (`Lock.js`), a
 * name that starts with the exercise's name and ends in `.js`
 * (`lock (1).js`, `lock-final.js`), or its file name with more after a dot
 * (`lock.js.txt`). Never another exercise's own file, a dot-entry or a
 * folder. `children`: `[{ name, kind }]`.
 */
export function misnamedFiles(children, entry) {
  const file = entry.file.toLowerCase();
  const stem = entry.name.toLowerCase();
  return children
    .filter((child) => {
      if (child.kind === "folder" || child.name.startsWith(".") || child.name === entry.file || registry.byFile(child.name)) return false;
      const lower = child.name.toLowerCase();
      return lower === file || (lower.startsWith(stem) && lower.endsWith(".js")) || lower.startsWith(`${file}.`);
    })
    .map((child) => child.name)
    .sort();
}

/**
 * Up to LISTED_FILES_MAX files of the submission, as the learner names
 * them, with "… (N more)" when there are more: the outer folder's, and an
 * archive's inside it when it was opened.
 */
function listed(outer, tree, base) {
  const all = outer.tree === tree ? tree.files().map((file) => join(base, file.path)) : [...outer.tree.files().map((file) => join(outer.base, file.path)), ...tree.files().map((file) => join(base, file.path))];
  const relative = all.map((path) => relativeTo(outer.base, path));
  const shown = relative.slice(0, LISTED_FILES_MAX);
  const more = relative.length - shown.length;
  if (more > 0 || tree.truncated || outer.tree.truncated) shown.push(`… (${more > 0 ? `${more} more` : "more"}${tree.truncated || outer.tree.truncated ? ", not every folder looked at" : ""})`);
  return shown;
}

/** A path inside the input, named from the input (`ownership-election/lock.js`); the input itself when it is one file. */
function relativeTo(input, path) {
  const prefix = input.endsWith("/") ? input : `${input}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function holdings(found) {
  if (found === null) return "";
  return found.length > 0 ? `; it holds ${found.join(", ")}` : "; it is empty";
}

/** "a", "a and b", "a, b and c", "a, b, c and 2 more". */
function namedList(names) {
  const shown = names.slice(0, NAMED_MAX);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more`;
  return shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/**
 * What a learner reads for a required exercise file their submission
 * lacks: the file to rename (`misnamed`), the file to move (`elsewhere`:
 * the same name in another folder), or the file to add; when the
 * submission holds no exercise file at all, what it does hold (`found`),
 * as it may be the wrong upload; when it is an archive that cannot be
 * read, why (`unreadable`).
 */
function missingMessage(fileName, { misnamed, elsewhere, found, unreadable }) {
  const head = `${fileName} is missing from this submission, and this exercise is required, so it scores 0; `;
  if (unreadable) return `${head}${unreadable}; upload the files again as a .zip or .tar of ordinary files, or the files themselves`;
  let advice;
  if (misnamed.length > 0) {
    advice = `it holds ${namedList(misnamed)}: rename ${misnamed.length === 1 ? "it" : "the one to grade"} to ${fileName} (exactly that name) and submit again`;
  } else if (elsewhere.length > 0) {
    advice = `it holds ${namedList(elsewhere)}, in another folder than the files graded: put every exercise file in one folder and submit again`;
  } else {
    advice = `add your ${fileName} (named exactly that, beside the other exercise files) and submit again`;
  }
  // Renaming or moving says what to do; the folder's listing would only repeat the name.
  const folder = found === null || misnamed.length > 0 || elsewhere.length > 0 ? "" : `; this submission holds no exercise file at all (${found.length > 0 ? `it holds ${found.join(", ")}` : "it is empty"}), so check that it is the right folder`;
  return head + advice + folder;
}
