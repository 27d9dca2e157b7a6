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
    const place = at.exec(test.message);
    if (!place) continue;
    const message = test.message.replace(` (at ${place[0]})`, "");
    add(Number(place[1]), Number(place[2] ?? 1), `${message} (in the test "${test.name}")`, message);
  }
  return found;
}
