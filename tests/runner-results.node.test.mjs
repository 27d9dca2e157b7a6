// The results view's pure part (web/src/runner/results-view.js): which row
// the screen reader's one announcement names. Tests finish in any order
// across the page's workers; the announcement names the first failing row
// of the list, once every row above it has passed, never merely the first
// failure to arrive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { firstFailingRow } from "../web/src/runner/results-view.js";

const passed = (name) => ({ name, status: "passed" });
const failed = (name) => ({ name, status: "failed" });
const running = (streamed, failing = []) => ({ status: "running", tests: ["a", "b", "c"], streamed, failing });

const cases = [
  ["nothing in yet", running([]), null],
  ["a later row failed first, the first is still running: not yet", running([undefined, undefined, failed("c")]), null],
  ["a later row known failing while its story shrinks, the first still running: not yet", running([], [undefined, "b"]), null],
  ["a row above the failure still running: not yet", running([passed("a"), undefined, failed("c")]), null],
  ["the rows above passed and the row failed", running([passed("a"), failed("b")]), "b"],
  ["the first row known failing, its story still shrinking", running([], ["a"]), "a"],
  ["all in: the first failing row, not the last to fail", { status: "done", report: { tests: [passed("a"), failed("b"), failed("c")] } }, "b"],
  ["all passed", { status: "done", report: { tests: [passed("a"), passed("b")] } }, null],
  ["a submission that could not run", { status: "done", report: { tests: [], problems: ["lock.js:1:1: SyntaxError"] } }, null],
];
for (const [what, state, expected] of cases) {
  test(`firstFailingRow: ${what}`, () => assert.equal(firstFailingRow(state), expected));
}
