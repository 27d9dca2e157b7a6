// The grader's words as marks at lines of the editor (web/src/runner/diagnostics.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DIAGNOSTICS_MAX, diagnosticsFromReport } from "../web/src/runner/diagnostics.js";

const source = "export async function lock(ctx) {\n  return 1;\n}\n\nasync function unlock() {}\n";
const file = "lock.js";
const failed = (name, message) => ({ name, status: "failed", message });

const cases = [
  ["a syntax error at its line and column", { problems: ["lock.js:2:11: SyntaxError: unexpected token in expression: ';'"], tests: [] }, [{ line: 2, column: 11, severity: "error", message: "SyntaxError: unexpected token in expression: ';'" }]],
  ["a missing export on the last line with text", { problems: ["lock.js must export `unlock`; found `lock`"], tests: [] }, [{ line: 5, column: 1, severity: "error", message: "lock.js must export `unlock`; found `lock`" }]],
  ["an exception once, however many tests threw it", { problems: [], tests: [failed("a", "lock() threw TypeError: x is null (at lock.js:2:3)"), failed("b", "lock() threw TypeError: x is null (at lock.js:2:3)"), { name: "c", status: "passed", message: "" }] }, [{ line: 2, column: 3, severity: "error", message: 'lock() threw TypeError: x is null (in the test "a")' }]],
  ["a place beyond the text is clamped to it", { problems: ["lock.js:99:99: SyntaxError: unexpected end of input"], tests: [] }, [{ line: 6, column: 1, severity: "error", message: "SyntaxError: unexpected end of input" }]],
  ["a failure with no place in the file is not marked", { problems: [], tests: [failed("a", "p1 wrote the lock without a TTL")] }, []],
  ["another file's name is not this file's place", { problems: [], tests: [failed("a", "threw (at prelude.js:3:1)")] }, []],
];
for (const [what, report, expected] of cases) {
  test(`diagnostics: ${what}`, () => assert.deepEqual(diagnosticsFromReport(report, { file, source }), expected));
}

test(`diagnostics: at most ${DIAGNOSTICS_MAX} marks`, () => {
  const tests = Array.from({ length: 50 }, (_, index) => failed(`t${index}`, `lock() threw Error: ${index} (at lock.js:1:1)`));
  assert.equal(diagnosticsFromReport({ problems: [], tests }, { file, source }).length, DIAGNOSTICS_MAX);
});
