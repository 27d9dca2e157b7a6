// How a job's exercise files are spread over grading threads: which files
// are graded (refused and missing ones are not), into how many parts each
// file's grading is split, and how many threads start. One plan, read by the
// batch that grades (batch.js) and by the choice of V8's compiler made before
// it (wasm-tier.js, main.js).
import { PARTS_MAX } from "../runner/merge.js";
import { ungradedReason } from "./submissions.js";

/**
 * `{ files: [{ s, f, file }], parts, threads }` for grading `submissions`,
 * `seeds` random schedules per file, with `jobs` threads allowed: each file
 * in `parts` parts (runner/merge.js), on `threads` threads.
 */
export function gradingPlan(submissions, jobs, seeds) {
  const files = [];
  submissions.forEach((submission, s) => {
    submission.files.forEach((file, f) => {
      if (ungradedReason(file) === null) files.push({ s, f, file });
    });
  });
  const parts = partsPerFile(jobs, files.length, seeds);
  return { files, parts, threads: gradingThreads(jobs, files.length, parts) };
}

/**
 * Into how many parts each of `files` files is split with `jobs` threads
 * allowed: more than one only when there are fewer files than threads (the
 * other threads would be idle), at most PARTS_MAX, and never more parts than
 * random schedules.
 */
export function partsPerFile(jobs, files, seeds) {
  if (files === 0 || files >= jobs) return 1;
  return Math.max(1, Math.min(Math.floor(jobs / files), PARTS_MAX, seeds));
}

/**
 * How many threads grade `files` files in `parts` parts each with `jobs`
 * allowed: at least one, even if no file can be graded, because a thread
 * knows the maximum scores.
 */
function gradingThreads(jobs, files, parts) {
  return Math.max(1, Math.min(jobs, files * parts));
}
