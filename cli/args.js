// Command-line arguments: parsed into options, or a usage error (exit 2).
import { SEEDS_MAX, SOURCE_BYTES_MAX, gradingDeadlineMs } from "../runner/limits.js";
import { readFileSync } from "node:fs";
import { registry } from "./registry.js";
import { parseShard } from "./shard.js";

/** How many folders deep a submission's files may be wrapped; submissions.js reads it from here too. */
export const WRAPPING_FOLDERS_MAX = 4;

/** The exercises, in the lesson's order: the grader's registry is the one list. */
export const EXERCISE_NAMES = registry.names;
const FILES = registry.exercises.map((exercise) => exercise.file).join(", ");
const DEFAULT_SEEDS = registry.defaults.seeds;

export const USAGE = `usage: leaselab grade <folder-archive-or-file>... [options]
       leaselab replay <token> <folder-archive-or-file> [--timeout S]

grade: grades solutions to leaselab's exercises
(${FILES}).
A folder or a .zip, .tar, .tar.gz archive is one submission (the lesson's
export, ownership-election-solutions.tar, is one): its exercise files are
graded. Dot-files and __MACOSX/ are ignored; a submission whose top level
holds no exercise file and one folder (or, in a folder, one archive) is
read from that folder, up to ${WRAPPING_FOLDERS_MAX} deep. In a class (several submissions,
or --shard) every exercise is required unless --require says otherwise: a
missing file scores 0 with an error naming it, and the CSV says what is
missing; one submission alone is graded on the exercise files it holds.
A file is graded as the exercise its name says, or as --exercise. Sources
must be regular UTF-8 files of at most ${SOURCE_BYTES_MAX / 1024} KiB; links, pipes and devices are
refused (that exercise scores 0), and archives are read within limits of
size and entries (ARCHITECTURE.md, the threat model).

replay: runs one test's run again from its replay token (the last line of
every failure's story) on the submission's file for that exercise, and
prints the run's timeline.

options:
  --exercise NAME   grade only this exercise: a file, or that exercise's file
                    of a folder or archive (${EXERCISE_NAMES.join(", ")})
  --require LIST    the exercises every submission must hold: all (the default
                    for a class), none (grade what each holds: the default for
                    one submission), or names separated by commas
                    (${EXERCISE_NAMES.slice(0, 2).join(",")}). A missing file scores 0 with an error naming
                    the file to add (or to rename or move, when the submission
                    holds one named like it or one in another folder), and the
                    exit status is 1. Under none, a submission with no exercise
                    file is refused (exit 2; the message lists what it holds);
                    among several, the others are still graded. Give it once
  --points LIST     points per exercise for the assignment's total, such as
                    cas=10,lock=20,lease=20,fencing=20,election=30: each named
                    exercise's tests are scaled to that total (to 0.01 points);
                    the others keep the grader's points
  --seed S          first seed of the random schedules (default ${registry.defaults.firstSeed}; or LEASELAB_SEED).
                    Replay tokens carry it; with --format gradescope (which
                    learners read) a seed other than the default is kept secret:
                    tokens go only to a test hidden from learners
  --seeds N         how many random schedules per exercise (default ${DEFAULT_SEEDS}, as in
                    the browser; at most ${SEEDS_MAX}; or LEASELAB_SEEDS)
  --format F        text (default), json, junit, gradescope, exercism or github
  --out PATH        write the report to PATH instead of standard output
                    (with several submissions: a directory, one report each)
  --csv FILE        also write a CSV of scores, one row per submission, with
                    the exercises each one lacks
  --report FILE     also write a class report: FILE.html (one page, readable
                    offline: each exercise's score distribution, the rules
                    failed most, each with an example story, its replay token
                    and the learners who broke it) or FILE.json (the same data)
  --shard I/N       grade only part I of N of the submissions (split by name, the
                    same on every machine given the same inputs); with --csv,
                    only part 1 writes the header line, so the parts' CSVs
                    concatenated in order (cat) are the whole class's CSV
  --jobs N          grading threads (default: the number of cores); with fewer
                    files than threads, each file is split between them
  --wasm-tier T     how V8 compiles the grader: auto (default), baseline or
                    optimised; auto picks baseline for a job of about one
                    submission (it starts faster and needs less memory) and
                    optimised for longer ones (faster once warm)
  --timeout S       stop grading an exercise file (each part of one, when it is
                    split) after S seconds of real time
                    (default ${gradingDeadlineMs(DEFAULT_SEEDS) / 1000} s at ${DEFAULT_SEEDS} schedules, scaled with --seeds);
                    it then scores 0 with a "took too long" error
  --version         print the package's version, the grader's version and the
                    default budget
  -h, --help        show this help

exit status: 0 every test passed (replay: the run breaks no rule), 1 some test
failed or could not be graded (replay: the run breaks a rule), 2 bad usage, a
refused input or an output that could not be written
`;

