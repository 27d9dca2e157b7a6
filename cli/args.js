// Command-line arguments: parsed into options, or a usage error (exit 2).

export const USAGE = `usage: leaselab grade <file-or-directory>... [options]

Grades leaselab exercise solutions (cas.js, lock.js, lease.js, fencing.js).
A directory is one submission: every exercise file in it is graded. A file
is graded as the exercise its name says, or as --exercise.

options:
  --exercise NAME   grade a single file as this exercise (cas, lock, lease, fencing)
  --seed S          first seed of the random schedules (default 1; or LEASELAB_SEED)
  --seeds N         how many random schedules per exercise (default 100)
  --format F        text (default), json, junit, gradescope, exercism or github
  --out PATH        write the report to PATH instead of standard output
                    (with several submissions: a directory, one report each)
  --csv FILE        with several submissions: also write a CSV of scores
  --jobs N          submissions graded at once (default: the number of cores)
  -h, --help        show this help

exit status: 0 every test passed, 1 some test failed, 2 bad usage or unreadable input
`;

export const FORMATS = ["text", "json", "junit", "gradescope", "exercism", "github"];
export const EXERCISE_NAMES = ["cas", "lock", "lease", "fencing"];

export class UsageError extends Error {}

function wholeNumber(flag, text, minimum) {
  if (!/^\d+$/.test(text ?? "") || Number(text) < minimum || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} needs a whole number of at least ${minimum}, got ${text === undefined ? "nothing" : `"${text}"`}`);
  }
  return Number(text);
}

/** `{ command, inputs, exercise, firstSeed, seeds, format, out, csv, jobs }` or throws UsageError. */
export function parseArgs(argv, env = {}) {
  const options = { command: null, inputs: [], exercise: null, firstSeed: 1, seeds: 100, format: "text", out: null, csv: null, jobs: null, help: false };
  if (env.LEASELAB_SEED !== undefined && env.LEASELAB_SEED !== "") options.firstSeed = wholeNumber("LEASELAB_SEED", env.LEASELAB_SEED, 0);
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
      case "--exercise":
        options.exercise = value();
        if (!EXERCISE_NAMES.includes(options.exercise)) throw new UsageError(`--exercise must be one of ${EXERCISE_NAMES.join(", ")}; got "${options.exercise}"`);
        break;
      case "--seed":
        options.firstSeed = wholeNumber("--seed", value(), 0);
        break;
      case "--seeds":
        options.seeds = wholeNumber("--seeds", value(), 1);
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
      case "--jobs":
        options.jobs = wholeNumber("--jobs", value(), 1);
        break;
      default:
        if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}`);
        if (options.command === null) options.command = arg;
        else options.inputs.push(arg);
    }
  }
  if (options.help) return options;
  if (options.command !== "grade") {
    throw new UsageError(options.command === null ? "no command given" : `unknown command "${options.command}"; the command is grade`);
  }
  if (options.inputs.length === 0) throw new UsageError("grade needs at least one file or directory");
  return options;
}
