// Command-line arguments: parsed into options, or a usage error (exit 2).
import { SEEDS_MAX, SOURCE_BYTES_MAX, gradingDeadlineMs } from "../runner/limits.js";
import { readFileSync } from "node:fs";
import { registry } from "./registry.js";
import { parseShard } from "./shard.js";

/** The exercises, in the lesson's order: the grader's registry is the one list. */
export const EXERCISE_NAMES = registry.names;
const FILES = registry.exercises.map((exercise) => exercise.file).join(", ");
const DEFAULT_SEEDS = registry.defaults.seeds;

export const USAGE = `usage: leaselab grade <file-or-directory>... [options]

Grades leaselab exercise solutions (${FILES}).
A directory is one submission: every exercise file in it is graded. A file
is graded as the exercise its name says, or as --exercise. Sources must be
regular UTF-8 files of at most ${SOURCE_BYTES_MAX / 1024} KiB; a link that leads out of its
submission directory, a pipe or a device is refused (that exercise scores 0).
A directory with no exercise file is refused (exit 2; the message lists what
it holds); among several submissions, the others are still graded and it is
left out of the table and the CSV (with --require it is graded instead).

options:
  --exercise NAME   grade a single file as this exercise (${EXERCISE_NAMES.join(", ")})
  --require LIST    the exercises every submission directory must hold: all, or
                    names separated by commas (${EXERCISE_NAMES.slice(0, 2).join(",")}); a missing file is
                    reported as that exercise scoring 0, with an error naming the
                    file to add (or to rename, when the directory holds one named
                    like it: Lock.js, lock (1).js, lock.js.txt), and the exit
                    status is 1. A directory with no exercise file at all is then
                    graded as every listed exercise missing (the error lists what
                    it holds). Without --require, a directory is graded on the
                    files it has. Only for directories: with a file argument or
                    --exercise it is a usage error (a file is one exercise by
                    choice). Give it once: a second --require is a usage error,
                    not a replacement (for every other option the last one wins)
  --seed S          first seed of the random schedules (default ${registry.defaults.firstSeed}; or LEASELAB_SEED).
                    Replay tokens carry it; with --format gradescope (which
                    learners read) a seed other than the default is kept secret:
                    tokens go only to a test hidden from learners
  --seeds N         how many random schedules per exercise (default ${DEFAULT_SEEDS}, as in
                    the browser; at most ${SEEDS_MAX})
  --format F        text (default), json, junit, gradescope, exercism or github
  --out PATH        write the report to PATH instead of standard output
                    (with several submissions: a directory, one report each)
  --csv FILE        also write a CSV of scores, one row per submission
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

exit status: 0 every test passed, 1 some test failed (or could not be graded),
2 bad usage, a refused input or an output that could not be written
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

function wholeNumber(flag, text, minimum) {
  if (!/^\d+$/.test(text ?? "") || Number(text) < minimum || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} needs a whole number of at least ${minimum}, got ${text === undefined ? "nothing" : `"${text}"`}`);
  }
  return Number(text);
}

/**
 * The exercises `--require` names: every exercise for `all`, else the names
 * separated by commas, each checked against the registry (in the lesson's
 * order, each once). Throws UsageError.
 */
function requiredExercises(text) {
  if (text === "all") return [...EXERCISE_NAMES];
  const names = text.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !EXERCISE_NAMES.includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(`--require needs all or exercise names separated by commas (${EXERCISE_NAMES.join(", ")}); got "${text}"`);
  }
  return EXERCISE_NAMES.filter((name) => names.includes(name));
}

/** `{ command, inputs, exercise, require, firstSeed, seeds, format, out, csv, shard, jobs, wasmTier, timeoutMs }` or throws UsageError. */
export function parseArgs(argv, env = {}) {
  const options = { command: null, inputs: [], exercise: null, require: null, firstSeed: registry.defaults.firstSeed, seeds: DEFAULT_SEEDS, format: "text", out: null, csv: null, shard: null, jobs: null, wasmTier: "auto", timeoutMs: null, help: false, version: false };
  let seedGiven = false;
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
        options.seeds = wholeNumber("--seeds", value(), 1);
        // The runner's memory and the deadline are sized for at most SEEDS_MAX.
        if (options.seeds > SEEDS_MAX) throw new UsageError(`--seeds can be at most ${SEEDS_MAX}; got ${options.seeds}`);
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
  if (options.command !== "grade") {
    throw new UsageError(options.command === null ? "no command given" : `unknown command "${options.command}"; the command is grade`);
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
