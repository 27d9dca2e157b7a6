// Keeps the table of contents and the progress summary in step with the
// learner's progress, and marks sections read once they have been on screen
// long enough to read, their end included.
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

/**
 * How long a section must have been on screen to count as read, by its
 * length: a skim at 1,000 words a minute (a reader takes three or four
 * times as long), at least 5 s and at most a minute. Scrolling past does not
 * read a section.
 */
export function readingMs(words) {
  return Math.max(READ_MS_MIN, Math.min(READ_MS_MAX, Math.round((words / SKIM_WORDS_PER_MINUTE) * 60_000)));
}
const SKIM_WORDS_PER_MINUTE = 1_000;
const READ_MS_MIN = 5_000;
const READ_MS_MAX = 60_000;
/** How often the time on screen is looked at while a section shows. */
const CHECK_EVERY_MS = 1_000;

/**
 * A section counts as read once its last line has been on screen and the
 * section has been on screen for its reading time (`readingMs`), in the
 * page's own clock, while the page was visible.
 */
function trackReading(document, progress) {
  const sections = [...document.querySelectorAll("[data-section-end]")].map((end) => {
    const element = end.closest("section") ?? end.parentElement;
    const words = (element.textContent.match(/\S+/g) ?? []).length;
    return { id: end.dataset.sectionEnd, end, element, needMs: readingMs(words), shownMs: 0, since: null, endSeen: false };
  });
  const byElement = new Map(sections.flatMap((section) => [[section.element, section], [section.end, section]]));
  const now = () => Date.now();
  const visible = () => document.visibilityState !== "hidden";

  /** Adds the time since the section came on screen (or since the last look) to its total. */
  const settle = (section) => {
    if (section.since === null) return;
    const at = now();
    section.shownMs += Math.max(0, at - section.since);
    section.since = at;
  };
  const check = () => {
    for (const section of sections) {
      settle(section);
      if (section.endSeen && section.shownMs >= section.needMs && !progress.isSectionRead(section.id)) progress.markSectionRead(section.id);
    }
  };
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const section = byElement.get(entry.target);
      if (!section) continue;
      if (entry.target === section.end) {
        if (entry.isIntersecting) section.endSeen = true;
        continue;
      }
      if (entry.isIntersecting && section.since === null && visible()) section.since = now();
      if (!entry.isIntersecting) {
        settle(section);
        section.since = null;
      }
    }
    check();
  });
  for (const section of sections) {
    observer.observe(section.element);
    observer.observe(section.end);
  }
  // Time on screen counts only while the page is visible.
  document.addEventListener("visibilitychange", () => {
    for (const section of sections) {
      if (visible()) {
        if (section.since === null && section.shownWhenHidden) section.since = now();
      } else {
        section.shownWhenHidden = section.since !== null;
        settle(section);
        section.since = null;
      }
    }
  });
  setInterval(() => {
    if (sections.some((section) => section.since !== null)) check();
  }, CHECK_EVERY_MS);
  // After "Reset progress" every section is unread again, and its time starts over.
  progress.subscribe((_, action) => {
    if (action.type !== "reset") return;
    for (const section of sections) {
      section.shownMs = 0;
      if (section.since !== null) section.since = now();
    }
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
