//! Reads one quiz file: the top-level table, then each question by its type.

use std::collections::BTreeMap;

use toml::de::DeValue;

use super::model::{Question, QuestionCommon, Quiz};
use super::{multiple_choice, short_answer, tracing};
use crate::diagnostic::{suggestion_or_list, Diagnostics, Location, SourceFile};
use crate::toml_reader::{parse_document, SpannedText, TableView};

/// Whether every answer must come with an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// mdbook-quiz's own rules: explanations may be absent.
    MdbookQuiz,
    /// Our lessons: every multiple-choice option has an `explain` entry and
    /// every other question has a `context`.
    RequireExplanations,
}

/// A quiz as read from its file, with where each question id was written so
/// the lesson can report ids that repeat across quiz files.
#[derive(Debug, Clone)]
pub struct LoadedQuiz {
    /// The quiz.
    pub quiz: Quiz,
    /// Each question id and where it is written.
    pub id_locations: Vec<(String, Location)>,
}

/// The fewest questions a quiz may have: one question is a prompt, not a quiz,
/// and the lesson page shows a "1 / N" counter.
pub const QUESTIONS_MIN: usize = 2;

const QUIZ_KEYS: &[&str] = &["questions", "multipart", "title"];
const QUESTION_KEYS: &[&str] =
    &["type", "id", "multipart", "prompt", "answer", "context", "promptExplanation", "explain"];
const QUESTION_TYPES: &[&str] = &["MultipleChoice", "ShortAnswer", "Tracing"];

/// Reads and checks one quiz file. Returns the quiz whenever the file is valid
/// TOML (even if some checks failed), so the remaining checks can go on.
pub fn read_quiz(file: &SourceFile, strictness: Strictness, diagnostics: &mut Diagnostics) -> Option<LoadedQuiz> {
    let document = parse_document(file, diagnostics)?;
    let root = TableView::root(file, document.get_ref(), "the quiz");
    root.check_keys(QUIZ_KEYS, diagnostics);
    let title = root.string("title", false, diagnostics).map(|title| title.text);
    let multipart = read_multipart(&root, diagnostics);

    let mut loaded = LoadedQuiz { quiz: Quiz { title, questions: Vec::new(), multipart }, id_locations: Vec::new() };
    let Some(questions) = root.get("questions") else {
        diagnostics.error(
            "missing-field",
            file.location(0),
            "the quiz has no questions",
            "add at least two `[[questions]]` tables, each with `type`, `prompt` and `answer`",
        );
        return Some(loaded);
    };
    let DeValue::Array(items) = questions.get_ref() else {
        diagnostics.error(
            "wrong-type",
            file.location_of(&questions.span()),
            "`questions` must be an array of tables",
            "write each question as a `[[questions]]` table",
        );
        return Some(loaded);
    };
    if items.len() < QUESTIONS_MIN {
        diagnostics.error(
            "too-few-questions",
            file.location_of(&questions.span()),
            format!("the quiz has {} question(s), fewer than {QUESTIONS_MIN}", items.len()),
            "add another `[[questions]]` table, or merge this quiz into a neighbouring one",
        );
    }
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
        let mut view = TableView {
            file,
            table,
            span: item.span(),
            key_prefix: String::new(),
            owner: format!("question {number}"),
        };
        let id = read_id(&view, diagnostics);
        if let Some(id) = &id {
            view.owner = format!("question {number} (`{}`)", id.text);
            loaded.id_locations.push((id.text.clone(), file.location_of(&id.span)));
        }
        let multipart_keys = loaded.quiz.multipart.as_ref();
        if let Some(question) = read_question(&view, id, strictness, multipart_keys, diagnostics) {
            loaded.quiz.questions.push(question);
        }
    }
    Some(loaded)
}

fn read_multipart(root: &TableView<'_, '_>, diagnostics: &mut Diagnostics) -> Option<BTreeMap<String, String>> {
    let table = root.table("multipart", "part-name", false, diagnostics)?;
    let mut contexts = BTreeMap::new();
    for (key, _) in table.table.iter() {
        let name: &str = key.get_ref();
        if let Some(text) = table.string(name, true, diagnostics) {
            contexts.insert(name.to_string(), text.text);
        }
    }
    Some(contexts)
}

fn read_id(view: &TableView<'_, '_>, diagnostics: &mut Diagnostics) -> Option<SpannedText> {
    let id = view.string("id", false, diagnostics)?;
    if id.text.trim().is_empty() {
        diagnostics.error(
            "empty-text",
            view.file.location_of(&id.span),
            format!("{} has an empty `id`", view.owner),
            "give it a short, unique name such as `id = \"why-lock-ttl\"`, or remove the line",
        );
        return None;
    }
    Some(id)
}

