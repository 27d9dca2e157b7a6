// The lesson page, rendered from the content crate's lesson JSON at build
// time. The text, code, diagrams, every quiz's first screen and every
// exercise are plain HTML, so the lesson reads before (and without) any
// script; web/src/main.js then brings the interactive parts to life.
//
// Quizzes and the progress marks use the same string views as the page
// (web/src/lesson/*-view.js), so nothing changes shape when scripts start.
import { attributes, escapeHtml } from "../src/lesson/html.js";
import { sealAnswers } from "../src/lesson/answer-key.js";
import { initQuiz } from "../src/lesson/quiz-state.js";
import { renderQuiz } from "../src/lesson/quiz-view.js";
import { progressCounts, renderProgressSummary, renderTocMarks } from "../src/lesson/progress-view.js";
import { emptyProgress } from "../src/storage/schema.js";
import { highlight, highlightBlocks, unescapeHtml } from "./highlight.mjs";
import { scopeSvg, svgTitle } from "./svg.mjs";
import { readWidgets } from "./widgets.mjs";

/** The lesson JSON format this page understands (the content crate's FORMAT_VERSION). */
export const LESSON_FORMAT_VERSION = 1;

/** The widgets, from their folders (web/build/widgets.mjs): title, introduction, loading text. */
const WIDGETS = readWidgets();

/**
 * Renders the whole page. `assets`: { script, stylesheet, favicon } file
 * names; `grader`: the packed grader's `{ file, gzipBytes, wasmBytes }`
 * (web/build/grader-wasm.mjs), or null for a page that cannot grade.
 */
export function renderPage(lesson, assets = { script: "main.js", stylesheet: "style.css", favicon: "favicon.svg" }, grader = null) {
  if (lesson.format_version !== LESSON_FORMAT_VERSION) {
    throw new Error(`the lesson JSON has format_version ${lesson.format_version}, this page renders version ${LESSON_FORMAT_VERSION}; update web/build/page.mjs together with the content crate`);
  }
  const data = lessonData(lesson);
  const counts = progressCounts({ ...data, quizzes: lesson.quizzes }, emptyProgress());
  const sections = lesson.sections.map((section, index) => renderSection(lesson, section, index)).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(lesson.title)} · leaselab</title>
