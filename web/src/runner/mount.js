// An exercise's code runner on the page: the editor with the learner's
// draft, "Run tests" (graded in a Web Worker, with progress; the page stays
// responsive), the list of tests, each verdict shown as it arrives
// (results-view.js), and for a failing test its minimal
// counterexample as a timeline to step through, with the console output
// beside the step that printed it and a link that reopens this very run.
//
// Functional core, imperative shell: `update(state, action)` is pure; the
// shell runs the worker, the editor and the DOM.
import { h, replaceChildren } from "../dom.js";
import { createEditor } from "./editor.js";
import { DeadlineError, gradeInWorker, labInWorker, prepareGrading, replayInWorker } from "./client.js";
import { downloadProgressText, GraderNetworkError, prefetchGraderModule, subscribe as watchGraderModule } from "./grader-module.js";
import { parseReplayFragment, replayFragment } from "./link.js";
import { diagnosticsFromReport } from "./diagnostics.js";
import { createResultsView } from "./results-view.js";
import { createStoryView } from "./story-view.js";

const DEFAULT_ETCD_ENDPOINT = "http://127.0.0.1:2379";

export function initialState() {
  return { status: "idle", replay: null, started: false, runs: 0, report: null, error: null, networkError: false, linkProblem: null, source: null, tests: null, streamed: [], failing: [], open: null, step: 0, grader: { phase: "idle", receivedBytes: 0, totalBytes: null, message: null } };
}

/**
 * `open`: { title, violation, trace, words, processes, token, source } of the failing run on show.
 * While a run is under way: `source` its code, `tests` the suite's test names (once the grader
 * has started), `streamed` the tests known so far by position, `failing` the names of the tests
 * known to fail whose story is still being shrunk, by position. `replay`: { title, passes,
 * keepDraft } of a linked run replayed. `grader`: the grader's download (grader-module.js).
 */
