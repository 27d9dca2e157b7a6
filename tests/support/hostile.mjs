// The hostile corpus (tests/fixtures/hostile/<exercise>/*.js) and how its
// files are judged: shared by the Node and the Chromium test.
//
// Each file starts with header comments that say what it expects:
//
//   // exercise: lock                 which exercise it is graded as
//   // class: 4                       the class of attack it belongs to (CLASSES below)
//   // expect: pass|fail|problem      pass: full marks, no problem; fail: it
//                                     must not pass (a failing test or a
//                                     problem); problem: it must not even run
//   // expect-message: <regex>        some failing test's message or problem matches
//   // forbid-message: <regex>        no failing test's message or problem matches
//   // compare: plain-throw           it must score exactly like the same file
//                                     with `throw poison()` replaced by a plain Error
//   // seeds: N                       random schedules (default DEFAULT_SEEDS)
//   // via: cli                       a hang no in-VM limit can stop: graded
//                                     through the CLI, whose hard deadline
//                                     terminates the grading thread
//   // generate: pad-comment BYTES    the source is the file plus a comment of
//                                     BYTES bytes, made at test time
//   // attack: <one line>             what the file does
//
// Messages are matched loosely: the runner's wording may change, the
// verdict it names may not.
import { loadNodeRegistry } from "../../runner/node/engines.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { LESSON_DIR as LESSON_FOLDER } from "../../web/build/lesson-folder.mjs";
import { fileURLToPath } from "node:url";
import { parseHeader } from "./header.mjs";

export const CORPUS_DIR = fileURLToPath(new URL("../fixtures/hostile/", import.meta.url));
export const LESSON_DIR = LESSON_FOLDER;
export const { names: EXERCISES } = await loadNodeRegistry();
export const DEFAULT_SEEDS = 5;

/** The classes of attack, by the number a file's `class:` header gives. */
export const CLASSES = {
  1: "forge a pass: tamper with the realm, the harness, the outbox or the report",
  2: "act after the work is done, or never finish it: loops, floods and calls after the last step",
  3: "go quiet with a poison value: proxies and getters that throw, values that cannot be described",
  4: "crash or swell the host with values: odd numbers, lone surrogates, huge or deep values, memory",
  5: "hang inside one built-in call, where only the hard deadline stops it",
  6: "wear the grader down over many runs: its memory must stay flat",
  7: "none: a correct solution with unusual habits, which must pass",
  10: "a stop whose verdict must name what the code did",
};

/**
 * Wordings no verdict may use for a hostile submission, whatever its class:
 * engine internals instead of what the learner's code did, the grader
 * blaming itself, or raw wasm failures that escaped the runner.
 */
export const ALWAYS_FORBIDDEN = /InternalError: interrupted|threw null\b|it exports nothing|grader bug|RuntimeError|unreachable executed|memory access out of bounds|Maximum call stack/;

/** A verdict's text must stay small: learner values are described, never dumped. */
export const REPORT_CHARS_MAX = 2_000_000;

