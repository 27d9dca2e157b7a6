// Names for the submissions of one run. Folder names come from learners (or
// from however a course collected them), so two may be equal (`a/alice`,
// `b/alice`), differ only in case, or hold characters no file name should.
// Each submission gets a name that tells it apart in the summary table, the
// CSV and its report, and a file name for its report that is safe on every
// file system and unique, so no report overwrites another.
import { resolve, sep } from "node:path";

const STEM_CHARS_MAX = 100;
// Device names Windows reserves whatever the extension.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * Sets `name` on each submission (from its `input` path): its folder or
 * file name, or, where that is shared with another input, as many trailing
 * path components as make it unique (`a/alice`, `b/alice`); an input given
 * twice gets `#2`, `#3`. Names depend only on the inputs and their order.
 */
export function nameSubmissions(submissions) {
  const parts = submissions.map((submission) => resolve(submission.input).split(sep).filter(Boolean));
  const depth = submissions.map(() => 1);
  const labelOf = (index) => parts[index].slice(-depth[index]).join("/") || submissions[index].input;
  for (;;) {
    const groups = groupBy(submissions.map((_, index) => index), labelOf);
    const growable = [...groups.values()].filter((group) => group.length > 1 && group.some((index) => depth[index] < parts[index].length));
    if (growable.length === 0) break;
    for (const group of growable) for (const index of group) depth[index] = Math.min(depth[index] + 1, parts[index].length);
  }
  for (const group of groupBy(submissions.map((_, index) => index), labelOf).values()) {
    group.forEach((index, position) => {
      submissions[index].name = position === 0 ? labelOf(index) : `${labelOf(index)}#${position + 1}`;
    });
  }
  return submissions;
}

/**
 * Report file names (without extension), one per submission name: only letters,
 * digits, `.`, `_` and `-`; no leading dot; not a reserved device name; at
 * most 100 characters; unique even on a case-insensitive file system (a
 * clash gets `-2`, `-3`, … in input order).
 */
export function reportStems(names) {
  const taken = new Set();
  return names.map((name) => {
    const stem = safeStem(name);
    let candidate = stem;
    for (let n = 2; taken.has(candidate.toLowerCase()); n += 1) candidate = `${stem}-${n}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

function safeStem(name) {
  let stem = Array.from(String(name).replace(/[^\p{L}\p{N}._-]+/gu, "_").replace(/^\.+/, (dots) => "_".repeat(dots.length)))
    .slice(0, STEM_CHARS_MAX)
    .join("");
  if (stem === "" || WINDOWS_RESERVED.test(stem.split(".")[0])) stem = `_${stem}`;
  return stem;
}

function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const k = key(item);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(item);
  }
  return groups;
}