export function update(state, action) {
  switch (action.type) {
    case "run-started":
      // The run on show was an earlier code's: it closes, and this run's failures can be opened as they arrive.
      return { ...state, status: "running", replay: null, started: false, runs: 0, error: null, networkError: false, linkProblem: null, source: action.source, tests: null, streamed: [], failing: [], open: null, step: 0 };
    case "grader-started":
      return { ...state, started: true, tests: action.tests };
    case "progress":
      return { ...state, runs: action.runs };
    case "failing": {
      // Known to fail, its story still shrinking; a test already in (another worker found it first) stays as it is.
      if (state.status !== "running" || state.streamed[action.position]) return state;
      const failing = [...state.failing];
      failing[action.position] = action.name;
      return { ...state, failing };
    }
    case "test": {
      if (state.status !== "running") return state;
      const streamed = [...state.streamed];
      streamed[action.position] = action.test;
      return { ...state, streamed };
    }
    case "graded":
      // A failing run opened while the rest ran stays open: the report holds the very same test.
      return { ...state, status: "done", report: action.report };
    case "failed":
      return { ...state, status: "error", error: action.message, networkError: Boolean(action.network) };
    case "grader-loading":
      return { ...state, grader: action.grader };
    case "link-refused":
      return { ...state, status: "idle", linkProblem: action.message };
    case "replaying":
      return { ...state, status: "replaying" };
    case "replayed":
      // A linked run is one test's run, not a grading: no score, no list of tests.
      return { ...state, status: "replay", replay: action.replay };
    case "linked-code-used":
      return state.replay ? { ...state, replay: { ...state.replay, keepDraft: false } } : state;
    case "open-run": {
      const violationStep = action.open.violation?.traceIndex ?? 0;
      return { ...state, open: action.open, step: Math.min(violationStep, action.open.trace.length - 1) };
    }
    case "close-run":
      return { ...state, open: null };
    case "step":
      return state.open ? { ...state, step: Math.max(0, Math.min(state.open.trace.length - 1, state.step + action.by)) } : state;
    case "step-to":
      return state.open ? { ...state, step: Math.max(0, Math.min(state.open.trace.length - 1, action.index)) } : state;
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** What "Run tests" waits for before the code runs: the grader's download, its start, or the network. */
export function waitingText(grader) {
  if (grader.phase === "downloading") return `Downloading the grader: ${downloadProgressText(grader)}`;
  if (grader.phase === "offline") return `Waiting for the network: the grader could not be downloaded (${grader.message}). The tests start by themselves when the connection returns.`;
  return "Starting the grader…";
}

/**
 * Mounts the runner for `exercise` ({ name, file, starter, lab, … }) into
 * `root`; `grading` is the grader's budget ({ seeds }), which "Run tests" uses.
 */
export function mountRunner(root, { exercise, grading, progress }) {
  let state = initialState();
  const draft = progress.getDraft(exercise.name);
  let source = draft ?? exercise.starter;
  const linked = parseReplayFragment(location.hash);
  const fromLink = linked && linked.exercise === exercise.name ? linked : null;
  // A link's code goes into the editor only where that loses nothing: the
  // learner has no draft, or the same code. Otherwise their draft stays in
  // the editor (the next keystroke would save the link's code over it, and
  // a "Copy link" leaves the link in the address bar, so a reload would do
  // that to their newer work), and the linked code is a button away.
  const keepDraft = Boolean(fromLink && !fromLink.error && draft !== null && draft !== undefined && draft !== fromLink.source);
  if (fromLink && !fromLink.error && !keepDraft) source = fromLink.source;

  const status = h("p", { class: "runner-status", role: "status", "aria-live": "polite" });
  const runButton = h("button", { type: "button", class: "primary", onclick: () => run() }, "Run tests");
  const resetButton = h("button", {
    type: "button",
    onclick: () => {
      if (!confirm(`Replace your ${exercise.file} with the starter code? Your current code will be lost.`)) return;
      backToStarter();
    },
  }, "Reset to starter");
  const editorHost = h("div", { class: "runner-editor" });
  const results = h("section", { class: "runner-results", "aria-label": `Test results for ${exercise.file}` });
  const renderResults = createResultsView(results, { file: exercise.file, onOpen: (test) => openTest(test), onUseLinked: () => useLinkedCode() });
  const story = h("section", { class: "runner-story", "aria-label": "The failing run, step by step", hidden: true });
  const renderStory = createStoryView(story, {
    step: (by) => dispatch({ type: "step", by }),
    stepTo: (index) => dispatch({ type: "step-to", index }),
    close: () => dispatch({ type: "close-run" }),
    copyLink,
  });
  const runKey = /Mac|iPhone|iPad/.test(navigator.platform ?? "") ? "⌘+Enter" : "Ctrl+Enter";
  // The editor first, then its buttons: in reading order and in Tab order, the code comes before what acts on it.
  replaceChildren(
    root,
    editorHost,
    h("div", { class: "runner-toolbar" }, runButton, resetButton, status),
    h("p", { class: "runner-keys" }, `${runKey} runs the tests. In the editor, Tab indents; press Escape, then Tab, to move on.`),
    results,
    story,
    exercise.lab ? labPanel() : null,
  );
  const editor = createEditor(editorHost, {
    doc: source,
    label: `${exercise.file}: your solution`,
    onChange: (text) => progress.setDraft(exercise.name, text),
    onRun: () => run(),
  });
  // Ctrl/Cmd+Enter runs the tests from anywhere in the runner, not only from the editor.
  root.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  });
  // Editing, or about to press "Run tests": the engines load meanwhile, and warm up on the starter (client.js).
  const prepare = () => prepareGrading({ exercise: exercise.name, source: exercise.starter });
  editorHost.addEventListener("focusin", prepare);
  runButton.addEventListener("focus", prepare);
  runButton.addEventListener("pointerenter", prepare);

  /**
   * The starter in the editor, no draft saved, no result on show: what
   * "Reset to starter" and the lesson's "Reset progress" both mean. The
   * editor is set quietly, so the starter is not saved back as a draft.
   */
  function backToStarter() {
    editor.set(exercise.starter, { quiet: true });
    progress.clearDraft(exercise.name);
    state = initialState();
    render();
  }
  // "Reset progress…" erases every draft and result: the runner follows,
  // instead of keeping the old code (which the next keystroke would save again).
  progress.subscribe?.((_, action) => {
    if (action.type === "reset") backToStarter();
  });

  const dispatch = (action) => {
    state = update(state, action);
    render();
  };

  async function run() {
    if (state.status === "running") return;
    progress.flush?.();
    const code = editor.text;
    dispatch({ type: "run-started", source: code });
    try {
      const report = await gradeInWorker({
        exercise: exercise.name,
        source: code,
        options: { seeds: grading.seeds },
        onStarted: ({ tests }) => dispatch({ type: "grader-started", tests }),
        onProgress: (runs) => dispatch({ type: "progress", runs }),
        onTest: (test, position) => dispatch({ type: "test", test, position }),
        onFailing: (position, name) => dispatch({ type: "failing", position, name }),
      });
      dispatch({ type: "graded", report });
      // The same problems at their lines in the editor (a syntax error, a missing export, an exception).
      editor.showMarks(code, diagnosticsFromReport(report, { file: exercise.file, source: code }));
      const passed = report.problems.length === 0 && report.tests.every((test) => test.status === "passed");
      progress.recordRun(exercise.name, { passed, summary: `${report.score}/${report.maxScore}` });
      if (passed) progress.markPassed(exercise.name);
    } catch (error) {
      const network = error instanceof GraderNetworkError;
      dispatch({ type: "failed", message: error.message, network });
      // The network was the problem: the tests run again by themselves once the browser is back online.
      if (network) addEventListener("online", () => state.status === "error" && state.networkError && run(), { once: true });
    } finally {
      // The button was disabled while the tests ran, which sent the focus to the page's body. A keyboard
      // user lands on what the run produced: the summary (or the problem, or the error), from which Tab
      // walks the failing tests; only if the learner moved elsewhere meanwhile is the focus left alone.
      if (document.activeElement === null || document.activeElement === document.body || document.activeElement === runButton) {
        (results.querySelector(".runner-summary, .runner-problems, .runner-error") ?? runButton).focus();
      }
    }
  }

  function openTest(test) {
    const counterexample = test.counterexample;
    dispatch({
      type: "open-run",
      open: {
        title: test.name,
        violation: counterexample.violation,
        trace: counterexample.trace,
        words: counterexample.words,
        omitted: counterexample.omitted ?? null,
        processes: counterexample.processes,
        token: counterexample.replayToken,
        source: state.source,
      },
    });
    // The story is drawn below the whole list: bring it into view and put the focus on its heading
    // (focusable on purpose), from where Tab reaches the stepper. "Next" may be disabled on the last step.
    const heading = story.querySelector(".story-heading");
    story.scrollIntoView({ block: "start" });
    heading?.focus({ preventScroll: true });
  }

  async function copyLink(open) {
    const url = `${location.origin}${location.pathname}${replayFragment({ exercise: exercise.name, token: open.token, source: open.source })}`;
    // The address bar shows the link too, so it can be bookmarked even where the clipboard is refused.
    history.replaceState(null, "", url);
    try {
      await navigator.clipboard.writeText(url);
      return "Link copied: it reopens exactly this run.";
    } catch {
      return `Copy this link: ${url}`;
    }
  }

  function render() {
    runButton.disabled = state.status === "running";
    // Set only when it changes: a live region may read out even an unchanged text again.
    const statusText =
      // The first grading on a page waits for the grader to load; "running" means the code itself runs.
      state.status === "running" ? (state.started ? `Running the tests… ${state.runs} runs so far` : waitingText(state.grader)) : state.status === "done" && state.report ? (state.report.problems.length ? "Could not run: see below." : `Score ${state.report.score}/${state.report.maxScore}`) : state.status === "replaying" ? "Replaying the linked run…" : "";
    if (status.textContent !== statusText) status.textContent = statusText;
    renderResults(state);
    // In place: a run opened while the rest still run, and each step, keep the focus and the scroll position.
    renderStory(state.open, state.step);
  }

  /** Lab mode: the same code against a real etcd, in real time (not graded). */
  function labPanel() {
    const endpoint = h("input", { id: `lab-endpoint-${exercise.name}`, value: DEFAULT_ETCD_ENDPOINT, autocomplete: "off", spellcheck: "false" });
    const log = h("ol", { class: "lab-log", "aria-label": "What happened on etcd", tabindex: "0" });
    const labStatus = h("p", { class: "lab-status", role: "status" });
    const start = h("button", {
      type: "button",
      onclick: async () => {
        start.disabled = true;
        log.replaceChildren();
        labStatus.textContent = "Running on etcd, in real time…";
        try {
          const result = await labInWorker({
            exercise: exercise.name,
            source: editor.text,
            endpoint: endpoint.value.trim(),
            onLog: (line) => log.append(h("li", {}, h("span", { class: "lab-time" }, `${(line.atMs / 1000).toFixed(2)} s`), ` ${line.who} ${line.text}`)),
          });
          labStatus.textContent = `Finished: ${result.stoppedBecause}.`;
        } catch (error) {
          labStatus.textContent = `Lab mode stopped: ${error.message}`;
        } finally {
          start.disabled = false;
        }
      },
    }, "Run on etcd");
    return h(
      "details",
      { class: "runner-lab" },
      h("summary", {}, "Lab: run your code on a real etcd"),
      h("p", {}, "Real time applies here: nothing is simulated and nothing is graded. A few processes (two, or three for the election queue) run your code against the etcd below, through its JSON gateway; start etcd with ", h("code", {}, "--cors='*'"), " (see the README's \"Lab mode\"). TTLs become etcd leases of whole seconds, at least 2."),
      h("div", { class: "field" }, h("label", { for: endpoint.id }, "etcd endpoint"), endpoint),
      h("div", { class: "runner-toolbar" }, start, labStatus),
      log,
    );
  }

  // The exercise came near: the grader downloads now, once for the page, so a first "Run tests" finds it (nearly) in.
  watchGraderModule((grader) => dispatch({ type: "grader-loading", grader }));
  prefetchGraderModule();

  render();
  root.dataset.ready = "true";

  // A link to this exercise that cannot be read says why, where the learner is taken.
  if (fromLink?.error) {
    root.scrollIntoView({ block: "start" });
    dispatch({ type: "link-refused", message: fromLink.error });
  }

  // Opened from a "copy link": replay that run at once and show it.
  if (fromLink && !fromLink.error) {
    root.scrollIntoView({ block: "start" });
    dispatch({ type: "replaying" });
    replayInWorker({ exercise: exercise.name, source: fromLink.source, token: fromLink.token })
      .then((replay) => {
        const title = replay.title ?? "a test of this exercise";
        if (!replay.violation) {
          dispatch({ type: "replayed", replay: { title, passes: true, keepDraft } });
          return;
        }
        const processes = JSON.parse(replay.caseJson).plan.processes;
        const trace = replay.execution.trace.slice(0, (replay.violation.traceIndex ?? replay.execution.trace.length - 1) + 1);
        dispatch({ type: "replayed", replay: { title, passes: false, keepDraft } });
        dispatch({ type: "open-run", open: { title, violation: replay.violation, trace, words: replay.words, processes, token: fromLink.token, source: fromLink.source } });
      })
      .catch((error) => {
        // A linked run that outlasts its deadline is the code's verdict, not the grader's failure: shown like any submission that could not be run.
        if (error instanceof DeadlineError) dispatch({ type: "graded", report: { problems: [error.message], tests: [], score: 0, maxScore: 0 } });
        else dispatch({ type: "link-refused", message: `its run could not be rebuilt (${error.message}). The link may come from another version of this lesson; run the tests to see the current failures.` });
      });
  }

  /** The linked run's code in the editor, in place of the learner's, once they confirm. */
  function useLinkedCode() {
    if (!confirm(`Replace your ${exercise.file} with the code of the linked run? Your current code will be lost.`)) return;
    editor.set(fromLink.source);
    dispatch({ type: "linked-code-used" });
  }

  return { run };
}