/** Every corpus file: `{ name, path, exercise, cls, expect, message, forbid, seeds, via, generate, plainThrow, attack }`. */
export function loadCorpus() {
  const entries = [];
  const strays = readdirSync(CORPUS_DIR).filter((name) => !EXERCISES.includes(name));
  if (strays.length > 0) throw new Error(`tests/fixtures/hostile/ holds ${strays.join(", ")}, which the registry does not name as exercises (it names ${EXERCISES.join(", ")})`);
  // Every exercise the registry names has attacks of its own: a missing
  // folder is a gap in the corpus, not an exercise with nothing to attack.
  for (const exercise of EXERCISES) {
    if (!existsSync(`${CORPUS_DIR}${exercise}`)) {
      throw new Error(`the hostile corpus has no folder for the exercise "${exercise}": add tests/fixtures/hostile/${exercise}/ with its attacks (the registry names ${EXERCISES.join(", ")})`);
    }
    const files = readdirSync(`${CORPUS_DIR}${exercise}`).filter((name) => name.endsWith(".js")).sort();
    if (files.length === 0) throw new Error(`tests/fixtures/hostile/${exercise}/ holds no .js file: the exercise "${exercise}" has no attacks`);
    for (const file of files) {
      const path = `${CORPUS_DIR}${exercise}/${file}`;
      const header = parseHeader(readFileSync(path, "utf8"));
      for (const key of ["exercise", "class", "expect", "attack"]) {
        if (!header[key]) throw new Error(`${exercise}/${file} has no "// ${key}:" header line`);
      }
      if (header.exercise !== exercise) throw new Error(`${exercise}/${file} says it is for ${header.exercise}`);
      if (!["pass", "fail", "problem"].includes(header.expect)) throw new Error(`${exercise}/${file}: expect must be pass, fail or problem`);
      if (!(header.class in CLASSES)) throw new Error(`${exercise}/${file}: class must be one of ${Object.keys(CLASSES).join(", ")} (CLASSES in tests/support/hostile.mjs)`);
      entries.push({
        name: `${exercise}/${file}`,
        path,
        exercise,
        cls: Number(header.class),
        expect: header.expect,
        message: header["expect-message"] ? new RegExp(header["expect-message"]) : null,
        forbid: header["forbid-message"] ? new RegExp(header["forbid-message"]) : null,
        seeds: header.seeds ? Number(header.seeds) : DEFAULT_SEEDS,
        via: header.via ?? "runner",
        generate: header.generate ?? null,
        plainThrow: header.compare === "plain-throw",
        attack: header.attack,
      });
    }
  }
  return entries;
}

/** The source to grade: the file, plus whatever its `generate` header asks for. */
export function sourceOf(entry) {
  const text = readFileSync(entry.path, "utf8");
  return generated(text, entry.generate);
}

/** Applies a `generate` recipe to a file's text. */
export function generated(text, recipe) {
  return recipe ? padded(text, padBytes(recipe)) : text;
}

/** The size of the comment a `pad-comment BYTES` recipe appends. */
export function padBytes(recipe) {
  const [kind, amount] = recipe.split(/\s+/);
  if (kind !== "pad-comment" || !(Number(amount) > 6)) throw new Error(`unknown generate recipe ${recipe}`);
  return Number(amount);
}

/**
 * One block comment of `bytes` bytes after the code: the module stays valid,
 * only huge. Self-contained, so the browser test can run it in the page
 * (a 200 MB string is built where it is graded, never sent).
 */
export function padded(text, bytes) {
  return `${text}\n/* ${"x".repeat(bytes - 6)} */\n`;
}

/** The same file with its poison replaced by a plain Error: what it must score like. */
export function plainThrowVariant(text) {
  if (!text.includes("throw poison()")) throw new Error("a plain-throw comparison needs `throw poison()` in the file");
  return text.replaceAll("throw poison()", 'throw new Error("poison")');
}

/** The lesson's reference solution for an exercise. */
export function referenceSource(exercise) {
  return readFileSync(`${LESSON_DIR}${exercise}/solution.js`, "utf8");
}

/** What a report says to the learner: the problems and the failing tests' messages. */
export function messagesOf(report) {
  const failing = (report.tests ?? []).filter((test) => test.status !== "passed").map((test) => `${test.name}: ${test.message}`);
  return [...(report.problems ?? []), ...failing];
}

export function passed(report) {
  return (report.problems ?? []).length === 0 && report.tests.length > 0 && report.tests.every((test) => test.status === "passed") && report.score === report.maxScore;
}

/** A one-line summary of a report, for failure messages and the status file. */
export function verdictOf(report) {
  const messages = messagesOf(report);
  const head = passed(report) ? "passed" : report.problems?.length ? "problem" : "failed";
  return `${head} ${report.score}/${report.maxScore}${messages.length ? `: ${messages.map((message) => message.slice(0, 240)).join(" | ")}` : ""}`;
}

