// The progress parts of the page, as HTML strings from (lesson, progress):
// the marks beside each section in the table of contents and the summary
// above it. Pure, so the build renders the same markup the page keeps up to
// date (web/build/page.mjs), and a reload does not reshuffle the layout.
import { escapeHtml } from "./html.js";
import { initQuiz, score } from "./quiz-state.js";

/** Answered, right and total questions of one quiz, as the quiz itself counts them. */
export function quizCounts(quiz, progress, quizKey) {
  const { answered, total, right } = score(initQuiz(quiz, progress.quizzes[quizKey] ?? null));
  return { answered, total, right };
}

/** Everything the summary and the marks need, counted once. */
export function progressCounts(lesson, progress) {
  const sections = lesson.sections.map((section) => ({
    id: section.id,
    read: Boolean(progress.sections[section.id]),
    quizzes: section.quizzes.map((key) => quizCounts(lesson.quizzes[key], progress, key)),
    exercises: section.exercises.map((name) => ({ name, file: lesson.exercises[name].file, passed: progress.exercises[name]?.passedAt != null })),
  }));
  const sum = (list, pick) => list.reduce((total, item) => total + pick(item), 0);
  const quizzes = sections.flatMap((section) => section.quizzes);
  const exercises = sections.flatMap((section) => section.exercises);
  return {
    sections,
    read: sections.filter((section) => section.read).length,
    answered: sum(quizzes, (quiz) => quiz.answered),
    right: sum(quizzes, (quiz) => quiz.right),
    questions: sum(quizzes, (quiz) => quiz.total),
    passed: exercises.filter((exercise) => exercise.passed).length,
    exercises: exercises.length,
  };
}

/** The marks after one section's link: quiz progress and exercises passed. */
export function renderTocMarks(sectionCounts) {
  const chips = [];
  if (sectionCounts.read) chips.push(`<span class="visually-hidden">(read)</span>`);
  for (const quiz of sectionCounts.quizzes) {
    // What counts is the right answers: green only when all are right; a chip never reads like a score it is not.
    const done = quiz.total > 0 && quiz.right === quiz.total;
    const text = quiz.answered === 0 ? `Quiz · ${quiz.total} ${quiz.total === 1 ? "question" : "questions"}` : `Quiz ${quiz.right}/${quiz.total} right`;
    const answeredNote = quiz.answered === 0 ? ", not started" : quiz.answered < quiz.total ? `, ${quiz.answered} of ${quiz.total} answered` : "";
    chips.push(`<span class="toc-chip${done ? " is-done" : ""}">${text}<span class="visually-hidden">${answeredNote}</span></span>`);
  }
  for (const exercise of sectionCounts.exercises) {
    chips.push(`<span class="toc-chip${exercise.passed ? " is-done" : ""}"><span class="toc-chip-mark" aria-hidden="true">${exercise.passed ? "✓" : "○"}</span>${escapeHtml(exercise.file)}<span class="visually-hidden">${exercise.passed ? " passed" : " not passed yet"}</span></span>`);
  }
  return chips.join("");
}

/** The three totals above the table of contents. */
export function renderProgressSummary(counts) {
  const row = (label, done, total, key) => {
    const percent = total === 0 ? 0 : Math.round((done / total) * 100);
    return `<div class="progress-row" data-progress="${key}"><dt>${label}</dt><dd><span class="progress-figure">${done} / ${total}</span><span class="progress-bar" aria-hidden="true"><span style="width: ${percent}%"></span></span></dd></div>`;
  };
  return [
    row("Sections read", counts.read, counts.sections.length, "read"),
    row("Questions right", counts.right, counts.questions, "right"),
    row("Exercises passed", counts.passed, counts.exercises, "passed"),
  ].join("");
}
