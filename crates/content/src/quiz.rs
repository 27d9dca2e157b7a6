//! Quiz files: mdbook-quiz's TOML format, plus per-option explanations.
//!
//! A quiz file is read exactly as mdbook-quiz documents it (the fields of
//! `mdbook-quiz-schema`: `questions`, `multipart`; per question `type`,
//! `id`, `multipart`, `prompt`, `answer`, `context`, `promptExplanation`;
//! the `MultipleChoice`, `ShortAnswer` and `Tracing` types), so a quiz
//! written for mdbook-quiz loads unchanged. Our one extension is an
//! `explain` table on a multiple-choice question, kept apart from the
//! mdbook-quiz fields so mdbook-quiz itself ignores it:
//!
//! ```toml
//! explain.answer = "why the answer is right"          # or an array, one per answer
//! explain.distractors = ["why A is wrong", "why B is wrong"]
//! ```
//!
//! Explanations are optional for the format and required by a lesson whose
//! manifest says `require_explanations = true` (see [`Strictness`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use toml::de::DeValue;

use crate::diagnostic::{Diagnostics, SourceFile};
use crate::toml_reader::{parse_document, OneOrMany, SpannedText, TableView};

/// Whether every option must carry an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// mdbook-quiz's own rules: explanations may be absent.
    MdbookQuiz,
    /// Our lessons: every multiple-choice option has an `explain` entry and
    /// every other question has a `context`.
    RequireExplanations,
}

/// A whole quiz file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Quiz {
    /// Our extension: a heading for the quiz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The questions, in file order.
    pub questions: Vec<Question>,
    /// mdbook-quiz's shared context for multipart questions, by key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipart: Option<BTreeMap<String, String>>,
}

/// One question; serialized with mdbook-quiz's field names and `type` tag.
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

/// Fields every question type has.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct QuestionCommon {
    /// Stable identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Key into the quiz's `multipart` map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipart: Option<String>,
    /// Markdown shown after answering.
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
    /// `answer = "..."`.
    One(String),
    /// `answer = ["...", ...]`.
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

impl Question {
    /// The fields every question has.
    pub fn common(&self) -> &QuestionCommon {
        match self {
            Question::MultipleChoice(question) => &question.common,
            Question::ShortAnswer(question) => &question.common,
            Question::Tracing(question) => &question.common,
        }
    }

    /// The prompt text (for Tracing, the program).
    pub fn prompt_text(&self) -> &str {
        match self {
            Question::MultipleChoice(question) => &question.prompt.prompt,
            Question::ShortAnswer(question) => &question.prompt.prompt,
            Question::Tracing(question) => &question.prompt.program,
        }
    }
}

const QUIZ_KEYS: &[&str] = &["questions", "multipart", "title"];
const QUESTION_KEYS: &[&str] =
    &["type", "id", "multipart", "prompt", "answer", "context", "promptExplanation", "explain"];
const QUESTION_TYPES: &[&str] = &["MultipleChoice", "ShortAnswer", "Tracing"];

/// Reads and checks one quiz file. Returns the quiz when it could be read at
/// all (even if some checks failed), so later checks and the build can go on.
pub fn load_quiz(file: &SourceFile, strictness: Strictness, diagnostics: &mut Diagnostics) -> Option<Quiz> {
    let document = parse_document(file, diagnostics)?;
    let root = TableView {
        file,
        table: document.get_ref(),
        span: 0..0,
        key_prefix: String::new(),
        owner: "the quiz".to_string(),
    };
    root.check_keys(QUIZ_KEYS, diagnostics, " (our extension adds `title`)");
    let title = root.string("title", false, diagnostics).map(|title| title.text);
    let multipart = read_multipart(&root, diagnostics);

    let mut questions = Vec::new();
    match root.get("questions").map(|value| (value.get_ref(), value.span())) {
        None => diagnostics.error(
            "missing-field",
            file.location(0),
            "the quiz has no questions",
            "add at least one question: a `[[questions]]` table with `type`, `prompt` and `answer`",
        ),
        Some((DeValue::Array(items), _)) => {
            let mut seen_ids: BTreeMap<String, usize> = BTreeMap::new();
            for (index, item) in items.iter().enumerate() {
                let number = index + 1;
                let DeValue::Table(table) = item.get_ref() else {
                    diagnostics.error(
                        "wrong-type",
                        file.location_of(&item.span()),
                        format!("question {number} is not a table"),
                        "write each question as a `[[questions]]` table",
                    );
                    continue;
                };
                let view = TableView {
                    file,
                    table,
                    span: item.span(),
                    key_prefix: String::new(),
                    owner: format!("question {number}"),
                };
                if let Some(question) = read_question(&view, strictness, multipart.as_ref(), diagnostics) {
                    if let Some(id) = &question.common().id {
                        if let Some(first) = seen_ids.get(id) {
                            let id_span = view.get("id").map_or(view.span.clone(), |value| value.span());
                            diagnostics.error(
                                "duplicate-id",
                                file.location_of(&id_span),
                                format!("question {number} has the id `{id}`, which question {first} already uses"),
                                "give every question in the quiz its own `id`",
                            );
                        } else {
                            seen_ids.insert(id.clone(), number);
                        }
                    }
                    questions.push(question);
                }
            }
            if items.is_empty() {
                diagnostics.error(
                    "missing-field",
                    file.location(0),
                    "the quiz has no questions",
                    "add at least one `[[questions]]` table",
                );
            }
        }
        Some((_, span)) => diagnostics.error(
            "wrong-type",
            file.location_of(&span),
            "`questions` must be an array of tables",
            "write each question as a `[[questions]]` table",
        ),
    }
    Some(Quiz { title, questions, multipart })
}

