// What "Run tests" produced, on the page: while the tests run, one row per
// test of the suite, each pending until its verdict arrives (a failing test
// is marked failed as soon as a run breaks a rule, then shows its message
// and "Show the failing run" once that run is shrunk); when all are in, the
// summary above them. Instead of the list: the hint before a
// first run, a submission's problems, or the grader's own failure.
//
// The list is updated in place, never rebuilt while it stays the same run's:
// a row keeps its element for as long as it shows the same test, so a
// learner who moved the focus to a failure's button while the rest ran
// keeps it as the other verdicts and the summary arrive.
import { h } from "../dom.js";
import { stuckIn } from "./diagnostics.js";

/**
 * The results area in `container` for the exercise's `file`; `onOpen(test)`
 * opens a failing test's run. Returns `render(state)`, `state` being the
 * runner's (mount.js): `status`, `report`, `linkProblem`, `error`, and for
 * the run under way `tests` (the suite's test names, once the grader has
 * started), `streamed` (the tests known so far, by position), `failing` (the
 * names of tests known to fail whose story is being shrunk, by position).
 */
export function createResultsView(container, { file, onOpen, onUseLinked = () => {} }) {
  // Says the first failure once, as it arrives, not every verdict: the
  // status line already counts the runs, and the summary gets the focus at the end.
  const announcer = h("p", { class: "visually-hidden", "aria-live": "polite" });
  const body = h("div", { class: "runner-results-body" });
  container.replaceChildren(announcer, body);
  /** The list on show: `{ element, summary, rows: [{ test, element }] }`, or null. */
  let list = null;

  function show(...children) {
    list = null;
    body.replaceChildren(...children.filter(Boolean));
  }

  /**
   * Shows `names` in order, each with its test if known (else failing, its
   * story being shrunk, if `failing` has it; else pending), and `summary`
   * above them once given.
   */
  /** The code the list's run graded (for a test stopped in a loop: where it was). */
  let source = "";

  function showList(names, tests, summary, failing = []) {
    if (!list) {
      list = { element: h("ol", { class: "runner-tests" }), summary: null, rows: [] };
      body.replaceChildren(list.element);
    }
    names.forEach((name, position) => {
      const test = tests[position] ?? null;
      const shrinking = test === null && failing[position] !== undefined;
      const shown = list.rows[position];
      if (shown && sameTest(shown.test, test) && shown.shrinking === shrinking) {
        // The report's copy from now on, so the next render compares by identity.
        shown.test = test;
        return;
      }
      const element = test ? testRow(test) : shrinking ? shrinkingRow(name) : pendingRow(name);
      if (shown) shown.element.replaceWith(element);
      else list.element.append(element);
      list.rows[position] = { test, shrinking, element };
    });
    if (summary && !list.summary) {
      list.summary = summary;
      list.element.before(summary);
    }
  }

  function testRow(test) {
    const passed = test.status === "passed";
    const stuck = passed ? null : stuckIn(test, source);
    return h(
      "li",
      { class: `runner-test is-${test.status}` },
      h("span", { class: "runner-test-mark", "aria-hidden": "true" }, passed ? "✓" : "✗"),
      h("span", { class: "runner-test-name" }, `${test.name}${test.runs > 1 ? ` (${test.runs} schedules)` : ""}`, h("span", { class: "visually-hidden" }, passed ? ": passed" : ": failed")),
      passed ? null : h("p", { class: "runner-test-message" }, test.message),
      stuck ? h("p", { class: "runner-test-where" }, `It was running ${stuck.function}()${stuck.line ? `, which starts at line ${stuck.line}` : ""}: look there for a loop that never waits for the store.`) : null,
      test.counterexample ? h("button", { type: "button", class: "small", onclick: () => onOpen(test) }, "Show the failing run") : null,
    );
  }

  /** A test known to fail whose failing run is still being shrunk to the shortest one that shows it. */
  const shrinkingRow = (name) => rowWithoutTest(name, { state: "is-failed is-shrinking", mark: "✗", heard: "failed", note: "Failed. Finding the shortest run that shows it…" });
  const pendingRow = (name) => rowWithoutTest(name, { state: "is-pending", mark: "…", heard: "still running" });

  /** A row whose test is not in yet: its state's classes, its mark, what a screen reader hears after the name, a line of text. */
  function rowWithoutTest(name, { state, mark, heard, note = null }) {
    return h(
      "li",
      { class: `runner-test ${state}` },
      h("span", { class: "runner-test-mark", "aria-hidden": "true" }, mark),
      h("span", { class: "runner-test-name" }, name, h("span", { class: "visually-hidden" }, `: ${heard}`)),
      note === null ? null : h("p", { class: "runner-test-message" }, note),
    );
  }

  return function render(state) {
    source = state.source ?? "";
    const first = firstFailingRow(state);
    const announcement = first === null ? "" : `First failure: ${first}`;
    if (announcer.textContent !== announcement) announcer.textContent = announcement;
    if (state.status === "idle") {
      show(
        state.linkProblem ? h("p", { class: "runner-error", role: "alert", tabindex: "-1" }, `This link cannot be replayed: ${state.linkProblem}`) : null,
        h("p", { class: "runner-hint" }, `Press Run tests to grade ${file} against the hidden tests.`),
      );
    } else if (state.status === "replaying") {
      show(h("p", { class: "runner-hint" }, "Replaying the run from the link…"));
    } else if (state.status === "replay") {
      const { title, passes, keepDraft } = state.replay;
      show(
        h(
          "p",
          { class: "runner-linked" },
          passes ? `The linked run of “${title}” passes with the code in the link.` : `The linked run of “${title}”, replayed from its code, is below.`,
          keepDraft ? " The editor still has your own code. " : " ",
          keepDraft ? h("button", { type: "button", class: "small", onclick: () => onUseLinked() }, "Put the linked code in the editor") : null,
        ),
        h("p", { class: "runner-hint" }, `Press Run tests to grade ${file} as the editor has it.`),
      );
    } else if (state.status === "error" && state.networkError) {
      show(h("p", { class: "runner-error", role: "alert", tabindex: "-1" }, `The network is the problem: ${state.error}. Your code is saved; the tests run by themselves when the connection returns, or press Run tests to try again.`));
    } else if (state.status === "error") {
      // The next run starts a fresh grader (client.js), so trying again needs no reload.
      show(h("p", { class: "runner-error", role: "alert", tabindex: "-1" }, `The grader could not run: ${state.error}. Your code is saved; press Run tests to try again, or reload the page if it keeps failing.`));
    } else if (state.status === "running") {
      // Until the grader has started, the suite's tests are not known: nothing from an earlier run stays on show.
      if (state.tests) showList(state.tests, state.streamed, null, state.failing);
      else show();
    } else if (state.report?.problems.length > 0) {
      show(h("div", { class: "runner-problems", role: "alert", tabindex: "-1" }, h("p", {}, `${file} could not be run:`), h("ul", {}, state.report.problems.map((problem) => h("li", {}, h("code", {}, problem))))));
    } else if (state.report) {
      const { tests, score, maxScore } = state.report;
      const passed = tests.filter((test) => test.status === "passed").length;
      showList(
        tests.map((test) => test.name),
        tests,
        h("p", { class: "runner-summary", tabindex: "-1" }, `${passed} of ${tests.length} tests passed · ${score}/${maxScore} points`),
      );
    }
  };
}

/**
 * The name of the first failing row of the list, once it is known to be
 * the first: every row above it has passed. Tests finish in any order (a
 * later row may fail first), and the announcement names the row a learner
 * meets first going down the list, once, not whichever finished first.
 */
export function firstFailingRow(state) {
  const names = state.status === "running" ? state.tests : state.status === "done" ? state.report?.tests.map((test) => test.name) : null;
  if (!names) return null;
  const tests = state.status === "running" ? state.streamed : state.report.tests;
  for (const [position, name] of names.entries()) {
    const test = tests[position];
    if (test?.status === "passed") continue;
    if (test || (state.status === "running" && state.failing[position] !== undefined)) return name;
    return null;
  }
  return null;
}

/** Whether two tests (or two pending rows, null) show the same: the report's entry equals the streamed one, byte for byte. */
function sameTest(a, b) {
  if (a === b) return true;
  return a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);
}
