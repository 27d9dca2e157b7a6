// The hostile corpus in Node (issue 12): every file in
// tests/fixtures/hostile/ ends in its expected verdict within a bounded
// time: no forged pass, no crash of the runner, no hang, no verdict in
// engine words; every failing run replays from its token to the same broken
// rule; and in a batch, graded again among the others, every file gets a
// byte-identical report and no hostile file changes how the next
// submission is graded.
//
// Files are graded in two lanes, one per core, as the CLI grades a class:
// a lane's thread grades one file after another, each in a fresh QuickJS
// instance, and a thread that outlives a file's hard timeout is terminated
// and replaced, so a hang fails its own test instead of stalling the suite
// or the files after it. (A thread of its own per file cost a quarter of a
// second of cold start each, a third of this file's time.) The hangs that
// only a deadline outside the VM can stop (one long built-in call) are
// graded through the CLI with `--timeout`, as a course would.
//
// HOSTILE_STATUS=<file> writes a Markdown summary of every file that missed
// its expectation, grouped by class (what the runner's hardening works from).
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { DEFAULT_SEEDS, EXERCISES, judge, loadCorpus, plainThrowVariant, referenceSource, sourceOf, statusMarkdown, verdictOf } from "./support/hostile.mjs";
import { GradingLane, cliHasTimeout, gradeInThread, gradeViaCli } from "./support/hostile-node.mjs";
import { DEADLINE_MS_MAX } from "../runner/limits.js";

const corpus = loadCorpus();

/**
 * A grading that takes longer than this is a hang. A well-behaved 5-seed
 * grading takes about a second, but a memory bomb takes seconds a run and
 * about 20 s in all on a quiet machine, and many times that on a loaded one:
 * its verdict, not the clock, is under test here, so the bound is the
 * longest deadline any host may set, which only a broken runner nears.
 */
const HARD_MS = DEADLINE_MS_MAX;
/** The leak check grades thousands of schedules: allow it twice that. */
const HARD_MS_LONG = 2 * DEADLINE_MS_MAX;
/**
 * The CLI's own deadline for the hangs, in seconds (it counts from the
 * grading thread being ready). A hang spins a core until it fires, so it is
 * short: every one of these files must end in "took too long", which it
 * does at any deadline; the deadline's length and its effect on the other
 * files of a class are under test in cli-hostile.node.test.mjs.
 */
const CLI_DEADLINE_SECONDS = 1;

const cliDeadline = cliHasTimeout();

/** name → { entry, complaints, outcome summary }, for HOSTILE_STATUS. */
const status = new Map();

function summary(outcome) {
  switch (outcome.kind) {
    case "report":
      return `${verdictOf(outcome.report)} (${Math.round(outcome.ms)} ms)`;
    case "timeout":
      return `hung: terminated after ${Math.round(outcome.ms / 1000)} s`;
    case "crash":
      return `runner crashed: ${outcome.error.split("\n").slice(0, 3).join(" ")}`;
    case "died":
      return `grading thread died: ${outcome.error.split("\n")[0]}`;
    default:
      return "not run (an earlier grading in its thread hung or died)";
  }
}

/** The outcome as complaints: a crash, hang or death is always wrong. */
function complaintsOf(entry, outcome, extra = {}) {
  if (outcome.kind !== "report") return [summary(outcome)];
  return judge(entry, outcome.report, { reportChars: outcome.reportChars, ...extra });
}

function job(id, entry, fields) {
  return { id, exercise: entry.exercise, options: { seeds: entry.seeds }, timeoutMs: entry.cls === 6 ? HARD_MS_LONG : HARD_MS, ...fields };
}

/** Each file's own report, graded alone: the batch must reproduce it byte for byte. */
const aloneReports = new Map();

/** The lanes the files are graded in (as many as the tests that run at once). */
const LANES = 2;
const idleLanes = Array.from({ length: LANES }, () => new GradingLane());

/** Grades `jobs` in order in an idle lane. */
async function gradeInLane(jobs) {
  const lane = idleLanes.pop();
  assert.ok(lane, `more than ${LANES} files graded at once`);
  try {
    const outcomes = new Map();
    for (const job of jobs) outcomes.set(job.id, await lane.grade(job));
    return outcomes;
  } finally {
    idleLanes.push(lane);
  }
}

