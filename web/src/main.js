// The page's entry. The lesson's text, quizzes and exercises are already in
// the HTML (rendered by web/build at build time) and read without scripts;
// this brings them to life:
// - the progress store (localStorage), the table of contents' progress,
//   "export" and "reset";
// - quizzes and exercise hints, mounted at once (small, and already drawn);
// - widgets, mounted when they come near the screen, each loading its own
//   code, and the wasm module only for widgets that need it.
// The same entry serves the standalone playground page, which has widgets only.
import { createProgressStore } from "./storage/progress.js";
import { mountActions } from "./lesson/actions.js";
import { mountExercise } from "./lesson/exercise.js";
import { mountProgress } from "./lesson/progress.js";
import { mountQuiz } from "./lesson/quiz.js";
import { openAnswers } from "./lesson/answer-key.js";
import { keepingFocus, once, reachableWhileLoading } from "./lesson/focus-mount.js";
import { parseReplayFragment } from "./runner/link.js";
import { graderQuiet, prefetchGraderModule } from "./runner/grader-module.js";

/**
 * The widget registry is the folder web/src/widgets/: a widget is a folder
 * with `widget.json` (its title, introduction, loading text, and whether it
 * runs on the wasm store) and `view.js`, whose `load()` resolves to its mount
 * function. The checker and the page builder read the same folders; here the
 * bundler code-splits one chunk per widget from these two patterns.
 */
const widgetManifest = (name) => import(`./widgets/${name}/widget.json`).then((module) => module.default);
const widgetView = (name) => import(`./widgets/${name}/view.js`).then((module) => module.load());
/** A widget name is a folder name; anything else never reaches an import. */
const WIDGET_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The code runner (web/src/runner/mount.js) mounts into every
 * `.exercise-runner` element when it comes near; until then that element
 * shows the starter code. It is called as `mountRunner(element, { exercise,
 * grading, progress })`, where `exercise` is { name, title, file, exports,
 * starter, hintsTotal, lab }, `grading` the grader's budget ({ seeds }) and
 * `progress` the store from storage/progress.js.
 */
const loadRunner = () => import("./runner/mount.js").then((module) => module.mountRunner);

/**
 * Loads the editor and the grader (the page's largest downloads) only when
 * an exercise comes near: both at once, so a slow link is never idle
 * between them.
 */
function mountRunnerIn(runner, exercise, grading, progress, loaded = () => {}) {
  prefetchGraderModule();
  loadRunner()
    .then((mountRunner) => keepingFocus(runner, () => mountRunner(runner, { exercise, grading, progress })))
    .then(loaded)
    .catch((error) => {
      if (!networkFailed(error)) {
        showProblem(runner, `The code editor could not start (${error.message}). Reload the page to try again.`, error);
        return;
      }
      // The starter stays on show; the editor comes by itself once the connection is back.
      const note = showNote(runner, "The code editor could not be downloaded: the network seems to be down. It loads by itself when the connection returns; meanwhile, here is the starter code.");
      whenOnline(() => {
        note.remove();
        mountRunnerIn(runner, exercise, grading, progress, loaded);
      });
    });
}

/**
 * Whether a failed load is the network's doing: the browser is offline, or
 * download failed: a fetch ("Failed to fetch" in Chromium, "NetworkError…"
 * in Firefox, "Load failed" in Safari) or a script ("Failed to fetch
 * dynamically imported module", "error loading dynamically imported
 * module", "Importing a module script failed").
 */
function networkFailed(error) {
  return navigator.onLine === false || /Failed to fetch|NetworkError|Load failed|dynamically imported module|Importing a module script failed/i.test(error?.message ?? "");
}

/** Runs `retry` once the browser says it is online again (at once on a page that still thinks it is, after a pause). */
function whenOnline(retry) {
  if (navigator.onLine === false) addEventListener("online", retry, { once: true });
  else setTimeout(() => whenOnline(retry), NETWORK_RETRY_MS);
}

