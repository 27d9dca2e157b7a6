// The learner's own buttons: "Export my solutions", "Reset progress…", and
// the notice shown when saved progress could not be read in full.
import { makeTar } from "./tar.js";

/** The folder the exported files sit in, inside the .tar. */
export const EXPORT_FOLDER = "ownership-election";
export const EXPORT_FILE_NAME = "ownership-election-solutions.tar";

/** The exported files: each exercise's draft, or its starter when there is none yet. */
export function solutionFiles(lesson, progress) {
  return Object.values(lesson.exercises).map((exercise) => ({
    name: `${EXPORT_FOLDER}/${exercise.file}`,
    text: progress.getDraft(exercise.name) ?? exercise.starter,
    isDraft: progress.getDraft(exercise.name) !== null,
  }));
}

export function mountActions(document, lesson, progress) {
  const status = document.querySelector(".progress-status");
  const say = (text) => {
    if (status) status.textContent = text;
  };

  document.querySelector('button[data-action="export"]')?.addEventListener("click", () => {
    progress.flush();
    const files = solutionFiles(lesson, progress);
    const archive = makeTar(files, Date.now() / 1000);
    const url = URL.createObjectURL(new Blob([archive], { type: "application/x-tar" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: EXPORT_FILE_NAME });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    const drafts = files.filter((file) => file.isDraft).length;
    say(`Downloaded ${EXPORT_FILE_NAME}: ${files.length} files (${drafts} with your code, ${files.length - drafts} still the starter).`);
  });

  const dialog = document.getElementById("reset-dialog");
  const opener = document.querySelector('button[data-action="reset"]');
  opener?.addEventListener("click", () => dialog.showModal());
  dialog?.addEventListener("close", () => {
    if (dialog.returnValue === "erase") {
      progress.reset();
      say("Your progress was erased. The lesson starts afresh.");
    }
    dialog.returnValue = "";
    opener?.focus();
  });

  progress.subscribe(() => {
    if (progress.saveProblem) say(progress.saveProblem);
  });
  showLoadNotice(document, progress);
}

/** Tells the learner, once, what could not be read from their saved progress. */
function showLoadNotice(document, progress) {
  const { status, notes } = progress.loadReport;
  if (status !== "recovered" && status !== "unavailable") return;
  const notice = document.getElementById("progress-notice");
  if (!notice) return;
  const title = status === "unavailable" ? "Your progress will not be saved" : "Some saved progress could not be read";
  const lead = status === "unavailable" ? "" : "Everything else was kept. ";
  notice.querySelector(".notice-title").textContent = title;
  const list = notice.querySelector(".notice-list");
  list.replaceChildren(...notes.map((note) => Object.assign(document.createElement("li"), { textContent: note })));
  notice.querySelector(".notice-lead").textContent = lead;
  notice.hidden = false;
  notice.querySelector('button[data-action="dismiss"]').addEventListener("click", () => {
    notice.hidden = true;
  });
}