<meta name="description" content="${escapeHtml(lesson.summary)}">
<link rel="icon" href="${assets.favicon}" type="image/svg+xml">${grader ? `\n<meta name="leaselab-grader"${attributes({ content: grader.file, "data-gzip-bytes": grader.gzipBytes, "data-wasm-bytes": grader.wasmBytes })}>` : ""}
<link rel="stylesheet" href="${assets.stylesheet}">
<script type="module" src="${assets.script}"></script>
<noscript><style>.needs-js, .quiz-actions, .toc-marks { display: none !important; } .hint[hidden] { display: block; }</style></noscript>
</head>
<body>
<a class="skip-link" href="#lesson">Skip to the lesson</a>
<header class="site-header">
<p class="brand"><span class="brand-name">leaselab</span> <span class="brand-lesson">${escapeHtml(lesson.title)}</span></p>
</header>
<div class="layout">
<aside class="sidebar">
<details class="sidebar-details" open>
<summary><span class="sidebar-summary">Contents<span class="needs-js"> and progress</span></span> <span class="sidebar-figure needs-js" aria-hidden="true">${counts.read} / ${counts.sections.length} read</span></summary>
<nav class="toc" aria-label="Lesson contents">
<ol class="toc-list">
${lesson.sections.map((section, index) => renderTocItem(section, index, counts.sections[index])).join("\n")}
</ol>
</nav>
<section class="progress-panel needs-js" aria-labelledby="progress-title">
<p class="panel-title" id="progress-title">Your progress</p>
<dl class="progress-summary">${renderProgressSummary(counts)}</dl>
<p class="progress-note">Saved in this browser as you go.</p>
<div class="progress-actions">
<button type="button" data-action="export">Export my solutions</button>
<button type="button" data-action="reset" aria-haspopup="dialog">Reset progress…</button>
</div>
<p class="progress-status" role="status"></p>
</section>
</details>
</aside>
<main id="lesson" class="lesson" tabindex="-1">
<div class="notice" id="progress-notice" role="status" hidden>
<p class="notice-title"></p>
<p class="notice-lead"></p>
<ul class="notice-list"></ul>
<button type="button" class="small" data-action="dismiss">Dismiss</button>
</div>
${sections}
<footer class="lesson-footer">
${lesson.source ? `<p>${escapeHtml(lesson.source)}</p>` : ""}
<p>Want only the store? The <a href="playground.html">compare-and-swap playground</a> has a page of its own.</p>
</footer>
</main>
</div>
<dialog id="reset-dialog" aria-labelledby="reset-title" aria-describedby="reset-text">
<form method="dialog">
<p class="dialog-title" id="reset-title">Erase all your progress?</p>
<p id="reset-text">This removes your code drafts, quiz answers, opened hints, passed exercises and read marks from this browser. It cannot be undone. Export your solutions first if you want to keep your code.</p>
<div class="dialog-actions">
<button value="cancel" autofocus>Keep my progress</button>
<button value="erase" class="danger">Erase everything</button>
</div>
</form>
</dialog>
<script type="application/json" id="lesson-data">${jsonForScript(data)}</script>
</body>
</html>
`;
}

/**
 * What the page's script needs: each section's quizzes and exercises, the
 * quizzes themselves (to grade and explain), and each exercise's file,
 * exports, starter and number of hints.
 */
export function lessonData(lesson) {
  const exercises = {};
  for (const [name, exercise] of Object.entries(lesson.exercises)) {
    exercises[name] = { name, title: exercise.title, file: exercise.file, exports: exercise.exports, starter: exercise.starter, hintsTotal: exercise.hints.length, lab: exercise.lab };
  }
  return {
    id: lesson.id,
    title: lesson.title,
    sections: lesson.sections.map((section) => ({
      id: section.id,
      title: section.title,
      quizzes: section.embeds.filter((embed) => embed.kind === "quiz").map((embed) => embed.src),
      exercises: section.embeds.filter((embed) => embed.kind === "exercise").map((embed) => embed.src),
    })),
    // Sealed, so the page's source does not give the answers away (answer-key.js); the page opens them.
    quizzes: sealAnswers(lesson.quizzes),
    exercises,
    // The grader's registry (via the content crate): the page grades with exactly this budget.
    grading: { graderVersion: lesson.grading.grader_version, seeds: lesson.grading.seeds },
  };
}

/** JSON that is safe inside <script>: no "</script>" or "<!--" can appear. */
function jsonForScript(value) {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function renderTocItem(section, index, counts) {
  return `<li class="toc-item" data-section="${escapeHtml(section.id)}"><a href="#${escapeHtml(section.id)}"><span class="toc-number" aria-hidden="true">${index + 1}</span><span class="toc-title">${escapeHtml(section.title)}</span></a><span class="toc-marks">${renderTocMarks(counts)}</span></li>`;
}

// ---- sections ----------------------------------------------------------------

function renderSection(lesson, section, index) {
  let html = section.html.replace(/<div class="embed" data-kind="(\w+)" data-src="([^"]*)"><\/div>/g, (_, kind, src) => renderEmbed(lesson, section, kind, unescapeHtml(src)));
  html = highlightBlocks(html);
  html = html.replace(/<table>([\s\S]*?)<\/table>/g, '<div class="table-frame"><table>$1</table></div>');
  if (index === 0) html = html.replace(/(<\/h1>)/, `$1\n<p class="lede">${escapeHtml(lesson.summary)}</p>\n${renderLessonAtAGlance(lesson)}`);
  return `<section class="lesson-section" id="${escapeHtml(section.id)}" aria-labelledby="${escapeHtml(section.id)}-title">
${html.replace(/<h([12])>/, `<h$1 id="${escapeHtml(section.id)}-title">`)}
<div class="section-end" data-section-end="${escapeHtml(section.id)}" aria-hidden="true"></div>
</section>`;
}

/** What the lesson holds, on its first screen: sections, questions, exercises, and where progress is kept. */
function renderLessonAtAGlance(lesson) {
  const questions = Object.values(lesson.quizzes).reduce((sum, quiz) => sum + quiz.questions.length, 0);
  const exercises = Object.keys(lesson.exercises).length;
  const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;
  return `<ul class="lesson-glance" aria-label="What this lesson holds">
