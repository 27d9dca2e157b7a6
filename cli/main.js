// `leaselab grade`: parse, load, grade (always in worker threads, under a
// deadline), write the chosen format. Returns the exit status: 0 all passed,
// 1 some test failed or some file could not be graded, 2 bad usage, a
// refused input or an output that could not be written.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs, UsageError, USAGE, VERSION_TEXT } from "./args.js";
import { gradeInParallel } from "./batch.js";
import { gradingPlan } from "./grading-plan.js";
import { allPassed } from "./formats/common.js";
import { scoresCsv } from "./formats/csv.js";
import { visible } from "./formats/escape.js";
import { renderExercism } from "./formats/exercism.js";
import { renderGithub } from "./formats/github.js";
import { renderGradescope } from "./formats/gradescope.js";
import { renderJson } from "./formats/json.js";
import { renderJunit } from "./formats/junit.js";
import { summaryTable } from "./formats/table.js";
import { renderText } from "./formats/text.js";
import { textStream } from "./text-stream.js";
import { makeFolder, OutputError, writeOutput, writeStream } from "./outputs.js";
import { nameSubmissions, reportStems } from "./report-names.js";
import { shardOf } from "./shard.js";
import { chooseWasmTier, useBaselineCompilerOnly } from "./wasm-tier.js";
import { InputError, loadSubmissions } from "./submissions.js";
import { registry } from "./registry.js";
import { withPoints } from "./points.js";
import { ClassReport, classReportHtml, classReportJson } from "./class-report.js";
import { replay } from "./replay.js";

const EXTENSIONS = { text: "txt", json: "json", junit: "xml", gradescope: "json", exercism: "json", github: "md" };
const RENDER = { text: renderText, json: renderJson, junit: renderJunit, gradescope: renderGradescope, exercism: renderExercism };