// The package's version is package.json's, next to cli/ in the repository
// and in the installed package alike (the tarball is built from it).
const PACKAGE_VERSION = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

/**
 * What `leaselab --version` prints: the package, the grader whose verdicts it
 * gives (replay tokens and reports carry it) and the budget, the three things
 * that decide whether two gradings can be compared.
 */
export const VERSION_TEXT = `leaselab ${PACKAGE_VERSION}
grader ${registry.graderVersion}
budget ${DEFAULT_SEEDS} random schedules per exercise (default; --seeds N changes it), first seed ${registry.defaults.firstSeed}
`;

export const FORMATS = ["text", "json", "junit", "gradescope", "exercism", "github"];
export const WASM_TIERS = ["auto", "baseline", "optimised"];

export class UsageError extends Error {}

// A longer delay would overflow setTimeout, which then fires at once.
const TIMEOUT_SECONDS_MAX = Math.floor((2 ** 31 - 1) / 1000);

/** A count of random schedules, from `--seeds` or LEASELAB_SEEDS: the runner's memory and the deadline are sized for at most SEEDS_MAX. */
function seedsCount(flag, text) {
  const seeds = wholeNumber(flag, text, 1);
  if (seeds > SEEDS_MAX) throw new UsageError(`${flag} can be at most ${SEEDS_MAX}; got ${seeds}`);
  return seeds;
}

