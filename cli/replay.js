// `leaselab replay TOKEN FILE`: one test's run again, from the replay token
// its failure printed, on the learner's file, printed as that run's
// timeline. Staff use it on a token from a report (the class report, a
// Gradescope test hidden from learners, a JUnit failure) to see the run
// for themselves, or on a learner's fixed file to see the same schedule
// pass. The token names the exercise, the grader's version, the scenario
// and every choice of the schedule; the file may be the exercise's file, or
// a submission folder or archive, read as grading reads it.
//
// The learner's code runs in a grading thread under the hard deadline, as
// in grading: a file that hangs is stopped, not waited for.
import { basename } from "node:path";
import { UsageError } from "./args.js";
import { GradingThread } from "./grading-thread.js";
import { moduleName } from "./grade-file.js";
import { registry } from "./registry.js";
import { InputError, loadSubmissions, ungradedReason } from "./submissions.js";
import { visibleLines } from "./formats/escape.js";
import { writeStream } from "./outputs.js";
import { gradingDeadlineMs } from "../runner/limits.js";

/** The exercise a replay token is for (`lock@0.1.0:basic:…` is lock's), or null. */
export function exerciseOfToken(token) {
  const name = /^([a-z0-9-]+)@/.exec(token)?.[1] ?? null;
  return name !== null && registry.names.includes(name) ? name : null;
}

/** Runs `leaselab replay`: 0 when the run breaks no rule, 1 when it does, 2 when it cannot be replayed. */
export async function replay(options, { say, stdout }) {
  const [token, input] = options.inputs;
  const exercise = exerciseOfToken(token);
  if (exercise === null) {
    say(`"${token}" is not a replay token; a token is the last line of a failing test's story, such as lock@${registry.graderVersion}:basic:…`);
    return 2;
  }
  let file;
  try {
    [file] = (await loadSubmissions([input], { exercise, require: null, batch: false }))[0].files;
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) {
      say(error.message);
      return 2;
    }
    throw error;
  }
  const reason = ungradedReason(file);
  if (reason) {
    say(reason);
    return 2;
  }
  let thread;
  try {
    thread = await GradingThread.start();
  } catch (error) {
    say(`the grader could not run: ${error.message}`);
    return 2;
  }
  const deadlineMs = options.timeoutMs ?? gradingDeadlineMs(1);
  const answer = await thread.replay({ exercise, source: file.source, token, fileName: moduleName(file.path) ?? basename(file.path) }, deadlineMs);
  if (answer.problem) {
    say(answer.problem);
    return 2;
  }
  // The timeline holds what the learner's code printed: each line made visible, as in the text report.
  writeStream(stdout, `${visibleLines(file.path).join(" ")} (${exercise})\n${visibleLines(answer.timeline.text.trimEnd()).join("\n")}\n`);
  return answer.timeline.violated ? 1 : 0;
}
