// The hostile corpus in real Chromium, through the built page's
// `window.leaselab.grade()` (its Web Worker, its hard deadline): every file
// ends in the verdict its header expects, in the very report the CLI gives
// it (byte for byte: one engine, whose own limits decide, whatever the
// host's stack or memory); and since a page grades submission after
// submission in one worker, each hostile file is followed by its
// exercise's reference solution, which must get exactly the report it got
// first in that page. Files that only a real-time deadline stops (`via:
// cli`) and the generated 200 MB source are judged but not compared: the
// page's deadline is not the CLI's, and the size is refused before grading.
//
// Two pages grade at once (one per core), each a long batch. If a grading
// does not settle well after the page's own deadline, the page is closed
// and the batch goes on in a fresh one; that file fails as a hang.
//
// HOSTILE_STATUS=<file> writes a Markdown summary of what missed, by class.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { startBrowser } from "./support/browser.mjs";
import { gradeWithCli, sameReport } from "./support/cli-reports.mjs";
import { openLesson } from "./support/lesson.mjs";
import { DEFAULT_SEEDS, EXERCISES, judge, loadCorpus, padBytes, padded, plainThrowVariant, referenceSource, statusMarkdown, verdictOf } from "./support/hostile.mjs";
import { DEADLINE_MS_MAX } from "../runner/limits.js";

const corpus = loadCorpus();
/** The files whose page report must be the CLI's. */
const compared = corpus.filter((entry) => entry.via !== "cli" && entry.generate === null);
/** name → the CLI's report (JSON), graded in `before`. */
let cliReports;

/**
 * The page's deadline for the hangs only an outside deadline stops. A hang
 * spins a core until the deadline fires, so this is CPU the whole suite
 * pays for, once per hang: short, because the verdict is the same at any
 * deadline ("took too long"; a file that is still doing honest work when it
 * fires gets the same words), and the deadline's own length is under test
 * in grading-deadline.browser.test.mjs.
 */
const HANG_DEADLINE_MS = 1_000;
/**
 * The deadline every other grading gets: a file whose subject is its verdict
 * (a memory bomb: seconds a run) must get that verdict on a loaded machine
 * too, not "took too long" because the machine was busy (at a load average
 * of 10 on 2 cores, it outlasted the default deadline). So it is given the
 * longest deadline a caller may ask for, which only a broken grader nears;
 * the deadline itself is under test with the hangs above and in
 * grading-deadline.browser.test.mjs.
 */
const VERDICT_DEADLINE_MS = DEADLINE_MS_MAX;
/** How long past the page's own deadline a grading may take before the test calls it a hang. */
const GRACE_MS = 60_000;
const LANES = 2;

let session;
/** name → promise of `{ complaints, summary }`, settled as the lanes get there. */
const results = new Map();
const settle = new Map();
for (const entry of corpus) {
  results.set(entry.name, new Promise((resolve) => settle.set(entry.name, resolve)));
}

/** One page, reopened after a hang. */
async function openLane() {
  const opened = await openLesson(session);
  const lane = { ...opened, consoleProblems: opened.problems };
  // The first grading loads the worker's engines: out of the way before any deadline counts.
  await grade(lane, { exercise: "lock", source: referenceSource("lock"), options: { seeds: 1 }, deadlineMs: VERDICT_DEADLINE_MS }, VERDICT_DEADLINE_MS + GRACE_MS);
  return lane;
}

/**
 * Grades in the lane's page: `{ kind: "report", report, reportChars, ms }`,
 * `{ kind: "rejected", error }` (grade() rejected: the grader itself failed)
 * or `{ kind: "timeout" }` (nothing came back: the page is then closed).
 */