export async function main(argv, { env, stdout, stderr }) {
  // Messages may name learners' files: one line each, control characters escaped.
  const say = (message) => writeStream(stderr, `leaselab: ${visible(message)}\n`);
  let options;
  try {
    options = parseArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeStream(stderr, `leaselab: ${visible(error.message)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    stdout.write(USAGE);
    return 0;
  }
  if (options.version) {
    stdout.write(VERSION_TEXT);
    return 0;
  }
  if (options.command === "replay") return replay(options, { say, stdout });
  // Names come from the inputs alone, so a shard is chosen before any file is read:
  // each machine reads only its own part of the class.
  let chosen = nameSubmissions(options.inputs.map((input) => ({ input })));
  if (options.shard) {
    const { index, count } = options.shard;
    const whole = chosen.length;
    chosen = shardOf(chosen, options.shard);
    say(`shard ${index}/${count}: ${chosen.length} of the ${whole} submissions${chosen.length > 0 ? ` (${chosen[0].name} to ${chosen.at(-1).name} by name)` : ""}`);
  }
  // A shard is graded as a batch whatever its size, so every machine writes its table and its CSV.
  const batch = chosen.length > 1 || options.shard !== null;
  let submissions;
  try {
    submissions = await loadSubmissions(chosen.map((one) => one.input), { ...options, batch });
    submissions.forEach((submission, index) => {
      submission.name = chosen[index].name;
    });
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) {
      say(error.message);
      return 2;
    }
    throw error;
  }
  // In a batch, a folder with no exercise file (and no --require) is refused alone: the others are graded.
  const refusedInputs = submissions.filter((submission) => submission.refused);
  for (const submission of refusedInputs) say(`${submission.refused} (left out; the rest of the batch is graded)`);
  submissions = submissions.filter((submission) => !submission.refused);
  const refused = submissions.flatMap((submission) => submission.files.filter((file) => file.refused));
  for (const file of refused) say(file.refused);

  // One submission's text on standard output is printed as its tests finish; every other output
  // (a batch's table, the machine-readable formats, a file) is written whole at the end.
  // Scores scaled by --points are known only once a file is final, so that text is written whole too.
  const stream = !batch && options.format === "text" && !options.out && !options.points ? textStream(submissions[0], (text) => writeStream(stdout, text)) : null;
  // Before any grading thread compiles the grader. main runs once per process (cli/leaselab.mjs),
  // and its thread compiles no wasm, except when the module was built without its registry
  // section (by hand): cli/registry.js then instantiates it here first, V8 shares that code with
  // the threads, and the choice does not apply to it.
  const plan = gradingPlan(submissions, options.jobs ?? availableParallelism(), options.seeds);
  if (chooseWasmTier(options.wasmTier, plan, options.seeds) === "baseline") useBaselineCompilerOnly();
  // The class report keeps one story per rule as the files are graded, so a batch need not keep them all.
  const classReport = options.report ? new ClassReport({ firstSeed: options.firstSeed, seeds: options.seeds, points: options.points }) : null;
  const offer = classReport && ((s, f, report) => classReport.offer(submissions[s].name, submissions[s].files[f].exercise, submissions[s].files[f].path, report));
  let graded;
  try {
    graded = await gradeInParallel(
      submissions,
      plan,
      // A batch without --out shows only its table and CSV: it need not keep what each failure says.
      { firstSeed: options.firstSeed, seeds: options.seeds, deadlineMs: options.timeoutMs, scoresOnly: batch && !options.out },
      batch
        ? { onDone: (done) => say(`graded ${done.name}`), onFile: offer }
        : {
            onTest: stream && ((_, f, test) => stream.test(f, test)),
            onFile: (stream || offer) && ((s, f, report) => {
              stream?.file(f, report);
              offer?.(s, f, report);
            }),
          },
    );
  } catch (error) {
    say(`the grader could not run: ${error.message}`);
    return 2;
  }
  // Points for the assignment's total (--points) are applied once, before any output is made.
  graded = graded.map((one) => withPoints(one, options.points));

  const unwritten = [];
  /** Runs one write; a failure is reported and remembered, and the next write still happens. */
  const attempt = async (write) => {
    try {
      await write();
      return true;
    } catch (error) {
      if (!(error instanceof OutputError)) throw error;
      say(error.message);
      unwritten.push(error);
      return false;
    }
  };
  if (stream) {
    stream.end(graded[0]);
  } else if (!batch) {
    await writeReport(graded[0], options, options.out, { stdout, env, attempt });
  } else {
    if (options.out) {
      const stems = reportStems(graded.map((one) => one.name));
      if (await attempt(() => makeFolder(options.out))) {
        for (const [index, one] of graded.entries()) {
          await writeReport(one, options, join(options.out, `${stems[index]}.${EXTENSIONS[options.format]}`), { stdout, env, attempt });
        }
      }
    }
    // The table and the CSV come whatever else failed: they are how staff see the batch.
    writeStream(stdout, summaryTable(graded));
  }
  // A CSV for one submission too: a class's glob may match a single folder.
  // Only the first shard writes the header, so the shards' CSVs concatenate into the class's.
  const header = !options.shard || options.shard.index === 1;
  if (options.csv) await attempt(() => writeOutput(options.csv, scoresCsv(graded, { header })));
  if (classReport) {
    const data = classReport.data(graded);
    await attempt(() => writeOutput(options.report, /\.json$/i.test(options.report) ? classReportJson(data) : classReportHtml(data)));
  }
  if (refused.length > 0 || refusedInputs.length > 0 || unwritten.length > 0) return 2;
  return graded.every(allPassed) ? 0 : 1;
}

async function writeReport(graded, options, out, { stdout, env, attempt }) {
  if (options.format === "github") {
    const { annotations, summary } = renderGithub(graded, { secretSeed: options.firstSeed !== registry.defaults.firstSeed });
    writeStream(stdout, annotations);
    if (out) await attempt(() => writeOutput(out, summary));
    else if (env.GITHUB_STEP_SUMMARY) await attempt(() => writeOutput(env.GITHUB_STEP_SUMMARY, summary, { append: true, label: `GITHUB_STEP_SUMMARY (${env.GITHUB_STEP_SUMMARY})` }));
    else writeStream(stdout, summary);
    return;
  }
  // A seed other than the default is the course's secret; replay tokens carry it (see --help).
  const text = RENDER[options.format](graded, { secretSeed: options.firstSeed !== registry.defaults.firstSeed });
  if (out) await attempt(() => writeOutput(out, text));
  else writeStream(stdout, text);
}