fn read_multipart(root: &TableView<'_, '_>, diagnostics: &mut Diagnostics) -> Option<BTreeMap<String, String>> {
    let table = root.table("multipart", false, diagnostics)?;
    let mut contexts = BTreeMap::new();
    for (key, _) in table.table.iter() {
        let name: &str = key.get_ref();
        if let Some(text) = table.string(name, true, diagnostics) {
            contexts.insert(name.to_string(), text.text);
        }
    }
    Some(contexts)
}

fn read_question(
    view: &TableView<'_, '_>,
    strictness: Strictness,
    multipart: Option<&BTreeMap<String, String>>,
    diagnostics: &mut Diagnostics,
) -> Option<Question> {
    view.check_keys(QUESTION_KEYS, diagnostics, "");
    let common = QuestionCommon {
        id: view.string("id", false, diagnostics).map(|id| id.text),
        multipart: view.string("multipart", false, diagnostics).map(|key| {
            let known = multipart.is_some_and(|contexts| contexts.contains_key(&key.text));
            if !known {
                diagnostics.error(
                    "unknown-multipart",
                    view.file.location_of(&key.span),
                    format!("{} refers to the multipart context `{}`, which the quiz does not define", view.owner, key.text),
                    format!("add it at the top of the file: [multipart]\n        {} = \"...\"", key.text),
                );
            }
            key.text
        }),
        context: view.string("context", false, diagnostics).map(|context| context.text),
        prompt_explanation: view.boolean("promptExplanation", false, diagnostics),
    };

    let question_type = view.string("type", true, diagnostics)?;
    let needs_context = strictness == Strictness::RequireExplanations && common.context.is_none();
    let question = match question_type.text.as_str() {
        "MultipleChoice" => Question::MultipleChoice(read_multiple_choice(view, common, strictness, diagnostics)?),
        "ShortAnswer" => {
            reject_explain(view, diagnostics);
            Question::ShortAnswer(read_short_answer(view, common, diagnostics)?)
        }
        "Tracing" => {
            reject_explain(view, diagnostics);
            Question::Tracing(read_tracing(view, common, diagnostics)?)
        }
        other => {
            let help = match crate::diagnostic::closest_name(other, QUESTION_TYPES) {
                Some(suggestion) => format!("did you mean \"{suggestion}\"? The types are \"MultipleChoice\", \"ShortAnswer\" and \"Tracing\""),
                None => "use one of \"MultipleChoice\", \"ShortAnswer\" or \"Tracing\"".to_string(),
            };
            diagnostics.error(
                "unknown-question-type",
                view.file.location_of(&question_type.span),
                format!("{} has the unknown type \"{other}\"", view.owner),
                help,
            );
            return None;
        }
    };
    if needs_context && !matches!(question, Question::MultipleChoice(_)) {
        diagnostics.error(
            "missing-explanation",
            view.file.location_of(&view.span),
            format!("{} has no `context` explaining its answer", view.owner),
            "add context = \"...\" saying why the answer is right; this lesson requires explanations",
        );
    }
    Some(question)
}

fn reject_explain(view: &TableView<'_, '_>, diagnostics: &mut Diagnostics) {
    if let Some(value) = view.get("explain") {
        diagnostics.error(
            "unknown-field",
            view.file.location_of(&value.span()),
            format!("`explain` belongs to multiple-choice questions, but {} is not one", view.owner),
            "explain the answer of this question in `context` instead",
        );
    }
}

