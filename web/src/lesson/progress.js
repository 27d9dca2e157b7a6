// Keeps the table of contents and the progress summary in step with the
// learner's progress, and marks sections read as their end scrolls into view.
import { morph } from "./morph.js";
import { progressCounts, renderProgressSummary, renderTocMarks } from "./progress-view.js";

export function mountProgress(document, lesson, progress) {
  const summary = document.querySelector(".progress-summary");
  const figure = document.querySelector(".sidebar-figure");
  const items = new Map([...document.querySelectorAll(".toc-item")].map((item) => [item.dataset.section, item]));

  function render() {
    const counts = progressCounts(lesson, progress.snapshot());
    if (summary) morph(summary, renderProgressSummary(counts));
    const figureText = `${counts.read} / ${counts.sections.length} read`;
    if (figure && figure.textContent !== figureText) figure.textContent = figureText;
    for (const section of counts.sections) {
      const item = items.get(section.id);
      if (!item) continue;
      item.classList.toggle("is-read", section.read);
      morph(item.querySelector(".toc-marks"), renderTocMarks(section));
    }
  }

  progress.subscribe(render);
  render();
  trackReading(document, progress);
  trackCurrentSection(document, items);
}

/** A section counts as read once its last line has been on screen. */
function trackReading(document, progress) {
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      progress.markSectionRead(entry.target.dataset.sectionEnd);
      observer.unobserve(entry.target);
    }
  });
  for (const end of document.querySelectorAll("[data-section-end]")) {
    if (!progress.isSectionRead(end.dataset.sectionEnd)) observer.observe(end);
  }
  progress.subscribe((_, action) => {
    if (action.type !== "reset") return;
    for (const end of document.querySelectorAll("[data-section-end]")) observer.observe(end);
  });
}

/** Marks the link of the section being read with aria-current, so the contents show where you are. */
function trackCurrentSection(document, items) {
  const visible = new Set();
  const order = [...items.keys()];
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) visible.add(entry.target.id);
        else visible.delete(entry.target.id);
      }
      const current = order.find((id) => visible.has(id));
      for (const [id, item] of items) {
        const link = item.querySelector("a");
        if (id === current) link.setAttribute("aria-current", "location");
        else link.removeAttribute("aria-current");
      }
    },
    { rootMargin: "-30% 0px -60% 0px" },
  );
  for (const id of order) {
    const section = document.getElementById(id);
    if (section) observer.observe(section);
  }
}
