//! Quiz files: mdbook-quiz's TOML format, plus per-option explanations.
//!
//! A quiz file is read exactly as mdbook-quiz documents it (the fields of
//! `mdbook-quiz-schema`: `questions`, `multipart`; per question `type`,
//! `id`, `multipart`, `prompt`, `answer`, `context`, `promptExplanation`;
//! the `MultipleChoice`, `ShortAnswer` and `Tracing` types), so a quiz
//! written for mdbook-quiz loads unchanged. Our extensions are a top-level
//! `title` and an `explain` table on a multiple-choice question, kept apart
//! from mdbook-quiz's fields so mdbook-quiz itself would ignore them:
//!
//! ```toml
//! explain.answer = "why the answer is right"          # or an array, one per answer
//! explain.distractors = ["why A is wrong", "why B is wrong"]
//! ```
//!
//! Explanations are optional for the format and required by a lesson whose
//! manifest says `require_explanations = true` (see [`Strictness`]).

mod model;
mod multiple_choice;
mod reader;
mod short_answer;
mod tracing;

pub use model::*;
pub use reader::{read_quiz, LoadedQuiz, Strictness, QUESTIONS_MIN};
