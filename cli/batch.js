// Grading many submissions on all cores: a small pool of worker threads,
// results in input order whatever order they finish in.
import { Worker } from "node:worker_threads";

export async function gradeInParallel(submissions, options, jobs, onDone) {
  const results = new Array(submissions.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(jobs, submissions.length) }, () => new Worker(new URL("./worker.js", import.meta.url)));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolve, reject) => {
            const feed = () => {
              if (next >= submissions.length) return resolve();
              const index = next++;
              worker.postMessage({ index, submission: submissions[index], options });
            };
            worker.on("message", ({ index, graded, error }) => {
              if (error) return reject(new Error(`grading ${submissions[index].name} failed: ${error}`));
              results[index] = graded;
              onDone?.(graded);
              feed();
            });
            worker.on("error", reject);
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