/// Reports empty Markdown texts, which would render as blank options or prompts.
fn check_not_blank(view: &TableView<'_, '_>, field: &str, text: &SpannedText, diagnostics: &mut Diagnostics) {
    if text.text.trim().is_empty() {
        diagnostics.error(
            "empty-text",
            view.file.location_of(&text.span),
            format!("`{field}` in {} is empty", view.owner),
            "write the text, or remove the entry",
        );
    }
}

fn read_multiple_choice(
    view: &TableView<'_, '_>,
    common: QuestionCommon,
    strictness: Strictness,
    diagnostics: &mut Diagnostics,
) -> Option<MultipleChoice> {
    let prompt_table = view.table("prompt", true, diagnostics);
    let answer_table = view.table("answer", true, diagnostics);
    let explain_table = view.table("explain", false, diagnostics);
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);
    prompt_table.check_keys(&["prompt", "distractors", "answerIndex", "sortAnswers"], diagnostics, "");
    answer_table.check_keys(&["answer"], diagnostics, "");

    let prompt = prompt_table.string("prompt", true, diagnostics);
    let distractors = prompt_table.string_array("distractors", true, diagnostics);
    let answer_index = prompt_table.count("answerIndex", diagnostics);
    let sort_answers = prompt_table.boolean("sortAnswers", false, diagnostics);
    let answer = answer_table.one_or_many("answer", true, diagnostics);
    if let Some(prompt) = &prompt {
        check_not_blank(view, "prompt.prompt", prompt, diagnostics);
    }
    let (prompt, distractors, answer) = (prompt?, distractors?, answer?);
    for distractor in &distractors {
        check_not_blank(view, "prompt.distractors", distractor, diagnostics);
    }

    let answers: Vec<SpannedText> = match &answer {
        OneOrMany::One(text) => vec![text.clone()],
        OneOrMany::Many(texts, span) => {
            if texts.is_empty() {
                diagnostics.error(
                    "no-correct-answer",
                    view.file.location_of(span),
                    format!("{} has no correct answer: `answer.answer` is an empty list", view.owner),
                    "list at least one correct option in answer.answer",
                );
            }
            texts.clone()
        }
    };
    for text in &answers {
        check_not_blank(view, "answer.answer", text, diagnostics);
    }

    if let Some((index, span)) = &answer_index {
        if answers.len() > 1 {
            diagnostics.error(
                "several-correct-answers",
                view.file.location_of(span),
                format!(
                    "{} is single-answer (`prompt.answerIndex` places one answer) but `answer.answer` lists {} answers",
                    view.owner,
                    answers.len()
                ),
                "keep one answer in answer.answer, or remove prompt.answerIndex to make it a select-all question",
            );
        } else if *index > distractors.len() {
            diagnostics.error(
                "answer-index-out-of-range",
                view.file.location_of(span),
                format!(
                    "`prompt.answerIndex` is {index}, but {} has only {} options (indices 0 to {})",
                    view.owner,
                    distractors.len() + 1,
                    distractors.len()
                ),
                "use an index from 0 up to the number of distractors",
            );
        }
    }

    // An option listed twice would show up twice, and if it is both a distractor
    // and an answer, a learner cannot tell whether to pick it.
    let mut seen = BTreeSet::new();
    for option in answers.iter().chain(distractors.iter()) {
        if !seen.insert(option.text.trim().to_string()) {
            diagnostics.error(
                "duplicate-option",
                view.file.location_of(&option.span),
                format!("{} lists the option \"{}\" twice", view.owner, option.text.trim()),
                "every option must be different; remove or reword one of them",
            );
        }
    }

    let explain = match explain_table {
        Some(table) => read_explanations(view, &table, answers.len(), distractors.len(), diagnostics),
        None => {
            if strictness == Strictness::RequireExplanations {
                diagnostics.error(
                    "missing-explanation",
                    view.file.location_of(&view.span),
                    format!("{} has no `explain` table; this lesson requires an explanation for every option", view.owner),
                    "add explain.answer = \"why it is right\" and explain.distractors = [\"why the first is wrong\", ...], one per distractor",
                );
            }
            None
        }
    };

    Some(MultipleChoice {
        common,
        prompt: MultipleChoicePrompt {
            prompt: prompt.text,
            distractors: distractors.into_iter().map(|text| text.text).collect(),
            answer_index: answer_index.map(|(index, _)| index),
            sort_answers,
        },
        answer: MultipleChoiceAnswer {
            answer: match answer {
                OneOrMany::One(text) => AnswerText::One(text.text),
                OneOrMany::Many(texts, _) => AnswerText::Many(texts.into_iter().map(|text| text.text).collect()),
            },
        },
        explain,
    })
}

