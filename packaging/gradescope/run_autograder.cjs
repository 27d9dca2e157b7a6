// Gradescope runs this for every submission (through run_autograder, with
// the Node setup.sh installed): it grades /autograder/submission with the
// leaselab that setup.sh installed and writes
// /autograder/results/results.json in Gradescope's format
// (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
//
// config.json, beside this script in the bundle, holds the course's
// settings: {"seed": 918273645, "seeds": 200, "require": "all", "points":
// {"cas": 10, "lock": 20}}. Any key null or left out (or no file) keeps its
// default:
// - "seed": the secret first seed of the random schedules (default: the
//   schedules learners see in the browser). With a seed set, no replay token
//   reaches learners, since a token carries the seed: the CLI's gradescope
//   format withholds them from every visible test and lists them in one test
//   hidden from learners (and in extra_data), for staff.
// - "seeds": how many random schedules per exercise (default 200).
// - "require": which exercise files every submission must hold, "all"
//   (the default) or a list of names (["cas", "lock"]); a missing one is
//   that exercise scoring 0, with a message saying which file to add, so a
//   partial upload never looks like a clean pass. [] grades whatever the
//   submission holds.
// - "points": each exercise's points in the assignment's total, such as
//   {"cas": 10, "lock": 20, "lease": 20, "fencing": 20, "election": 30}
//   (default: the grader's own, 75 in all); set the assignment's total in
//   Gradescope to their sum.
//
// The CLI reads the submission as every platform does (cli/submissions.js:
// a folder the learner zipped, the lesson's export .tar, __MACOSX ignored,
// links refused), from inside /autograder/submission, so the paths in its
// messages are the learner's own (lock.js, or ownership-election/lock.js),
// never the autograder's.
//
// Whatever goes wrong, the learner gets a results.json that says what to do,
// never Gradescope's bare "the autograder failed". AUTOGRADER_ROOT (default
// /autograder) moves everything, for tests.
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = process.env.AUTOGRADER_ROOT || "/autograder";
const SOURCE = join(ROOT, "source");
const SUBMISSION = join(ROOT, "submission");
const RESULTS = join(ROOT, "results", "results.json");
const CLI = join(ROOT, "leaselab", "node_modules", "leaselab", "cli", "leaselab.mjs");
const CONFIG = join(SOURCE, "config.json");

/** A results.json with no tests and a message, for a submission that could not be graded. */
function writeMessage(message) {
  const results = { score: 0, output: message, visibility: "visible", stdout_visibility: "hidden", tests: [] };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
}

/** `["--seed", S, "--seeds", N, "--require", LIST, "--points", LIST]` from config.json, or throws a message naming the file. */
function configArguments() {
  if (!existsSync(CONFIG)) return ["--require", "all"];
  let config;
  try {
    config = JSON.parse(readFileSync(CONFIG, "utf8"));
  } catch (error) {
    throw new Error(`${CONFIG} is not valid JSON (${error.message}); write it as {"seed": 918273645}`);
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new Error(`${CONFIG} must be a JSON object such as {"seed": 918273645}`);
  }
  const args = [];
  for (const [key, flag, minimum] of [["seed", "--seed", 0], ["seeds", "--seeds", 1]]) {
    const value = config[key];
    if (value === undefined || value === null) continue;
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new Error(`${CONFIG}: "${key}" must be a whole number of at least ${minimum} (or null for the default); got ${JSON.stringify(value)}`);
    }
    args.push(flag, String(value));
  }
  // The CLI checks the names against its exercises; here only the shape.
  const required = config.require ?? "all";
  const names = Array.isArray(required) && required.every((name) => typeof name === "string" && /^[a-z0-9-]+$/.test(name));
  if (required !== "all" && !names) {
    throw new Error(`${CONFIG}: "require" must be "all", a list of exercise names such as ["cas", "lock"], or [] for none; got ${JSON.stringify(config.require)}`);
  }
  args.push("--require", required === "all" ? "all" : required.length > 0 ? required.join(",") : "none");
  const points = config.points ?? null;
  if (points !== null) {
    const pairs = typeof points === "object" && !Array.isArray(points) ? Object.entries(points) : null;
    if (!pairs || pairs.length === 0 || !pairs.every(([name, value]) => /^[a-z0-9-]+$/.test(name) && typeof value === "number" && value > 0)) {
      throw new Error(`${CONFIG}: "points" must map exercise names to positive numbers, such as {"cas": 10, "lock": 20}, or be null; got ${JSON.stringify(points)}`);
    }
    args.push("--points", pairs.map(([name, value]) => `${name}=${value}`).join(","));
  }
  return args;
}

mkdirSync(join(ROOT, "results"), { recursive: true });
rmSync(RESULTS, { force: true });
let settings;
try {
  settings = configArguments();
} catch (error) {
  writeMessage(`The autograder is misconfigured, so this submission was not graded; course staff: ${error.message}`);
  process.exit(1);
}
if (!existsSync(CLI)) {
  writeMessage(`The autograder is not installed (${CLI} is missing), so this submission was not graded; course staff: check the output of setup.sh`);
  process.exit(1);
}
// For staff (Gradescope keeps stdout for them); the seed itself is never printed.
const setting = (flag) => (settings.includes(flag) ? settings[settings.indexOf(flag) + 1] : null);
const budget = setting("--seeds") ? `${setting("--seeds")} random schedules per exercise` : "the default budget";
const seeded = setting("--seed") ? "the secret seed from config.json (replay tokens only in the hidden test)" : "the default seed (the schedules learners see)";
const required = setting("--require") === "none" ? "requiring no particular exercise" : `requiring ${setting("--require")}`;
const points = setting("--points") ? `, points ${setting("--points")}` : "";
process.stdout.write(`run_autograder: grading with ${budget}, on ${seeded}, ${required}${points}\n`);
// From inside the submission, so the CLI's messages name the learner's own
// paths; a missing submission is left to the CLI, whose message says so.
const inside = existsSync(SUBMISSION);
const graded = spawnSync(process.execPath, [CLI, "grade", inside ? "." : SUBMISSION, "--format", "gradescope", "--out", RESULTS, ...settings], {
  cwd: inside ? SUBMISSION : ROOT,
  stdio: ["ignore", "inherit", "pipe"],
  encoding: "utf8",
});
// Gradescope keeps stdout and stderr for the staff (results/stdout).
process.stderr.write(graded.stderr ?? "");
if (!existsSync(RESULTS)) {
  // The CLI refused the input as a whole (no exercise file with "require"
  // set to [], say; under a requirement such a submission is graded, each
  // required exercise scoring 0 with a message listing what it does hold):
  // its messages say what is wrong, naming the submission's folder "." (the
  // CLI grades it from inside), which reads better as words.
  const messages = (graded.stderr ?? "")
    .split("\n")
    .filter((line) => line.startsWith("leaselab: "))
    .map((line) => line.slice("leaselab: ".length).replace(/^\.:/, "your submission:").split(SUBMISSION).join("your submission"));
  const reason = messages.length > 0 ? messages.join("\n") : `the grader stopped (${graded.error?.message ?? `exit status ${graded.status}`})`;
  writeMessage(`This submission could not be graded:\n${reason}`);
}
