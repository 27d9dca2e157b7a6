// Progress that travels: the export's `progress.json` and reading it back.
//
// "Export my solutions" downloads a tar whose folder holds each exercise's
// file (what the command-line grader reads: `npx leaselab grade folder/`)
// and `progress.json`, everything else the learner did, in this format:
//
//   {
//     "format": "leaselab-progress",     // what the file is
//     "version": 1,                      // this format's version (PROGRESS_FILE_VERSION)
//     "lesson": "ownership-election",    // whose progress: another lesson's is refused
//     "graderVersion": "0.1.0",          // the grader that judged the recorded results
//     "exportedAt": "2026-12-03T13:00:00.000Z",
//     "progress": { … }                  // the saved progress, as storage/schema.js
//   }                                    // describes it (its own `version` inside)
//
// `progress` holds the sections read, every quiz answer (choice or text,
// right or not, and where the learner was in each quiz), and per exercise
// the draft, the hints opened, when it was passed and the last run's
// summary. Import takes the tar or the bare `progress.json`, refuses a file
// of another lesson or of a newer format with a message, keeps every
// readable part of a damaged one (schema.js's rules) and says what it left out.
//
// Results depend on the grader: a new grader version may add a test or
// tighten a rule, and the same code may then fail. So a file exported under
// another grader version (or one from before files recorded it) still gives
// back the code, quiz answers, hints and read marks, but not its results
// (when each exercise was passed, and the last run): those were judged by
// rules this page does not apply, and "Run tests" judges the code again.
// `graderVersion` was added without changing `version`: a page that does not
// know the field ignores it and reads the file as before.
import { SCHEMA_VERSION, readSaved } from "../storage/schema.js";
import { readTar } from "./tar.js";

export const PROGRESS_FILE_FORMAT = "leaselab-progress";
export const PROGRESS_FILE_VERSION = 1;
export const PROGRESS_FILE_NAME = "progress.json";
/** A progress file larger than this is not one this page wrote. */
export const PROGRESS_FILE_BYTES_MAX = 8 * 1024 * 1024;

/**
 * The text of `progress.json` for `progress` (schema.js's shape) of the
 * lesson `lessonId`, whose results were judged by the grader `graderVersion`.
 */
export function progressFileText({ lessonId, graderVersion, progress, now = new Date() }) {
  const file = { format: PROGRESS_FILE_FORMAT, version: PROGRESS_FILE_VERSION, lesson: lessonId, graderVersion, exportedAt: now.toISOString(), progress };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * Reads an imported file (`name`, `bytes`) into the lesson `lessonId`, whose
 * page grades with `graderVersion`: a tar export or a bare progress.json.
 * Returns `{ progress, notes, resultsLeftOut }` (notes: what could not be
 * read and was left out; resultsLeftOut: null, or a sentence saying why the
 * file's results were not imported) or `{ error }`, one sentence saying why
 * nothing was imported.
 */
export function readProgressFile({ name, bytes, lessonId, graderVersion }) {
  if (bytes.length > PROGRESS_FILE_BYTES_MAX) return { error: `${name} is larger than ${PROGRESS_FILE_BYTES_MAX / 1024 / 1024} MiB; an export is a few KB. Choose the .tar or progress.json that "Export my solutions" downloaded.` };
  let text;
  if (/\.tar$/i.test(name) || looksLikeTar(bytes)) {
    let files;
    try {
      files = readTar(bytes);
    } catch (error) {
      return { error: `${name} could not be read: ${error.message}.` };
    }
    const found = files.find((file) => file.name === PROGRESS_FILE_NAME || file.name.endsWith(`/${PROGRESS_FILE_NAME}`));
    if (!found) return { error: `${name} holds no ${PROGRESS_FILE_NAME}: it was exported before progress could travel, or by something else. Its code files can still be graded, but there is no progress to import.` };
    text = found.text;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return { error: `${name} is neither a tar archive nor UTF-8 text; choose the .tar or progress.json that "Export my solutions" downloaded.` };
    }
  }
  let file;
  try {
    file = JSON.parse(text);
  } catch {
    return { error: `${name} is not valid JSON, so it is not a progress file; choose the .tar or progress.json that "Export my solutions" downloaded.` };
  }
  if (typeof file !== "object" || file === null || file.format !== PROGRESS_FILE_FORMAT) {
    return { error: `${name} is not a leaselab progress file (it has no "format": "${PROGRESS_FILE_FORMAT}").` };
  }
  if (!Number.isInteger(file.version) || file.version < 1) return { error: `${name} has no format version this page knows ("version": ${JSON.stringify(file.version)}).` };
  const innerVersion = file.progress?.version;
  if (file.version > PROGRESS_FILE_VERSION || (Number.isInteger(innerVersion) && innerVersion > SCHEMA_VERSION)) {
    return { error: `${name} was exported by a newer version of this lesson (progress file format ${file.version}, progress format ${innerVersion}); this page reads up to ${PROGRESS_FILE_VERSION} and ${SCHEMA_VERSION}. Reload the page to get the newer version, then import again.` };
  }
  if (file.lesson !== lessonId) {
    return { error: `${name} holds progress in another lesson ("${String(file.lesson).slice(0, 80)}"), not in this one ("${lessonId}"); nothing was imported.` };
  }
  const read = readSaved(JSON.stringify(file.progress ?? null));
  if (read.status === "empty") return { error: `${name} holds no progress.` };
  if (file.graderVersion === graderVersion) return { progress: read.progress, notes: read.notes, resultsLeftOut: null };
  return { progress: withoutResults(read.progress), notes: read.notes, resultsLeftOut: resultsLeftOutNote(name, file.graderVersion, graderVersion) };
}

/** `progress` with no exercise passed and no last run: what a result judged by another grader leaves. */
function withoutResults(progress) {
  const exercises = {};
  for (const [exercise, entry] of Object.entries(progress.exercises)) exercises[exercise] = { ...entry, passedAt: null, lastRun: null };
  return { ...progress, exercises };
}

function resultsLeftOutNote(name, theirs, ours) {
  const judged = typeof theirs === "string" ? `were judged by grader ${theirs.slice(0, 40)}` : "do not say which grader judged them (an export from before files recorded it)";
  return `The test results in ${name} ${judged}, and this page grades with ${ours}, so they were not imported: your code, quiz answers, hints and read marks were. Press "Run tests" on each exercise to grade your code again.`;
}

/** A ustar header has "ustar" at byte 257. */
function looksLikeTar(bytes) {
  return bytes.length >= 512 && new TextDecoder().decode(bytes.subarray(257, 262)) === "ustar";
}