/**
 * Everything wrong with `report` as the verdict for `entry`, as sentences
 * (empty: the file got what it expects). `plainReport` is the plain-throw
 * variant's report, when the entry asks for that comparison.
 */
export function judge(entry, report, { plainReport = null, reportChars = JSON.stringify(report).length } = {}) {
  const complaints = [];
  const messages = messagesOf(report);
  const ok = passed(report);
  if (entry.expect === "pass" && !ok) complaints.push(`expected a pass, got ${verdictOf(report)}`);
  if (entry.expect === "fail" && ok) complaints.push(`expected it not to pass, but it passed ${report.score}/${report.maxScore} (a forged pass)`);
  if (entry.expect === "problem" && !(report.problems?.length > 0)) complaints.push(`expected a problem (the submission cannot run), got ${verdictOf(report)}`);
  if (entry.expect !== "pass" && entry.message && !messages.some((message) => entry.message.test(message))) {
    complaints.push(`no message matches /${entry.message.source}/; got ${verdictOf(report)}`);
  }
  const forbidden = entry.forbid ? new RegExp(`${entry.forbid.source}|${ALWAYS_FORBIDDEN.source}`) : ALWAYS_FORBIDDEN;
  const bad = messages.filter((message) => forbidden.test(message));
  if (bad.length > 0) complaints.push(`a message uses forbidden wording /${forbidden.source}/: ${bad.map((message) => message.slice(0, 240)).join(" | ")}`);
  // A timeline is one line per event: learner text in a sentence is quoted, never raw line breaks that would forge lines of the CLI's report.
  const broken = (report.tests ?? []).flatMap((test) => (test.counterexample?.words ?? []).flatMap((words) => [words.text, words.call ?? ""])).filter((text) => /[\n\r\u2028\u2029]/.test(text));
  if (broken.length > 0) complaints.push(`a timeline sentence holds a raw line break: ${broken.slice(0, 3).map((text) => JSON.stringify(text.slice(0, 160))).join(" | ")}`);
  if (reportChars > REPORT_CHARS_MAX) complaints.push(`the report is ${reportChars} characters (at most ${REPORT_CHARS_MAX}): learner values must be described within bounds`);
  if (plainReport) {
    const failedNames = (r) => r.tests.filter((test) => test.status !== "passed").map((test) => test.name).join(", ");
    if (plainReport.score !== report.score || failedNames(plainReport) !== failedNames(report)) {
      complaints.push(`the poison did not fail like a plain throw: ${report.score}/${report.maxScore} failing [${failedNames(report)}], a plain Error ${plainReport.score}/${plainReport.maxScore} failing [${failedNames(plainReport)}]`);
    }
  }
  return complaints;
}

/**
 * A Markdown summary of the files that missed their expectation, grouped
 * by class (`items`: `{ entry, complaints, summary }`; an entry whose class
 * is "batch" is listed last). For HOSTILE_STATUS=<file>.
 */
export function statusMarkdown(title, items) {
  const lines = [`# ${title}: ${new Date().toISOString()}`, ""];
  const missed = items.filter((item) => item.complaints.length > 0);
  lines.push(`${items.length} graded, ${missed.length} missed their expectation.`, "");
  const order = (cls) => (cls === "batch" ? Infinity : Number(cls));
  const classes = [...new Set(missed.map((item) => String(item.entry.cls)))].sort((a, b) => order(a) - order(b));
  for (const cls of classes) {
    lines.push(cls === "batch" ? "## The batch" : `## Class ${cls}`, "");
    for (const item of missed.filter((entry) => String(entry.entry.cls) === cls)) {
      lines.push(`- **${item.entry.name}** (expect ${item.entry.expect ?? "-"}): ${item.entry.attack}`);
      lines.push(`  - got: ${item.summary}`);
      for (const complaint of item.complaints) lines.push(`  - ${complaint.slice(0, 1500)}`);
    }
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}