fn read_explanations(
    view: &TableView<'_, '_>,
    table: &TableView<'_, '_>,
    answer_count: usize,
    distractor_count: usize,
    diagnostics: &mut Diagnostics,
) -> Option<Explanations> {
    table.check_keys(&["answer", "distractors"], diagnostics, " (one explanation per option)");
    let for_answers = table.one_or_many("answer", true, diagnostics);
    let for_distractors = table.string_array("distractors", true, diagnostics);
    let (for_answers, for_distractors) = (for_answers?, for_distractors?);

    let (answer_texts, answer_span) = match &for_answers {
        OneOrMany::One(text) => (vec![text.clone()], text.span.clone()),
        OneOrMany::Many(texts, span) => (texts.clone(), span.clone()),
    };
    if answer_texts.len() != answer_count {
        diagnostics.error(
            "missing-explanation",
            view.file.location_of(&answer_span),
            format!(
                "{} has {answer_count} correct answer(s) but {} explanation(s) in `explain.answer`",
                view.owner,
                answer_texts.len()
            ),
            "give exactly one explanation per correct answer, in the same order as answer.answer",
        );
    }
    let distractors_span = table.get("distractors").map_or(table.span.clone(), |value| value.span());
    if for_distractors.len() != distractor_count {
        diagnostics.error(
            "missing-explanation",
            view.file.location_of(&distractors_span),
            format!(
                "{} has {distractor_count} distractor(s) but {} explanation(s) in `explain.distractors`",
                view.owner,
                for_distractors.len()
            ),
            "give exactly one explanation per distractor, in the same order as prompt.distractors",
        );
    }
    for text in answer_texts.iter().chain(for_distractors.iter()) {
        check_not_blank(view, "explain", text, diagnostics);
    }
    Some(Explanations {
        answer: match for_answers {
            OneOrMany::One(text) => AnswerText::One(text.text),
            OneOrMany::Many(texts, _) => AnswerText::Many(texts.into_iter().map(|text| text.text).collect()),
        },
        distractors: for_distractors.into_iter().map(|text| text.text).collect(),
    })
}

fn read_short_answer(
    view: &TableView<'_, '_>,
    common: QuestionCommon,
    diagnostics: &mut Diagnostics,
) -> Option<ShortAnswer> {
    let prompt_table = view.table("prompt", true, diagnostics);
    let answer_table = view.table("answer", true, diagnostics);
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);
    prompt_table.check_keys(&["prompt", "response"], diagnostics, "");
    answer_table.check_keys(&["answer", "alternatives"], diagnostics, "");
    let prompt = prompt_table.string("prompt", true, diagnostics);
    let response = prompt_table.string("response", false, diagnostics);
    if let Some(response) = &response {
        if !["short", "long", "code"].contains(&response.text.as_str()) {
            diagnostics.error(
                "wrong-type",
                view.file.location_of(&response.span),
                format!("`prompt.response` in {} is \"{}\"", view.owner, response.text),
                "use \"short\", \"long\" or \"code\"",
            );
        }
    }
    let answer = answer_table.string("answer", true, diagnostics);
    let alternatives = answer_table.string_array("alternatives", false, diagnostics);
    if let Some(prompt) = &prompt {
        check_not_blank(view, "prompt.prompt", prompt, diagnostics);
    }
    if let Some(answer) = &answer {
        check_not_blank(view, "answer.answer", answer, diagnostics);
    }
    Some(ShortAnswer {
        common,
        prompt: ShortAnswerPrompt { prompt: prompt?.text, response: response.map(|response| response.text) },
        answer: ShortAnswerAnswer {
            answer: answer?.text,
            alternatives: alternatives.map(|items| items.into_iter().map(|item| item.text).collect()),
        },
    })
}

fn read_tracing(view: &TableView<'_, '_>, common: QuestionCommon, diagnostics: &mut Diagnostics) -> Option<Tracing> {
    let prompt_table = view.table("prompt", true, diagnostics);
    let answer_table = view.table("answer", true, diagnostics);
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);
    prompt_table.check_keys(&["program"], diagnostics, "");
    answer_table.check_keys(&["doesCompile", "stdout", "lineNumber"], diagnostics, "");
    let program = prompt_table.string("program", true, diagnostics);
    if let Some(program) = &program {
        check_not_blank(view, "prompt.program", program, diagnostics);
    }
    let does_compile = answer_table.boolean("doesCompile", true, diagnostics);
    let stdout = answer_table.string("stdout", false, diagnostics);
    let line_number = answer_table.count("lineNumber", diagnostics);
    Some(Tracing {
        common,
        prompt: TracingPrompt { program: program?.text },
        answer: TracingAnswer {
            does_compile: does_compile?,
            stdout: stdout.map(|stdout| stdout.text),
            line_number: line_number.map(|(number, _)| number),
        },
    })
}
