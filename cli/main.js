// `leaselab grade`: parse, load, grade (in parallel for many submissions),
// write the chosen format. Returns the exit status: 0 all passed, 1 some
// test failed, 2 bad usage or unreadable input.
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs, UsageError, USAGE } from "./args.js";
import { gradeInParallel } from "./batch.js";
import { allPassed, gradeSubmission } from "./grade-submission.js";
import { totals } from "./formats/common.js";
import { renderExercism } from "./formats/exercism.js";
import { renderGithub } from "./formats/github.js";
import { renderGradescope } from "./formats/gradescope.js";
import { renderJson } from "./formats/json.js";
import { renderJunit } from "./formats/junit.js";
import { renderText } from "./formats/text.js";
import { InputError, loadSubmissions } from "./submissions.js";
import { loadNodeEngines } from "../web/src/runner/node.js";

const EXTENSIONS = { text: "txt", json: "json", junit: "xml", gradescope: "json", exercism: "json", github: "md" };

export async function main(argv, { env, stdout, stderr }) {
  let options;
  try {
    options = parseArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`leaselab: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    stdout.write(USAGE);
    return 0;
  }
  let submissions;
  try {
    submissions = await loadSubmissions(options.inputs, options);
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) {
      stderr.write(`leaselab: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const gradeOptions = { firstSeed: options.firstSeed, seeds: options.seeds };
  let graded;
  try {
    const jobs = options.jobs ?? availableParallelism();
    if (submissions.length > 1 && jobs > 1) {
      graded = await gradeInParallel(submissions, gradeOptions, jobs, (done) => stderr.write(`graded ${done.name}\n`));
    } else {
      const engines = await loadNodeEngines();
      graded = [];
      for (const submission of submissions) graded.push(await gradeSubmission(engines, submission, gradeOptions));
    }
  } catch (error) {
    stderr.write(`leaselab: the grader could not run: ${error.message}\n`);
    return 2;
  }

  if (graded.length === 1) {
    await writeReport(graded[0], options, options.out, { stdout, env });
  } else {
    if (options.format !== "text" || options.out) {
      if (!options.out) {
        stderr.write(`leaselab: with several submissions, --format ${options.format} needs --out DIRECTORY (one report per submission)\n`);
        return 2;
      }
      await mkdir(options.out, { recursive: true });
      for (const one of graded) await writeReport(one, options, join(options.out, `${one.name}.${EXTENSIONS[options.format]}`), { stdout, env });
    }
    stdout.write(summaryTable(graded));
    if (options.csv) await writeFile(options.csv, scoresCsv(graded));
  }
  return graded.every(allPassed) ? 0 : 1;
}

async function writeReport(graded, options, out, { stdout, env }) {
  let text;
  switch (options.format) {
    case "json":
      text = renderJson(graded);
      break;
    case "junit":
      text = renderJunit(graded);
      break;
    case "gradescope":
      text = renderGradescope(graded);
      break;
    case "exercism":
      text = renderExercism(graded);
      break;
    case "github": {
      const { annotations, summary } = renderGithub(graded);
      stdout.write(annotations);
      if (out) await writeFile(out, summary);
      else if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, summary);
      else stdout.write(summary);
      return;
    }
    default:
      text = renderText(graded);
  }
  if (out) await writeFile(out, text);
  else stdout.write(text);
}

function summaryTable(graded) {
  const exercises = ["cas", "lock", "lease", "fencing"];
  const nameWidth = Math.max(10, ...graded.map((one) => one.name.length));
  const header = `${"submission".padEnd(nameWidth)}  ${exercises.map((name) => name.padStart(8)).join("")}     total`;
  const rows = graded.map((one) => {
    const cells = exercises.map((name) => {
      const result = one.results.find((candidate) => candidate.exercise === name);
      return (result ? `${result.report.score}/${result.report.maxScore}` : "-").padStart(8);
    });
    const { score, maxScore } = totals(one);
    return `${one.name.padEnd(nameWidth)}  ${cells.join("")}  ${`${score}/${maxScore}`.padStart(8)}`;
  });
  return `${[header, ...rows].join("\n")}\n`;
}

function scoresCsv(graded) {
  const quote = (text) => `"${String(text).replace(/"/g, '""')}"`;
  const exercises = ["cas", "lock", "lease", "fencing"];
  const lines = [["submission", ...exercises, "score", "max_score", "passed"].join(",")];
  for (const one of graded) {
    const cells = exercises.map((name) => one.results.find((result) => result.exercise === name)?.report.score ?? "");
    const { score, maxScore } = totals(one);
    lines.push([quote(one.name), ...cells, score, maxScore, allPassed(one)].join(","));
  }
  return `${lines.join("\n")}\n`;
}