async function grade(lane, request, guardMs, { generate = null } = {}) {
  const started = performance.now();
  const evaluation = generate
    ? // Built in the page: a 200 MB source is never sent through the test's pipe.
      lane.page.evaluate(`(async () => {
        const padded = ${padded.toString()};
        const source = padded(${JSON.stringify(request.source)}, ${padBytes(generate)});
        return JSON.stringify(await window.leaselab.grade({ ...${JSON.stringify({ ...request, source: undefined })}, source }));
      })()`)
    : lane.page.evaluate(async (message) => JSON.stringify(await window.leaselab.grade(message)), request);
  let timer;
  const guard = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), guardMs);
  });
  try {
    const answer = await Promise.race([evaluation.then((json) => ({ json }), (error) => ({ error })), guard]);
    if (answer === "timeout") return { kind: "timeout", ms: performance.now() - started };
    if (answer.error) return { kind: "rejected", error: String(answer.error?.message ?? answer.error).split("\n")[0], ms: performance.now() - started };
    return { kind: "report", report: JSON.parse(answer.json), reportChars: answer.json.length, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

function summary(outcome) {
  if (outcome.kind === "report") return `${verdictOf(outcome.report)} (${Math.round(outcome.ms)} ms)`;
  if (outcome.kind === "timeout") return `hung: nothing came back after ${Math.round(outcome.ms / 1000)} s`;
  return `grade() rejected: ${outcome.error}`;
}

function requestFor(entry, source) {
  return { exercise: entry.exercise, source, options: { seeds: entry.seeds }, deadlineMs: entry.via === "cli" ? HANG_DEADLINE_MS : VERDICT_DEADLINE_MS };
}

function guardFor(entry) {
  return (entry.via === "cli" ? HANG_DEADLINE_MS : VERDICT_DEADLINE_MS) + GRACE_MS;
}

/** The reference solution of `exercise`, as a request at the default budget. */
function referenceRequest(exercise) {
  return { exercise, source: referenceSource(exercise), options: { seeds: DEFAULT_SEEDS }, deadlineMs: VERDICT_DEADLINE_MS };
}

async function runLane(entries) {
  let lane = await openLane();
  const baseline = new Map();
  for (const exercise of EXERCISES) {
    const outcome = await grade(lane, referenceRequest(exercise), VERDICT_DEADLINE_MS + GRACE_MS);
    baseline.set(exercise, outcome.kind === "report" ? JSON.stringify(outcome.report) : null);
  }
  for (const entry of entries) {
    const complaints = [];
    const consoleBefore = lane.consoleProblems.length;
    const text = readFileSync(entry.path, "utf8");
    const outcome = await grade(lane, requestFor(entry, text), guardFor(entry), { generate: entry.generate });
    let plain = null;
    if (outcome.kind === "report" && entry.plainThrow) {
      plain = await grade(lane, requestFor(entry, plainThrowVariant(text)), guardFor(entry));
      if (plain.kind !== "report") complaints.push(`its plain-throw variant: ${summary(plain)}`);
    }
    if (outcome.kind === "report") {
      complaints.unshift(...judge(entry, outcome.report, { reportChars: outcome.reportChars, plainReport: plain?.kind === "report" ? plain.report : null }));
      const fromCli = cliReports.get(entry.name);
      const difference = fromCli === undefined ? null : sameReport(entry.name, JSON.stringify(outcome.report), fromCli);
      if (difference) complaints.push(difference);
      // The next submission in this page's batch: the reference, exactly as before.
      const next = await grade(lane, referenceRequest(entry.exercise), VERDICT_DEADLINE_MS + GRACE_MS);
      if (next.kind !== "report") complaints.push(`the ${entry.exercise} reference graded next: ${summary(next)}`);
      else if (JSON.stringify(next.report) !== baseline.get(entry.exercise)) complaints.push(`the ${entry.exercise} reference graded next: ${verdictOf(next.report)}, not the report it got first in this page`);
    } else {
      complaints.unshift(summary(outcome));
    }
    const consoleAfter = lane.consoleProblems.slice(consoleBefore);
    if (consoleAfter.length > 0) complaints.push(`the page reported errors: ${consoleAfter.join(" | ").slice(0, 500)}`);
    settle.get(entry.name)({ complaints, summary: summary(outcome) });
    if (outcome.kind === "timeout") {
      await lane.context.close();
      lane = await openLane();
    }
  }
  await lane.context.close();
}

let lanes;
before(async () => {
  cliReports = gradeWithCli(compared.map((entry) => ({ name: entry.name, exercise: entry.exercise, source: readFileSync(entry.path, "utf8"), seeds: entry.seeds })));
  session = await startBrowser();
  // Slow files first, spread over the lanes, so neither lane ends long after the other.
  const slowFirst = [...corpus].sort((a, b) => Number(b.via === "cli" || b.cls === 6) - Number(a.via === "cli" || a.cls === 6));
  const split = Array.from({ length: LANES }, () => []);
  slowFirst.forEach((entry, index) => split[index % LANES].push(entry));
  lanes = Promise.all(
    split.map((entries) =>
      runLane(entries).catch((error) => {
        // A lane that breaks (the browser, not a submission) fails every file it had left.
        for (const entry of entries) settle.get(entry.name)({ complaints: [`the lane broke: ${error.message}`], summary: "not graded" });
      }),
    ),
  );
});

after(async () => {
  await lanes;
  await session?.close();
  if (process.env.HOSTILE_STATUS) {
    const items = await Promise.all(corpus.map(async (entry) => ({ entry, ...(await results.get(entry.name)) })));
    writeFileSync(process.env.HOSTILE_STATUS, statusMarkdown("Hostile corpus in Chromium", items));
  }
});

for (const entry of corpus) {
  const label = `class ${entry.cls}: ${entry.name} must ${entry.expect === "fail" ? "not pass" : entry.expect === "pass" ? "pass" : "be refused as a problem"} in Chromium${entry.via === "cli" ? " (via the page's deadline)" : ""}`;
  test(label, { timeout: 30 * 60_000 }, async () => {
    const { complaints } = await results.get(entry.name);
    assert.deepEqual(complaints, [], `${entry.name} (${entry.attack})`);
  });
}