<li>${plural(lesson.sections.length, "section", "sections")} to read</li>
<li>${plural(questions, "quiz question", "quiz questions")}</li>
<li>${plural(exercises, "hands-on exercise", "hands-on exercises")}, graded in your browser</li>
<li>Your answers, code and progress are saved in this browser<span class="needs-js"> (export them from the contents panel)</span></li>
</ul>`;
}

function renderEmbed(lesson, section, kind, src) {
  const where = `section ${section.file}`;
  switch (kind) {
    case "quiz": {
      const quiz = lesson.quizzes[src];
      if (!quiz) throw new Error(`${where} embeds the quiz "${src}", which the lesson JSON does not contain`);
      return renderQuiz(src, initQuiz(quiz, null));
    }
    case "exercise": {
      const exercise = lesson.exercises[src];
      if (!exercise) throw new Error(`${where} embeds the exercise "${src}", which the lesson JSON does not contain`);
      return renderExercise(exercise);
    }
    case "diagram": {
      const diagram = lesson.diagrams[src];
      if (!diagram) throw new Error(`${where} embeds the diagram "${src}", which the lesson JSON does not contain`);
      return renderDiagram(src, diagram.svg);
    }
    case "widget":
      return renderWidget(src, where);
    default:
      throw new Error(`${where} embeds a "${kind}", which this page does not know; use quiz, exercise, widget or diagram`);
  }
}

function renderDiagram(src, svg) {
  const name = src.replace(/^.*\//, "").replace(/\.svg$/, "").toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const id = `diagram-${name}`;
  const caption = svgTitle(svg);
  return `<figure class="diagram-figure" id="${id}">
<div class="diagram-frame" tabindex="0" role="group"${attributes({ "aria-labelledby": caption ? `${id}-caption` : null, "aria-label": caption ? null : "Diagram" })}>${scopeSvg(svg, id)}</div>
${caption ? `<figcaption id="${id}-caption">${escapeHtml(caption)}</figcaption>` : ""}
</figure>`;
}

function renderWidget(name, where) {
  const widget = WIDGETS[name];
  if (!widget) throw new Error(`${where} embeds the widget "${name}", which this page does not know; known widgets: ${Object.keys(WIDGETS).join(", ")}`);
  const id = `widget-${name}`;
  return `<section class="widget-frame" id="${id}" aria-labelledby="${id}-title">
<p class="widget-title" id="${id}-title">${escapeHtml(widget.title)}</p>
${widget.intro ? `<p class="widget-intro">${escapeHtml(widget.intro)}</p>` : ""}
<div class="widget" data-widget="${name}">
<p class="widget-loading needs-js">${escapeHtml(widget.waiting)}</p>
<noscript><p>This part runs in your browser and needs JavaScript.</p></noscript>
</div>
</section>`;
}

// ---- exercises -----------------------------------------------------------------

function renderExercise(exercise) {
  const id = `exercise-${exercise.name}`;
  const readme = demoteHeadings(highlightBlocks(exercise.readme_html.replace(/^\s*<h1>[\s\S]*?<\/h1>\s*/, "")));
  const exports = exercise.exports.map((name) => `<li><code>${escapeHtml(name)}</code></li>`).join("");
  const hints = exercise.hints
    .map((hint, index) => `<li class="hint" id="${id}-hint-${index + 1}" tabindex="-1" hidden><p class="hint-title">${escapeHtml(hint.title)}</p>${highlightBlocks(hint.html)}</li>`)
    .join("\n");
  return `<article class="exercise" id="${id}" data-exercise="${escapeHtml(exercise.name)}" aria-labelledby="${id}-title">
<header class="exercise-head">
<p class="exercise-kicker">Exercise · <code>${escapeHtml(exercise.file)}</code></p>
<h4 class="exercise-title" id="${id}-title">${escapeHtml(exercise.title)}</h4>
<p class="exercise-status needs-js">Not passed yet</p>
</header>
<div class="exercise-task">
<div class="exercise-readme">
${readme}
</div>
<div class="exercise-exports"><p id="${id}-exports">Your <code>${escapeHtml(exercise.file)}</code> exports</p><ul aria-labelledby="${id}-exports">${exports}</ul></div>
<div class="hints">
<h5 class="hints-title" id="${id}-hints-title">Hints</h5>
<p class="hint-status needs-js">Try on your own first; open a hint when you are stuck.</p>
<ol class="hint-list" id="${id}-hints">
${hints}
</ol>
<button type="button" class="needs-js" data-action="hint" aria-controls="${id}-hints">Show hint 1 of ${exercise.hints.length}</button>
</div>
</div>
<div class="exercise-runner" data-exercise="${escapeHtml(exercise.name)}">
<p class="runner-note">Soon you will write and test <code>${escapeHtml(exercise.file)}</code> right here. For now, this is the starter code to begin from:</p>
<pre class="code" tabindex="0" data-language="js"><code class="language-js">${highlight(exercise.starter, "js")}</code></pre>
</div>
</article>`;
}

/** README headings sit under the exercise's own title (h4): h2 → h5, h3 and deeper → h6. */
function demoteHeadings(html) {
  return html.replace(/<(\/?)h([1-6])(\s[^>]*)?>/g, (_, slash, level, rest = "") => `<${slash}h${Math.min(6, Number(level) + 3)}${rest}>`);
}
