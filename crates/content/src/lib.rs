//! Loads, checks and renders a leaselab lesson.
//!
//! A lesson is a folder of plain files that authors edit: `lesson.toml`
//! (title, summary, the section order), Markdown sections that embed things
//! with directives on their own line (`{{#quiz quizzes/x.toml}}`,
//! `{{#exercise lock}}`, `{{#widget cas-playground}}`,
//! `{{#diagram diagrams/failover.svg}}`), quiz files in mdbook-quiz's TOML
//! format with our `explain` extension, and one folder per exercise.
//!
//! The design decision this crate embodies: **checking is loading**. The one
//! pass that builds the typed [`Lesson`] also finds every problem, reads
//! TOML through span-preserving tables rather than serde derives (which stop
//! at the first error and lose positions), and keeps going after each
//! problem. So an author gets every error in one run, each with the file,
//! line and column, what is wrong and how to fix it, and the build renders
//! exactly the model the checker approved. Paths in messages are relative to
//! the lesson folder's parent (`ownership-election/quizzes/x.toml`).
//!
//! # Use
//!
//! ```no_run
//! let checked = content::check_lesson(std::path::Path::new("exercises/ownership-election"));
//! for diagnostic in &checked.diagnostics {
//!     eprintln!("{diagnostic}"); // path:line:col: error: what is wrong; how to fix it
//! }
//! if checked.diagnostics.is_empty() {
//!     let json = content::to_json(&content::render_lesson(&checked.lesson));
//!     # let _ = json;
//! }
//! ```
//!
//! The `content` binary wraps this: `content check <lesson-dir> [--format
//! text|json]` and `content render <lesson-dir> --out <file.json>`. Exit
//! status 0 means clean, 1 that the lesson has errors (render then writes
//! nothing), 2 bad usage or an I/O failure. `check --format json` prints
//! [`Report`]:
//!
//! ```text
//! { "diagnostics": [ { "file": "ownership-election/quizzes/x.toml", "line": 4, "column": 1,
//!                      "message": "what is wrong; how to fix it", "rule": "unknown-field" } ],
//!   "sections": 10, "quizzes": 4, "exercises": 4, "errors": 1 }
//! ```
//!
//! # The rendered document
//!
//! `content render` writes one JSON object (keys in snake_case; absent
//! optional values are `null`, never missing):
//!
//! ```text
//! {
//!   "format_version": 1,
//!   "title": "Ownership Election",
//!   "summary": "...",
//!   "source": "..." | null,
//!   "sections": [
//!     { "id": "06-locks",                  // file name without .md
//!       "file": "06-locks.md",
//!       "title": "Implementing locks",     // the heading the file starts with
//!       "html": "<h2>Implementing locks</h2>\n...<div class=\"embed\" data-kind=\"exercise\" data-src=\"lock\"></div>...",
//!       "embeds": [ { "kind": "exercise", "src": "lock" }, { "kind": "quiz", "src": "quizzes/locks-and-ttl.toml" } ] }
//!   ],
//!   "quizzes": {                           // key = data-src of a quiz placeholder
//!     "quizzes/locks-and-ttl.toml": {
//!       "title": null,
//!       "multipart_html": { "KEY": "<p>...</p>" },
//!       "questions": [
//!         { "type": "MultipleChoice", "id": "why-lock-ttl" | null, "multipart": null,
//!           "prompt_html": "<p>...</p>", "context_html": "<p>...</p>" | null, "prompt_explanation": false,
//!           "multiple": false,             // true: select all that apply
//!           "options": [                   // correct ones first, then distractors, in file order
//!             { "html": "inline html", "correct": true, "explanation_html": "inline html" | null } ],
//!           "answer_index": null,          // else: show the single answer at this position
//!           "sort_answers": false },       // else: shuffle (the page decides how)
//!         { "type": "ShortAnswer", "id", "multipart", "prompt_html", "context_html", "prompt_explanation",
//!           "response": "short" | "long" | "code", "answer": "etcd", "alternatives": ["Etcd"] },
//!         { "type": "Tracing", "id", "multipart", "context_html", "prompt_explanation",
//!           "program": "...", "does_compile": true, "stdout": "..." | null, "line_number": 3 | null }
//!       ] } },
//!   "exercises": {                         // key = data-src of an exercise placeholder
//!     "lock": { "name": "lock", "title": "...", "file": "lock.js", "exports": ["tryLock", "lock", "unlock"],
//!               "starter": "JavaScript source",
//!               "readme_html": "README without its hints",
//!               "hints": [ { "title": "Hint 1", "html": "<p>...</p>" } ] } },
//!   "diagrams": { "diagrams/failover.svg": { "svg": "<svg ...>" } },
//!   "widgets": ["cas-playground", "failover-simulator", "uptime-estimator"]
//! }
//! ```
//!
//! Fenced code in any HTML carries `class="language-LANG"` (e.g.
//! `<pre><code class="language-js">`). Reference solutions are never in the
//! document, since learners can read it.

pub mod diagnostic;
pub mod diagram;
pub mod directive;
pub mod exercise;
pub mod files;
pub mod lesson;
pub mod manifest;
pub mod markdown;
pub mod markdown_lines;
pub mod quiz;
pub mod readme;
pub mod render;
pub mod report;
pub mod rules_section;
pub mod section;
pub mod toml_reader;

pub use diagnostic::Diagnostic;
pub use lesson::{check_lesson, Checked, Lesson, KNOWN_WIDGETS};
pub use render::{render_lesson, to_json, RenderedLesson};
pub use report::Report;
