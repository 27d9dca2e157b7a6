//! The typed model of a quiz file, with mdbook-quiz's field names.
//!
//! Serializing a [`Quiz`] gives back mdbook-quiz's own JSON shape (camelCase
//! keys, a `type` tag per question), plus our `explain` and `title`
//! extensions, so a quiz brought from mdbook-quiz round-trips unchanged.

use std::collections::BTreeMap;

use serde::Serialize;

/// A whole quiz file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Quiz {
    /// Our extension: a heading for the quiz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The questions, in file order.
    pub questions: Vec<Question>,
    /// mdbook-quiz's shared context (Markdown) for multipart questions, by key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipart: Option<BTreeMap<String, String>>,
}

/// One question, tagged with its mdbook-quiz `type`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "type")]
pub enum Question {
    /// Choose among options.
    MultipleChoice(MultipleChoice),
    /// Type an answer.
    ShortAnswer(ShortAnswer),
    /// Predict a program's behaviour (mdbook-quiz's Rust-oriented type).
    Tracing(Tracing),
}

impl Question {
    /// The fields every question has.
    pub fn common(&self) -> &QuestionCommon {
        match self {
            Question::MultipleChoice(question) => &question.common,
            Question::ShortAnswer(question) => &question.common,
            Question::Tracing(question) => &question.common,
        }
    }
}

/// Fields every question type has.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct QuestionCommon {
    /// Stable identifier, unique across the lesson.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Key into the quiz's `multipart` map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipart: Option<String>,
    /// Markdown shown after answering, explaining the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Ask the learner to justify their answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_explanation: Option<bool>,
}

/// A multiple-choice question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MultipleChoice {
    /// Shared fields.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// The prompt table.
    pub prompt: MultipleChoicePrompt,
    /// The answer table.
    pub answer: MultipleChoiceAnswer,
    /// Our extension: one explanation per option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explanations>,
}

/// `prompt` of a multiple-choice question.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MultipleChoicePrompt {
    /// The question text (Markdown).
    pub prompt: String,
    /// The wrong options (Markdown).
    pub distractors: Vec<String>,
    /// Place the (single) answer at this index instead of shuffling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_index: Option<usize>,
    /// Sort options by text instead of shuffling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort_answers: Option<bool>,
}

/// `answer` of a multiple-choice question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MultipleChoiceAnswer {
    /// The right option(s), written as in the file.
    pub answer: AnswerText,
}

/// A string or a list of strings, serialized back the way it was written.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
pub enum AnswerText {
    /// `answer = "..."`: one correct option.
    One(String),
    /// `answer = ["...", ...]`: select all that apply.
    Many(Vec<String>),
}

impl AnswerText {
    /// The texts as a list, whichever way they were written.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            AnswerText::One(text) => vec![text.as_str()],
            AnswerText::Many(texts) => texts.iter().map(String::as_str).collect(),
        }
    }

    /// True for the list form, which mdbook-quiz shows as "select all that apply".
    pub fn is_list(&self) -> bool {
        matches!(self, AnswerText::Many(_))
    }
}

/// Our `explain` table: explanations parallel to the answers and the distractors.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Explanations {
    /// One per correct answer, in the same order.
    pub answer: AnswerText,
    /// One per distractor, in the same order.
    pub distractors: Vec<String>,
}

/// A short-answer question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ShortAnswer {
    /// Shared fields.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// The prompt table.
    pub prompt: ShortAnswerPrompt,
    /// The answer table.
    pub answer: ShortAnswerAnswer,
}

/// `prompt` of a short-answer question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ShortAnswerPrompt {
    /// The question text (Markdown).
    pub prompt: String,
    /// `short`, `long` or `code`: the kind of input box.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
}

/// `answer` of a short-answer question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ShortAnswerAnswer {
    /// The expected answer.
    pub answer: String,
    /// Other accepted answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<Vec<String>>,
}

/// A tracing question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Tracing {
    /// Shared fields.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// The prompt table.
    pub prompt: TracingPrompt,
    /// The answer table.
    pub answer: TracingAnswer,
}

/// `prompt` of a tracing question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TracingPrompt {
    /// The program to trace.
    pub program: String,
}

/// `answer` of a tracing question.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TracingAnswer {
    /// Whether the program compiles.
    pub does_compile: bool,
    /// Its output, if it compiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// The line of the error, if it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_number: Option<usize>,
}