function wholeNumber(flag, text, minimum) {
  if (!/^\d+$/.test(text ?? "") || Number(text) < minimum || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} needs a whole number of at least ${minimum}, got ${text === undefined ? "nothing" : `"${text}"`}`);
  }
  return Number(text);
}

/**
 * The exercises `--require` names: every exercise for `all`, none for
 * `none`, else the names separated by commas, each checked against the
 * registry (in the lesson's order, each once). Throws UsageError.
 */
function requiredExercises(text) {
  if (text === "all") return [...EXERCISE_NAMES];
  if (text === "none") return [];
  const names = text.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !EXERCISE_NAMES.includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(`--require needs all, none or exercise names separated by commas (${EXERCISE_NAMES.join(", ")}); got "${text}"`);
  }
  return EXERCISE_NAMES.filter((name) => names.includes(name));
}

/** The most points one exercise may be given, and the finest step (points are reported to 0.01). */
const POINTS_MAX = 10_000;

/** `{ exercise: points }` from `cas=10,lock=20`; throws UsageError. */
function pointsPerExercise(text) {
  const points = {};
  for (const item of text.split(",")) {
    const match = /^\s*([a-z0-9-]+)\s*=\s*(\d+(?:\.\d{1,2})?)\s*$/.exec(item);
    if (!match) throw new UsageError(`--points needs exercise=points pairs separated by commas, such as cas=10,lock=20 (points a number with at most two decimals); got "${text}"`);
    const [, name, value] = match;
    if (!EXERCISE_NAMES.includes(name)) throw new UsageError(`--points names "${name}", which is not an exercise (${EXERCISE_NAMES.join(", ")})`);
    if (name in points) throw new UsageError(`--points gives ${name} twice`);
    const number = Number(value);
    if (number <= 0 || number > POINTS_MAX) throw new UsageError(`--points: ${name} must get more than 0 and at most ${POINTS_MAX} points; got ${value}`);
    points[name] = number;
  }
  return points;
}

/** `{ command, inputs, exercise, require, firstSeed, seeds, format, out, csv, shard, jobs, wasmTier, timeoutMs }` or throws UsageError. */
export function parseArgs(argv, env = {}) {
  const options = { command: null, inputs: [], exercise: null, require: null, points: null, report: null, firstSeed: registry.defaults.firstSeed, seeds: DEFAULT_SEEDS, format: "text", out: null, csv: null, shard: null, jobs: null, wasmTier: "auto", timeoutMs: null, help: false, version: false };
  let seedGiven = false;
  let seedsGiven = false;
  let requireText = null;
  const rest = [...argv];
  while (rest.length > 0) {
    const arg = rest.shift();
    const value = () => {
      if (rest.length === 0 || rest[0].startsWith("--")) throw new UsageError(`${arg} needs a value`);
      return rest.shift();
    };
    switch (arg) {
      case "-h":
      case "--help":
        options.help = true;
        break;
      case "--version":
        options.version = true;
        break;
      case "--exercise":
        options.exercise = value();
        if (!EXERCISE_NAMES.includes(options.exercise)) throw new UsageError(`--exercise must be one of ${EXERCISE_NAMES.join(", ")}; got "${options.exercise}"`);
        break;
      case "--require": {
        const text = value();
        const names = requiredExercises(text);
        // Every other option's last value wins; a second --require that replaced the first would
        // silently drop a requirement (a learner's missing file then passes unseen), so it is refused.
        if (requireText !== null) {
          const both = EXERCISE_NAMES.filter((name) => options.require.includes(name) || names.includes(name));
          const merged = both.length === EXERCISE_NAMES.length ? "all" : both.join(",");
          throw new UsageError(`--require is given twice ("${requireText}", then "${text}"); give it once, with every exercise it needs, such as --require ${merged}`);
        }
        requireText = text;
        options.require = names;
        break;
      }
      case "--seed":
        options.firstSeed = wholeNumber("--seed", value(), 0);
        seedGiven = true;
        break;
      case "--seeds":
        options.seeds = seedsCount("--seeds", value());
        seedsGiven = true;
        break;
      case "--points":
        options.points = pointsPerExercise(value());
        break;
      case "--report":
        options.report = value();
        if (!/\.(html|json)$/i.test(options.report)) throw new UsageError(`--report needs a file name ending in .html (the page) or .json (its data); got "${options.report}"`);
        break;
      case "--format":
        options.format = value();
        if (!FORMATS.includes(options.format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got "${options.format}"`);
        break;
      case "--out":
        options.out = value();
        break;
      case "--csv":
        options.csv = value();
        break;
      case "--shard":
        options.shard = parseShard(value(), (message) => new UsageError(message));
        break;
      case "--jobs":
        options.jobs = wholeNumber("--jobs", value(), 1);
        break;
      case "--wasm-tier":
        options.wasmTier = value();
        if (!WASM_TIERS.includes(options.wasmTier)) throw new UsageError(`--wasm-tier must be one of ${WASM_TIERS.join(", ")}; got "${options.wasmTier}"`);
        break;
      case "--timeout": {
        const seconds = wholeNumber("--timeout", value(), 1);
        if (seconds > TIMEOUT_SECONDS_MAX) throw new UsageError(`--timeout can be at most ${TIMEOUT_SECONDS_MAX} seconds; got ${seconds}`);
        options.timeoutMs = seconds * 1000;
        break;
      }
      default:
        if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}`);
        if (options.command === null) options.command = arg;
        else options.inputs.push(arg);
    }
  }
  if (options.help || options.version) return options;
  // The environment only when the flag is not given: --seed wins, even over a LEASELAB_SEED that is not a seed.
  if (!seedGiven && env.LEASELAB_SEED !== undefined && env.LEASELAB_SEED !== "") options.firstSeed = wholeNumber("LEASELAB_SEED", env.LEASELAB_SEED, 0);
  if (!seedsGiven && env.LEASELAB_SEEDS !== undefined && env.LEASELAB_SEEDS !== "") options.seeds = seedsCount("LEASELAB_SEEDS", env.LEASELAB_SEEDS);
  if (options.command === "replay") {
    if (options.inputs.length !== 2) throw new UsageError("replay needs a replay token and the file, folder or archive to replay it on: leaselab replay TOKEN FILE");
    const chosen = ["exercise", "require", "points", "report", "out", "csv", "shard"].filter((name) => options[name] !== null);
    if (chosen.length > 0 || options.format !== "text") throw new UsageError(`replay takes only --timeout; the token says the exercise, the seed and the schedule (got --${chosen[0] ?? "format"})`);
    return options;
  }
  if (options.command !== "grade") {
    throw new UsageError(options.command === null ? "no command given" : `unknown command "${options.command}"; the commands are grade and replay`);
  }
  if (options.inputs.length === 0) throw new UsageError("grade needs at least one file or directory");
  // --exercise picks one file to grade; --require says what a directory must hold. Together they contradict.
  if (options.require && options.exercise) throw new UsageError("--require and --exercise cannot be combined: --exercise grades one exercise, --require lists the exercises a submission directory must hold");
  // Checked before grading, so a class's batch is not graded only to be thrown away.
  // A shard is always graded as a batch (a table and a CSV), even when its part holds one submission.
  if ((options.inputs.length > 1 || options.shard) && options.format !== "text" && !options.out) {
    throw new UsageError(`with several submissions${options.shard ? " or --shard" : ""}, --format ${options.format} needs --out DIRECTORY (one report per submission)`);
  }
  return options;
}
