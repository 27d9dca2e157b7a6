//! Reads and checks a `Tracing` question (mdbook-quiz's "what does this program do?").

use super::model::{QuestionCommon, Tracing, TracingAnswer, TracingPrompt};
use super::reader::check_prompt;
use crate::diagnostic::Diagnostics;
use crate::toml_reader::TableView;

const PROMPT_KEYS: &[&str] = &["program"];
const ANSWER_KEYS: &[&str] = &["doesCompile", "stdout", "lineNumber"];

pub(super) fn read(view: &TableView<'_, '_>, common: QuestionCommon, diagnostics: &mut Diagnostics) -> Option<Tracing> {
    let prompt_table = view.table("prompt", "program", true, diagnostics);
    let answer_table = view.table("answer", "doesCompile", true, diagnostics);
    if let Some(table) = &prompt_table {
        table.check_keys(PROMPT_KEYS, diagnostics);
    }
    if let Some(table) = &answer_table {
        table.check_keys(ANSWER_KEYS, diagnostics);
    }
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);

    let program = prompt_table.string("program", true, diagnostics);
    if let Some(program) = &program {
        check_prompt(view, "prompt.program", program, diagnostics);
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
