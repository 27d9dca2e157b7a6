// The batch's scores as CSV: a row per submission (named as in the summary
// table, so two folders of the same name are told apart), its score per
// exercise, total, maximum, whether everything passed, and the exercises
// whose file the submission lacks (`missing`, names separated by spaces), so
// incomplete work is never read as complete. Names are cells
// a spreadsheet keeps as text (csvCell), never formulas. Without the header
// line (`header: false`: shards after the first, see cli/shard.js) the rows
// append to another shard's CSV.
import { EXERCISE_NAMES } from "../args.js";
import { allPassed, totals } from "./common.js";
import { csvCell } from "./escape.js";

export function scoresCsv(graded, { header = true } = {}) {
  const lines = header ? [["submission", ...EXERCISE_NAMES, "score", "max_score", "passed", "missing"].join(",")] : [];
  for (const one of graded) {
    const cells = EXERCISE_NAMES.map((name) => one.results.find((result) => result.exercise === name)?.report.score ?? "");
    const { score, maxScore } = totals(one);
    const missing = one.results.filter((result) => result.missing).map((result) => result.exercise);
    lines.push([csvCell(one.name), ...cells, score, maxScore, allPassed(one), missing.length > 0 ? csvCell(missing.join(" ")) : ""].join(","));
  }
  return lines.map((line) => `${line}\n`).join("");
}
