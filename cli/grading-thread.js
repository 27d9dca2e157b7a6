// One worker thread that grades one exercise file at a time, under a hard
// real-time deadline enforced from outside it.
//
// Inside the VM, the sandbox's budgets fire only between bytecodes; one long
// built-in call (a pathological indexOf, a huge BigInt's toString) outlasts
// them, and so can a blow-up in the host-side runner. Terminating the thread
// is the one stop that always works, so every grading runs in a thread, and
// a thread whose grading did not end normally (deadline, crash, out of
// memory, a thrown error that may have left the engines mid-call) is never
// reused: the next file gets a fresh one.
import { basename } from "node:path";
import { Worker } from "node:worker_threads";
import { deadlineMessage } from "../runner/limits.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);

/**
 * The thread's JavaScript heap. Grading the lease solution at the largest
 * --seeds keeps under 20 MB of it (measured: 11 MB used, 19 MB allocated);
 * a runaway allocation on the host side ends this thread with
 * ERR_WORKER_OUT_OF_MEMORY instead of taking the whole process (and a
 * class's batch) with it. QuickJS's heap is wasm memory, capped by the
 * sandbox, not counted here.
 */
export const THREAD_HEAP_MB = 256;

export class GradingThread {
  /**
   * A thread whose engines have loaded; throws (an Error saying why) if they
   * cannot. `stackSizeMb` is its native stack (Node's default, 4 MiB, unless
   * given: the tests give a browser worker's 1 MiB).
   */
  static async start({ stackSizeMb } = {}) {
    const thread = new GradingThread({ stackSizeMb });
    const event = await thread.#next(null);
    if (event.message?.ready) {
      thread.maxScores = event.message.maxScores;
      return thread;
    }
    await thread.stop();
    throw new Error(event.exit !== undefined ? thread.#deathReason(event.exit) : "the grading thread answered before it was ready");
  }

  /** `{ exercise: maxScore }`, as the grader reports it. */
  maxScores = null;
  #worker;
  #listener = null;
  /** Receives the tests of the file being graded, as they finish. */
  #onTest = null;
  #crash = null;
  #exitCode = null;

  constructor({ stackSizeMb } = {}) {
    this.#worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, ...(stackSizeMb && { stackSizeMb }) } });
    this.#worker.on("message", (message) => {
      if (message && "test" in message) this.#onTest?.(message.test);
      else this.#listener?.({ message });
    });
    // An uncaught error (out of memory included) arrives here, then the exit.
    this.#worker.on("error", (error) => {
      this.#crash = error;
    });
    this.#worker.on("exit", (code) => {
      this.#exitCode = code;
      this.#listener?.({ exit: code });
    });
  }

  /** False once the thread has exited, even if it died while idle. */
  get alive() {
    return this.#exitCode === null;
  }

  /**
   * Grades one file: `{ report }`, or `{ problem }` (one line naming the
   * file) when the grading could not finish; after a problem the thread is
   * gone and must be replaced. `onTest(test)` receives each test as it
   * finishes, until the grading ends (a test still on its way then is dropped).
   */
  async grade(file, options, deadlineMs, onTest = null) {
    const name = basename(file.path);
    const answer = this.#next(deadlineMs);
    this.#onTest = onTest;
    this.#worker.postMessage({ file: { exercise: file.exercise, path: file.path, source: file.source }, options });
    const event = await answer;
    this.#onTest = null;
    if (event.message && "report" in event.message) return { report: event.message.report, timing: event.message.timing };
    if (event.message) {
      await this.stop();
      return { problem: `grading ${name} failed inside the grader (${event.message.error}); the other files were graded; report this with the file` };
    }
    if (event.timeout) {
      await this.stop();
      return { problem: deadlineMessage(name, deadlineMs) };
    }
    if (event.stopped) return { problem: `grading ${name} was stopped before it finished` };
    return { problem: this.#deathMessage(name, event.exit) };
  }

  /**
   * Replays one run (`{ exercise, source, token, fileName }`): `{ timeline:
   * { text, violated } }`, or `{ problem }` (one line). The thread is not
   * used again either way.
   */
  async replay(request, deadlineMs) {
    const answer = this.#next(deadlineMs);
    this.#worker.postMessage({ replay: request });
    const event = await answer;
    await this.stop();
    if (event.message?.timeline) return { timeline: event.message.timeline };
    if (event.message?.error) return { problem: `the replay failed: ${event.message.error}` };
    if (event.timeout) return { problem: deadlineMessage(request.fileName ?? request.exercise, deadlineMs) };
    return { problem: this.#deathMessage(request.fileName ?? request.exercise, event.exit) };
  }

  /** Ends the thread; a grading still running in it ends as a problem. */
  async stop() {
    this.#listener?.({ stopped: true });
    this.#listener = null;
    await this.#worker.terminate();
  }

  /** The next event: a message, the exit, `stop()`, or (with a deadline) the deadline passing. */
  #next(deadlineMs) {
    return new Promise((resolve) => {
      let timer = null;
      this.#listener = (event) => {
        clearTimeout(timer);
        this.#listener = null;
        resolve(event);
      };
      if (!this.alive) this.#listener({ exit: this.#exitCode });
      else if (deadlineMs !== null) timer = setTimeout(() => this.#listener?.({ timeout: true }), deadlineMs);
    });
  }

  #deathMessage(name, code) {
    if (this.#crash?.code === "ERR_WORKER_OUT_OF_MEMORY") {
      return `grading ${name} ran out of memory (the grader allows ${THREAD_HEAP_MB} MiB) and was stopped; does your code build ever larger strings, arrays or objects, or log a great deal?`;
    }
    return `grading ${name} stopped unexpectedly (${this.#deathReason(code)}); the other files were graded; grade this one alone, and report it if it happens again`;
  }

  #deathReason(code) {
    const crash = this.#crash;
    if (crash) return (crash instanceof Error ? crash.message : String(crash)).split("\n")[0].slice(0, 300);
    return `the grading thread exited with code ${code}`;
  }
}