/** How long to wait before loading again when the browser does not know it is offline (a server that went away). */
const NETWORK_RETRY_MS = 10_000;

/** Runs `start` once `element` is within the preload margin of the screen (or at once if `now`). */
function whenNear(element, start, now = false) {
  if (now || typeof IntersectionObserver === "undefined") {
    start();
    return;
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        start();
      }
    },
    { rootMargin: WIDGET_PRELOAD_MARGIN },
  );
  observer.observe(element);
}

/** How far below the screen a widget starts loading, so it is ready when it scrolls in. */
const WIDGET_PRELOAD_MARGIN = "600px 0px";

function main() {
  const lesson = readLessonData();
  if (lesson) startLesson(lesson);
  watchWidgets();
}

function readLessonData() {
  const element = document.getElementById("lesson-data");
  if (!element) return null;
  try {
    const lesson = JSON.parse(element.textContent);
    return { ...lesson, quizzes: openAnswers(lesson.quizzes) };
  } catch (error) {
    console.error(error);
    showPageProblem("The interactive parts of this page could not start (its data is damaged). The text still reads; rebuild the page to fix the rest.");
    return null;
  }
}

function startLesson(lesson) {
  const progress = createProgressStore({ lessonId: lesson.id });
  // Drafts are saved a moment after typing stops; leaving the page saves at once.
  addEventListener("pagehide", () => progress.flush());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") progress.flush();
  });

  guard("progress", () => mountProgress(document, lesson, progress));
  guard("actions", () => mountActions(document, lesson, progress));
  for (const element of document.querySelectorAll(".quiz[data-quiz]")) {
    const key = element.dataset.quiz;
    guard(`quiz ${key}`, () => mountQuiz(element, key, lesson.quizzes[key], progress), element);
  }
  for (const element of document.querySelectorAll(".exercise[data-exercise]")) {
    const exercise = lesson.exercises[element.dataset.exercise];
    guard(`exercise ${exercise?.name}`, () => mountExercise(element, exercise, progress), element);
    const runner = element.querySelector(".exercise-runner");
    if (runner && loadRunner) {
      // Near the screen or focused, whichever comes first (a keyboard user may tab faster than it loads).
      const start = once(() => mountRunnerIn(runner, exercise, lesson.grading, progress, loaded));
      const loaded = reachableWhileLoading(runner, { start });
      whenNear(runner, start, location.hash.startsWith(`#replay=${exercise.name}~`));
    }
  }
  // A replay link whose exercise the page cannot find says so (one to a known exercise is the runner's to explain).
  const linked = parseReplayFragment(location.hash);
  if (linked && !Object.hasOwn(lesson.exercises, linked.exercise)) {
    showPageProblem(`This link cannot be replayed: ${linked.error ?? `it names an exercise, "${linked.exercise}", that this lesson does not have.`}`);
  }
  adaptContents();
  document.documentElement.dataset.lessonReady = "true";
  // Handles for tests and the curious: the progress store, and grading as the page does it,
  // grade({ exercise, source, options, deadlineMs }), with the page's budget unless `options`
  // names another; a `deadlineMs` replaces the page's hard deadline (shorter: a test reaches the
  // "took too long" verdict quickly; longer, up to DEADLINE_MS_MAX: a loaded machine's verdicts stay the grader's).
  const grade = (request) => {
    const options = { seeds: lesson.grading.seeds, ...request?.options };
    return import("./runner/client.js").then((module) => module.gradeInWorker({ ...request, options }));
  };
  // warmUp(): where the grading workers' warm-up is (client.js's warmUpState), for tests that wait for it.
  const warmUp = () => import("./runner/client.js").then((module) => module.warmUpState());
  window.leaselab = { progress, grading: lesson.grading, exercises: lesson.exercises, grade, warmUp };
}

