// A single submission's text report printed as it is graded: each file's
// head when its turn comes, each test as it finishes, the file's score when
// its report is final, the total at the end. Files are graded in parallel
// and finish in any order, so a later file's lines wait here until every
// earlier file is printed: the output is always in the files' order, and
// byte for byte `renderText` of the finished report (a file whose grading
// was stopped part-way keeps the tests it had finished, before its error).
import { textFileHead, textFileTail, textTest, textTotal } from "./formats/text.js";

/**
 * A printer for `submission` (`{ name, files: [{ exercise, path }] }`) that
 * writes through `write(text)`: `test(f, test)` when file `f` finished a
 * test, `file(f, report)` when its report is final, `end(graded)` last.
 */
export function textStream(submission, write) {
  const files = submission.files.map(() => ({ waiting: [], done: false }));
  let current = 0;
  let headWritten = false;

  /** Writes what can be written in order: the current file's lines, and on to the next once it is done. */
  function flush() {
    while (current < files.length) {
      if (!headWritten) {
        write(textFileHead(submission.files[current]));
        headWritten = true;
      }
      const file = files[current];
      for (const text of file.waiting.splice(0)) write(text);
      if (!file.done) return;
      current += 1;
      headWritten = false;
    }
  }

  flush();
  return {
    test(f, test) {
      files[f].waiting.push(textTest(test));
      flush();
    },
    file(f, report) {
      files[f].waiting.push(textFileTail(report));
      files[f].done = true;
      flush();
    },
    end(graded) {
      write(textTotal(graded));
    },
  };
}
