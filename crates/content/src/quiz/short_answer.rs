//! Reads and checks a `ShortAnswer` question.

use super::model::{QuestionCommon, ShortAnswer, ShortAnswerAnswer, ShortAnswerPrompt};
use super::reader::{check_not_blank, check_prompt};
use crate::diagnostic::Diagnostics;
use crate::toml_reader::TableView;

const PROMPT_KEYS: &[&str] = &["prompt", "response"];
const ANSWER_KEYS: &[&str] = &["answer", "alternatives"];
/// mdbook-quiz's input kinds: a line, a text area, a code editor.
const RESPONSE_KINDS: &[&str] = &["short", "long", "code"];

pub(super) fn read(
    view: &TableView<'_, '_>,
    common: QuestionCommon,
    diagnostics: &mut Diagnostics,
) -> Option<ShortAnswer> {
    let prompt_table = view.table("prompt", "prompt", true, diagnostics);
    let answer_table = view.table("answer", "answer", true, diagnostics);
    if let Some(table) = &prompt_table {
        table.check_keys(PROMPT_KEYS, diagnostics);
    }
    if let Some(table) = &answer_table {
        table.check_keys(ANSWER_KEYS, diagnostics);
    }
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);

    let prompt = prompt_table.string("prompt", true, diagnostics);
    if let Some(prompt) = &prompt {
        check_prompt(view, "prompt.prompt", prompt, diagnostics);
    }
    let response = prompt_table.string("response", false, diagnostics);
    if let Some(response) = &response {
        if !RESPONSE_KINDS.contains(&response.text.as_str()) {
            diagnostics.error(
                "invalid-value",
                view.file.location_of(&response.span),
                format!("`prompt.response` in {} is \"{}\"", view.owner, response.text),
                "use \"short\", \"long\" or \"code\"",
            );
        }
    }
    let answer = answer_table.string("answer", true, diagnostics);
    if let Some(answer) = &answer {
        if answer.text.trim().is_empty() {
            diagnostics.error(
                "no-correct-answer",
                view.file.location_of(&answer.span),
                format!("{} has no correct answer: `answer.answer` is empty", view.owner),
                "write the expected answer in `answer.answer`",
            );
        }
    }
    let alternatives = answer_table.string_array("alternatives", false, diagnostics);
    for alternative in alternatives.iter().flatten() {
        check_not_blank(view, "answer.alternatives", alternative, diagnostics);
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
