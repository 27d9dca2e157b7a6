// What the grader said about a submission, as marks at lines of the
// editor: a syntax error ("lock.js:22:21: SyntaxError: …"), a missing
// export ("lock.js must export `unlock`; …", marked where an export would
// go), and an exception a test run threw ("unlock() threw TypeError: … (at
// lock.js:22:7)"). Pure: text in, `{ line, column, severity, message }`
// out (1-based line and column), so it is tested in Node.

/** At most this many marks: the list below the editor has the rest. */
export const DIAGNOSTICS_MAX = 20;

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The marks for a report of `gradeSource` on `source` (the file `file`).
 * Each distinct message is marked once, at its first place.
 */
export function diagnosticsFromReport(report, { file, source }) {
  const lines = source.split("\n");
  const clampLine = (line) => Math.max(1, Math.min(lines.length, line));
  const clampColumn = (line, column) => Math.max(1, Math.min((lines[line - 1] ?? "").length + 1, column));
  const at = new RegExp(`${escapeRegExp(file)}:(\\d+)(?::(\\d+))?`);
  const found = [];
  const seen = new Set();
  const add = (line, column, message, sameAs = message) => {
    const key = `${line}:${column}:${sameAs}`;
    if (seen.has(key) || found.length >= DIAGNOSTICS_MAX) return;
    seen.add(key);
    const clamped = clampLine(line);
    found.push({ line: clamped, column: clampColumn(clamped, column), severity: "error", message });
  };

  for (const problem of report.problems ?? []) {
    const place = at.exec(problem);
    if (place) {
      add(Number(place[1]), Number(place[2] ?? 1), problem.replace(`${place[0]}: `, ""));
      continue;
    }
    const missing = /must export `([^`]+)`/.exec(problem);
    if (missing) {
      // No line to blame: mark the last line, where a missing function is usually added.
      const last = lines.length - (lines.at(-1) === "" && lines.length > 1 ? 1 : 0);
      add(last, 1, problem);
      continue;
    }
    add(1, 1, problem);
  }
  for (const test of report.tests ?? []) {
    if (test.status === "passed" || typeof test.message !== "string") continue;
    const stuck = stuckIn(test, source);
    if (stuck?.line) {
      add(stuck.line, 1, `${stuck.function}() kept running without waiting for the store: an infinite loop? (in the test "${test.name}")`, `stuck in ${stuck.function}`);
      continue;
    }
    const place = at.exec(test.message);
    if (!place) continue;
    const message = test.message.replace(` (at ${place[0]})`, "");
    add(Number(place[1]), Number(place[2] ?? 1), `${message} (in the test "${test.name}")`, message);
  }
  return found;
}

/**
 * For a test stopped because the code kept running without waiting for the
 * store (an infinite loop, most likely): the function of the learner's that
 * the harness had called when it happened (`{ function, line }`, the line
 * where `source` defines it, or null if it cannot be found), else null. The
 * grader cannot tell where inside QuickJS the loop was; the function it had
 * called, and its place in the file, it can.
 */
export function stuckIn(test, source) {
  if (!/kept running without waiting for the store/.test(test.message ?? "")) return null;
  const counterexample = test.counterexample;
  if (!counterexample) return null;
  const { trace, violation } = counterexample;
  const last = Math.min(trace.length - 1, violation?.traceIndex ?? trace.length - 1);
  for (let index = last; index >= 0; index -= 1) {
    const note = trace[index].happening?.what === "note" ? trace[index].happening.note : null;
    if (note?.note === "calling" && (violation?.process === undefined || trace[index].process === violation.process)) {
      return { function: note.function, line: definitionLine(source, note.function) };
    }
  }
  return null;
}

/** The 1-based line where `source` defines the function `name` (a declaration, or an assignment of a function), or null. */
function definitionLine(source, name) {
  const id = escapeRegExp(name);
  const defines = new RegExp(`\\bfunction\\s*\\*?\\s*${id}\\s*\\(|\\b${id}\\s*[:=]\\s*(async\\s+)?(function\\b|\\(|[A-Za-z_$][\\w$]*\\s*=>)`);
  const index = source.split("\n").findIndex((line) => defines.test(line));
  return index === -1 ? null : index + 1;
}