fn read_question(
    view: &TableView<'_, '_>,
    id: Option<SpannedText>,
    strictness: Strictness,
    multipart: Option<&BTreeMap<String, String>>,
    diagnostics: &mut Diagnostics,
) -> Option<Question> {
    view.check_keys(QUESTION_KEYS, diagnostics);
    let common = QuestionCommon {
        id: id.map(|id| id.text),
        multipart: read_multipart_key(view, multipart, diagnostics),
        context: view.string("context", false, diagnostics).map(|context| context.text),
        prompt_explanation: view.boolean("promptExplanation", false, diagnostics),
    };
    let question_type = view.string("type", true, diagnostics)?;
    let question = match question_type.text.as_str() {
        "MultipleChoice" => Question::MultipleChoice(multiple_choice::read(view, common, strictness, diagnostics)?),
        "ShortAnswer" => {
            reject_explain(view, diagnostics);
            require_context(view, &common, strictness, diagnostics);
            Question::ShortAnswer(short_answer::read(view, common, diagnostics)?)
        }
        "Tracing" => {
            reject_explain(view, diagnostics);
            require_context(view, &common, strictness, diagnostics);
            Question::Tracing(tracing::read(view, common, diagnostics)?)
        }
        other => {
            diagnostics.error(
                "unknown-question-type",
                view.file.location_of(&question_type.span),
                format!("{} has the unknown type \"{other}\"", view.owner),
                suggestion_or_list(other, QUESTION_TYPES, "\""),
            );
            return None;
        }
    };
    Some(question)
}

fn read_multipart_key(
    view: &TableView<'_, '_>,
    multipart: Option<&BTreeMap<String, String>>,
    diagnostics: &mut Diagnostics,
) -> Option<String> {
    let key = view.string("multipart", false, diagnostics)?;
    let known = multipart.is_some_and(|contexts| contexts.contains_key(&key.text));
    if !known {
        diagnostics.error(
            "unknown-multipart",
            view.file.location_of(&key.span),
            format!("{} refers to the multipart context `{}`, which the quiz does not define", view.owner, key.text),
            format!("define it at the top of the file: `multipart.{} = \"...\"`", key.text),
        );
    }
    Some(key.text)
}

/// Our `explain` table only makes sense next to options; other types use `context`.
fn reject_explain(view: &TableView<'_, '_>, diagnostics: &mut Diagnostics) {
    if let Some(value) = view.get("explain") {
        diagnostics.error(
            "unknown-field",
            view.file.location_of(&value.span()),
            format!("{} has `explain`, which only multiple-choice questions have", view.owner),
            "explain the answer in `context = \"...\"` instead",
        );
    }
}

fn require_context(
    view: &TableView<'_, '_>,
    common: &QuestionCommon,
    strictness: Strictness,
    diagnostics: &mut Diagnostics,
) {
    let has_context = common.context.as_deref().is_some_and(|context| !context.trim().is_empty());
    if strictness == Strictness::RequireExplanations && !has_context {
        diagnostics.error(
            "missing-explanation",
            view.file.location_of(&view.span),
            format!("{} has no `context` explaining its answer", view.owner),
            "add `context = \"...\"` saying why the answer is right (lesson.toml sets require_explanations = true)",
        );
    }
}

/// Reports a blank prompt, which would render as a question with no question.
pub(super) fn check_prompt(view: &TableView<'_, '_>, field: &str, text: &SpannedText, diagnostics: &mut Diagnostics) {
    if text.text.trim().is_empty() {
        let fix = if field == "prompt.program" {
            "write the program the learner should trace"
        } else {
            "write the question the learner should answer"
        };
        diagnostics.error(
            "empty-prompt",
            view.file.location_of(&text.span),
            format!("`{field}` in {} is empty", view.owner),
            fix,
        );
    }
}

/// Reports a blank option or explanation, which would render as an empty button or note.
pub(super) fn check_not_blank(
    view: &TableView<'_, '_>,
    field: &str,
    text: &SpannedText,
    diagnostics: &mut Diagnostics,
) {
    if text.text.trim().is_empty() {
        diagnostics.error(
            "empty-text",
            view.file.location_of(&text.span),
            format!("an entry of `{field}` in {} is empty", view.owner),
            "write the text, or remove the entry",
        );
    }
}
