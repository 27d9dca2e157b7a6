// The batch's summary table on standard output: a row per submission, its
// score per exercise and in total. Names are shown with control characters
// escaped, so a folder name cannot redraw the terminal or add rows.
import { EXERCISE_NAMES } from "../args.js";
import { visible } from "./escape.js";
import { totals } from "./common.js";

export function summaryTable(graded) {
  const names = graded.map((one) => visible(one.name));
  const nameWidth = Math.max(10, ...names.map((name) => name.length));
  // A column is as wide as its score ("15/15") or its name, with a space before it.
  const cellWidth = Math.max(8, ...EXERCISE_NAMES.map((name) => name.length + 1));
  const header = `${"submission".padEnd(nameWidth)}  ${EXERCISE_NAMES.map((name) => name.padStart(cellWidth)).join("")}     total`;
  const rows = graded.map((one, index) => {
    const cells = EXERCISE_NAMES.map((name) => {
      const result = one.results.find((candidate) => candidate.exercise === name);
      return (result ? `${result.report.score}/${result.report.maxScore}` : "-").padStart(cellWidth);
    });
    const { score, maxScore } = totals(one);
    return `${names[index].padEnd(nameWidth)}  ${cells.join("")}  ${`${score}/${maxScore}`.padStart(8)}`;
  });
  return `${[header, ...rows].join("\n")}\n`;
}