async function gradeEntry(entry) {
  if (entry.via === "cli") {
    if (!(await cliDeadline)) {
      // No outside deadline yet: show how the runner alone fares, bounded by our own timeout.
      const outcomes = await gradeInThread([job("main", entry, { path: entry.path })]);
      return { outcome: outcomes.get("main"), complaints: ["the CLI has no --timeout: nothing outside the VM stops this hang", ...complaintsOf(entry, outcomes.get("main"))] };
    }
    const outcome = await gradeViaCli(entry, { timeoutSeconds: CLI_DEADLINE_SECONDS, hardMs: HARD_MS });
    return { outcome, complaints: complaintsOf(entry, outcome) };
  }
  // Replayed too, unless the source is the generated 200 MB one (refused before anything runs).
  const jobs = [job("main", entry, { path: entry.path, generate: entry.generate, replay: entry.generate === null })];
  if (entry.plainThrow) jobs.push(job("plain", entry, { source: plainThrowVariant(sourceOf(entry)) }));
  const outcomes = await gradeInLane(jobs);
  const main = outcomes.get("main");
  const plain = outcomes.get("plain");
  const complaints = complaintsOf(entry, main, { plainReport: plain?.kind === "report" ? plain.report : null });
  if (entry.plainThrow && plain?.kind !== "report") complaints.push(`its plain-throw variant: ${summary(plain)}`);
  // QuickJS prints "Aborted(…)" when freeing a runtime fails: the runner must not free one it cannot.
  const printed = [main, plain].map((outcome) => outcome?.stderr ?? "").join("");
  if (/Aborted\(|Assertion failed/.test(printed)) complaints.push(`QuickJS aborted while it was graded: ${printed.trim().split("\n")[0].slice(0, 300)}`);
  for (const replay of main.replays ?? []) {
    complaints.push(`replaying the failing run of "${replay.test}" from its token (the page's copy link) gives ${replay.got.slice(0, 400)}, not ${replay.expected.slice(0, 400)}`);
  }
  if (main.kind === "report") aloneReports.set(entry.name, JSON.stringify(main.report));
  return { outcome: main, complaints };
}

describe("every hostile file ends in its expected verdict, in bounded time", { concurrency: LANES }, () => {
  for (const entry of corpus) {
    const label = `class ${entry.cls}: ${entry.name} must ${entry.expect === "fail" ? "not pass" : entry.expect === "pass" ? "pass" : "be refused as a problem"}${entry.via === "cli" ? " (via the CLI's deadline)" : ""}${entry.cls === 6 ? ` [leak check: the reference solution with ${entry.seeds} seeds]` : ""}`;
    test(label, { timeout: (entry.cls === 6 ? HARD_MS_LONG : HARD_MS) * 4 }, async () => {
      const { outcome, complaints } = await gradeEntry(entry);
      status.set(entry.name, { entry, complaints, summary: summary(outcome) });
      assert.deepEqual(complaints, [], `${entry.name} (${entry.attack})`);
    });
  }
});

// Like a course grading a class: in one thread (one engines instance),
// each hostile file is followed by the reference solution of its exercise,
// which must get exactly the report it gets alone, and each hostile file
// must get exactly the report it got alone above (so every file is also
// graded twice, in different company, byte for byte). Two such threads
// share the files, one per core. The CLI-only hangs, the generated huge
// source and the long leak check are left out: only a deadline outside the
// thread stops the first, and the others are too slow to grade twice.
test("in a batch, no hostile file changes how it or the next submission is graded, and reports are byte-identical", { timeout: 4 * HARD_MS_LONG }, async () => {
  const alone = await gradeInThread(EXERCISES.map((exercise) => ({ id: exercise, exercise, source: referenceSource(exercise), options: { seeds: DEFAULT_SEEDS }, timeoutMs: HARD_MS })));
  const baseline = new Map();
  for (const exercise of EXERCISES) {
    const outcome = alone.get(exercise);
    assert.equal(outcome.kind, "report", `the ${exercise} reference solution alone: ${summary(outcome)}`);
    assert.equal(outcome.report.score, outcome.report.maxScore, `the ${exercise} reference solution alone: ${verdictOf(outcome.report)}`);
    baseline.set(exercise, JSON.stringify(outcome.report));
  }
  const hostile = corpus.filter((entry) => entry.via !== "cli" && entry.generate === null && entry.cls !== 6);
  const lanes = [[], []];
  hostile.forEach((entry, index) => {
    lanes[index % lanes.length].push(
      { id: `hostile ${entry.name}`, exercise: entry.exercise, path: entry.path, options: { seeds: entry.seeds }, timeoutMs: HARD_MS },
      { id: `after ${entry.name}`, exercise: entry.exercise, source: referenceSource(entry.exercise), options: { seeds: DEFAULT_SEEDS }, timeoutMs: HARD_MS },
    );
  });
  const outcomes = new Map();
  for (const lane of await Promise.all(lanes.map((jobs) => gradeInThread(jobs)))) for (const [id, outcome] of lane) outcomes.set(id, outcome);
  const spoiled = [];
  for (const entry of hostile) {
    const own = outcomes.get(`hostile ${entry.name}`);
    const next = outcomes.get(`after ${entry.name}`);
    if (own.kind !== "report") spoiled.push(`${entry.name} in the batch: ${summary(own)}`);
    else if (aloneReports.has(entry.name) && JSON.stringify(own.report) !== aloneReports.get(entry.name)) {
      spoiled.push(`${entry.name} in the batch: ${verdictOf(own.report)}; alone: ${verdictOf(JSON.parse(aloneReports.get(entry.name)))} (not byte-identical)`);
    }
    if (next.kind !== "report") spoiled.push(`the ${entry.exercise} reference after ${entry.name}: ${summary(next)}`);
    else if (JSON.stringify(next.report) !== baseline.get(entry.exercise)) spoiled.push(`the ${entry.exercise} reference after ${entry.name}: ${verdictOf(next.report)}, not its report alone`);
  }
  status.set("(batch)", { entry: { cls: "batch", name: "batch", expect: "-", attack: "every hostile file graded again among the others, each followed by its exercise's reference solution" }, complaints: spoiled, summary: `${hostile.length} hostile files in two threads` });
  assert.deepEqual(spoiled, []);
});

after(async () => {
  await Promise.all(idleLanes.map((lane) => lane.close()));
  if (process.env.HOSTILE_STATUS) writeFileSync(process.env.HOSTILE_STATUS, statusMarkdown("Hostile corpus in Node", [...status.values()]));
});
