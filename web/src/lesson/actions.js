// The learner's own buttons: "Export my solutions", "Reset progress…", and
// the notice shown when saved progress could not be read in full.
import { makeTar } from "./tar.js";
import { PROGRESS_FILE_NAME, progressFileText, readProgressFile } from "./transfer.js";

/** The export's folder and file names, from the lesson's id (its folder's name). */
export const exportFolder = (lesson) => lesson.id;
export const exportFileName = (lesson) => `${lesson.id}-solutions.tar`;

/** The exported files: each exercise's draft, or its starter when there is none yet. */
export function solutionFiles(lesson, progress) {
  return Object.values(lesson.exercises).map((exercise) => ({
    name: `${exportFolder(lesson)}/${exercise.file}`,
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
    // Beside the code (what the command-line grader reads), everything else: see transfer.js for the format.
    const progressFile = { name: `${exportFolder(lesson)}/${PROGRESS_FILE_NAME}`, text: progressFileText({ lessonId: lesson.id, graderVersion: lesson.grading.graderVersion, progress: progress.snapshot() }) };
    const archive = makeTar([...files, progressFile], Date.now() / 1000);
    const url = URL.createObjectURL(new Blob([archive], { type: "application/x-tar" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: exportFileName(lesson) });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    const drafts = files.filter((file) => file.isDraft).length;
    say(`Downloaded ${exportFileName(lesson)}: ${files.length} files (${drafts} with your code, ${files.length - drafts} still the starter) and ${PROGRESS_FILE_NAME} (your answers, hints and results). "Import progress…" reads it back.`);
  });
  mountImport(document, lesson, progress, say);

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

/** Where a message for after the reload that follows an import waits. */
const importNoteKey = (lesson) => `leaselab:${lesson.id}:imported`;

/**
 * "Import progress…": a button beside Export (made here, as the panel is
 * script-only anyway) and a hidden file input. A refused file leaves
 * everything as it was and says why; an accepted one replaces the progress
 * and reloads the page, so every quiz, hint and editor shows what was imported.
 */
function mountImport(document, lesson, progress, say) {
  const actions = document.querySelector(".progress-actions");
  if (!actions) return;
  const input = Object.assign(document.createElement("input"), { type: "file", accept: ".tar,.json,application/x-tar,application/json", hidden: true });
  input.setAttribute("aria-hidden", "true");
  input.tabIndex = -1;
  const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Import progress…" });
  button.dataset.action = "import";
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    const result = readProgressFile({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), lessonId: lesson.id, graderVersion: lesson.grading.graderVersion });
    if (result.error) {
      say(`Nothing was imported: ${result.error}`);
      return;
    }
    // Storage may refuse it (full): the reload would then show the old progress, so say so instead.
    const refused = progress.replace(result.progress);
    if (refused) {
      say(`Nothing was imported: ${file.name} could not be stored in this browser (${refused}); your progress is as it was.`);
      return;
    }
    const left = result.notes.length ? ` Left out, as it could not be read: ${result.notes.join(" ")}` : "";
    const results = result.resultsLeftOut ? ` ${result.resultsLeftOut}` : "";
    try {
      sessionStorage.setItem(importNoteKey(lesson), `Imported your progress from ${file.name}.${left}${results}`);
    } catch {
      // No session storage: the reload shows the imported progress without the note.
    }
    location.reload();
  });
  actions.querySelector('[data-action="export"]')?.after(button);
  actions.append(input);
  let note = null;
  try {
    note = sessionStorage.getItem(importNoteKey(lesson));
    sessionStorage.removeItem(importNoteKey(lesson));
  } catch {
    note = null;
  }
  if (note) say(note);
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
