// Which lesson the scripts, tests and benchmarks work on: the folder named in
// package.json's `leaselab.lesson` (xtask reads the same field), or
// LEASELAB_LESSON. A second lesson is a second folder, not a fork.
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
const relative = process.env.LEASELAB_LESSON || manifest.leaselab?.lesson;
if (!relative) throw new Error(`package.json has no "leaselab": { "lesson": "exercises/<folder>" }; add it (it names the lesson)`);

/** The lesson folder, absolute, with a trailing slash. */
export const LESSON_DIR = `${resolve(ROOT, relative)}/`;
/** The lesson's id: its folder's name (storage keys, the rendered JSON's name). */
export const LESSON_ID = basename(resolve(ROOT, relative));
/** A file of one exercise of the lesson, e.g. `lessonFile("lock", "solution.js")`. */
export const lessonFile = (exercise, name) => resolve(LESSON_DIR, exercise, name);