/** Runs a mount; if it throws, says so in place and carries on with the rest of the page. */
function guard(what, mount, element = null) {
  try {
    mount();
  } catch (error) {
    if (element) showProblem(element.querySelector(".quiz-live, .exercise-runner") ?? element, `This part of the page could not start (${error.message}). The rest of the lesson works; reloading may help.`, error);
    else console.error(`${what} could not start`, error);
  }
}

/** A message above what `element` shows, keeping it: returns the message, to remove once it no longer holds. */
function showNote(element, text) {
  const message = document.createElement("p");
  message.className = "widget-error";
  message.setAttribute("role", "alert");
  message.textContent = text;
  element.prepend(message);
  return message;
}

function showProblem(element, text, error) {
  console.error(error);
  const message = document.createElement("p");
  message.className = "widget-error";
  message.setAttribute("role", "alert");
  message.textContent = text;
  element.replaceChildren(message);
}

function showPageProblem(text) {
  const main = document.querySelector("main");
  const message = document.createElement("p");
  message.className = "widget-error";
  message.setAttribute("role", "alert");
  message.textContent = text;
  main?.prepend(message);
}

/** On a narrow screen the contents and progress start folded, so the lesson is what you see first. */
function adaptContents() {
  const details = document.querySelector(".sidebar-details");
  if (!details) return;
  const wide = matchMedia("(min-width: 60rem)");
  const apply = () => {
    details.open = wide.matches;
  };
  apply();
  wide.addEventListener("change", apply);
  // On a phone, following a link in the contents folds them away again.
  details.addEventListener("click", (event) => {
    if (!wide.matches && event.target.closest("a")) details.open = false;
  });
}

// ---- widgets ---------------------------------------------------------------

function watchWidgets() {
  const elements = [...document.querySelectorAll("[data-widget]")].filter((element) => WIDGET_NAME.test(element.dataset.widget));
  if (elements.length === 0) return;
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        mountWidget(entry.target, loadedOf.get(entry.target));
      }
    },
    { rootMargin: WIDGET_PRELOAD_MARGIN },
  );
  /** Per widget: what to call once it is mounted (its placeholder's tab stop goes). */
  const loadedOf = new Map();
  for (const element of elements) {
    observer.observe(element);
    // A keyboard user reaches the placeholder with Tab and it mounts at once.
    const title = element.closest("[aria-labelledby]")?.getAttribute("aria-labelledby") ?? null;
    const loaded = reachableWhileLoading(element, {
      labelledBy: title,
      start: () => {
        observer.unobserve(element);
        mountWidget(element, loaded);
      },
    });
    loadedOf.set(element, loaded);
  }
}

/** The wasm module and its glue code load only when the first widget that needs them mounts. */
const loadWasm = () => import("./wasm.js").then((module) => module.loadWasm());

/** Widgets whose mounting has begun: near the screen and focused may both ask. */
const widgetsStarted = new WeakSet();

async function mountWidget(element, loaded = () => {}) {
  if (widgetsStarted.has(element)) return;
  widgetsStarted.add(element);
  const name = element.dataset.widget;
  let manifest = null;
  try {
    // A widget near an exercise waits for the grader's download: the learner who opened the exercise waits for that.
    await graderQuiet();
    manifest = await widgetManifest(name);
    const [mount, wasm] = await Promise.all([widgetView(name), manifest.wasm === "store" ? loadWasm() : null]);
    keepingFocus(element, () => mount(element, wasm));
    loaded();
    element.dataset.ready = "true";
  } catch (error) {
    if (networkFailed(error)) {
      // Tried again once the connection is back; until then its loading text stays, with why it waits.
      const note = showNote(element, "This interactive part could not be downloaded: the network seems to be down. It loads by itself when the connection returns.");
      whenOnline(() => {
        note.remove();
        widgetsStarted.delete(element);
        mountWidget(element, loaded);
      });
      return;
    }
    showProblem(
      element,
      `This interactive part could not start (${error.message}). Reload the page; if it persists, your browser may not support ${manifest?.wasm ? "WebAssembly" : "it"}.`,
      error,
    );
  }
}

main();
