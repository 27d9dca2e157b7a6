//! Reads and checks a `MultipleChoice` question and its `explain` extension.

use std::collections::BTreeSet;

use super::model::{
    AnswerText, Explanations, MultipleChoice, MultipleChoiceAnswer, MultipleChoicePrompt, QuestionCommon,
};
use super::reader::{check_not_blank, check_prompt, Strictness};
use crate::diagnostic::Diagnostics;
use crate::toml_reader::{OneOrMany, SpannedText, TableView};

const PROMPT_KEYS: &[&str] = &["prompt", "distractors", "answerIndex", "sortAnswers"];
const ANSWER_KEYS: &[&str] = &["answer"];
const EXPLAIN_KEYS: &[&str] = &["answer", "distractors"];

pub(super) fn read(
    view: &TableView<'_, '_>,
    common: QuestionCommon,
    strictness: Strictness,
    diagnostics: &mut Diagnostics,
) -> Option<MultipleChoice> {
    let prompt_table = view.table("prompt", "prompt", true, diagnostics);
    let answer_table = view.table("answer", "answer", true, diagnostics);
    let explain_table = view.table("explain", "answer", false, diagnostics);
    if let Some(table) = &prompt_table {
        table.check_keys(PROMPT_KEYS, diagnostics);
    }
    if let Some(table) = &answer_table {
        table.check_keys(ANSWER_KEYS, diagnostics);
    }
    if let Some(table) = &explain_table {
        table.check_keys(EXPLAIN_KEYS, diagnostics);
    }
    let (prompt_table, answer_table) = (prompt_table?, answer_table?);

    let prompt = prompt_table.string("prompt", true, diagnostics);
    let distractors = prompt_table.string_array("distractors", true, diagnostics);
    let answer_index = prompt_table.count("answerIndex", diagnostics);
    let sort_answers = prompt_table.boolean("sortAnswers", false, diagnostics);
    let answer = answer_table.one_or_many("answer", true, diagnostics);
    if let Some(prompt) = &prompt {
        check_prompt(view, "prompt.prompt", prompt, diagnostics);
    }
    let (prompt, distractors, answer) = (prompt?, distractors?, answer?);
    let answers = answer.items();

    check_answers(view, &answer, diagnostics);
    for distractor in &distractors {
        check_not_blank(view, "prompt.distractors", distractor, diagnostics);
    }
    if let Some((index, span)) = &answer_index {
        check_answer_index(view, *index, span, answers.len(), distractors.len(), diagnostics);
    }
    check_options_distinct(view, &answers, &distractors, diagnostics);

    let explain = match explain_table {
        Some(table) => read_explanations(view, &table, answers.len(), distractors.len(), diagnostics),
        None => {
            if strictness == Strictness::RequireExplanations {
                diagnostics.error(
                    "missing-explanation",
                    view.file.location_of(&view.span),
                    format!("{} has no `explain` table", view.owner),
                    "add `explain.answer = \"why it is right\"` and `explain.distractors = [\"why the first is wrong\", ...]`, one per distractor (lesson.toml sets require_explanations = true)",
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
        answer: MultipleChoiceAnswer { answer: answer_text(answer) },
        explain,
    })
}

fn answer_text(value: OneOrMany) -> AnswerText {
    match value {
        OneOrMany::One(text) => AnswerText::One(text.text),
        OneOrMany::Many(texts, _) => AnswerText::Many(texts.into_iter().map(|text| text.text).collect()),
    }
}

/// A question needs at least one correct option, and no blank ones.
fn check_answers(view: &TableView<'_, '_>, answer: &OneOrMany, diagnostics: &mut Diagnostics) {
    let no_answer = match answer {
        OneOrMany::One(text) => text.text.trim().is_empty(),
        OneOrMany::Many(texts, _) => texts.is_empty(),
    };
    if no_answer {
        diagnostics.error(
            "no-correct-answer",
            view.file.location_of(&answer.span()),
            format!("{} has no correct answer: `answer.answer` is empty", view.owner),
            "write the correct option in `answer.answer` (a list of several for \"select all that apply\")",
        );
        return;
    }
    if let OneOrMany::Many(texts, _) = answer {
        for text in texts {
            check_not_blank(view, "answer.answer", text, diagnostics);
        }
    }
}

fn check_answer_index(
    view: &TableView<'_, '_>,
    index: usize,
    span: &std::ops::Range<usize>,
    answer_count: usize,
    distractor_count: usize,
    diagnostics: &mut Diagnostics,
) {
    if answer_count > 1 {
        diagnostics.error(
            "several-correct-answers",
            view.file.location_of(span),
            format!(
                "{} is single-answer (`prompt.answerIndex` places one answer) but `answer.answer` lists {answer_count}",
                view.owner
            ),
            "keep one answer in `answer.answer`, or remove `prompt.answerIndex` to make it a select-all question",
        );
    } else if index > distractor_count {
        diagnostics.error(
            "answer-index-out-of-range",
            view.file.location_of(span),
            format!(
                "`prompt.answerIndex` is {index}, but {} has only {} options (indices 0 to {distractor_count})",
                view.owner,
                distractor_count + 1,
            ),
            "use an index from 0 up to the number of distractors",
        );
    }
}

/// An option that is both a distractor and an answer cannot be marked
/// correctly, and an option listed twice shows up twice.
fn check_options_distinct(
    view: &TableView<'_, '_>,
    answers: &[SpannedText],
    distractors: &[SpannedText],
    diagnostics: &mut Diagnostics,
) {
    let answer_texts: BTreeSet<&str> = answers.iter().map(|answer| answer.text.trim()).collect();
    for distractor in distractors {
        let text = distractor.text.trim();
        if !text.is_empty() && answer_texts.contains(text) {
            diagnostics.error(
                "distractor-is-answer",
                view.file.location_of(&distractor.span),
                format!("{} lists \"{}\" both as a distractor and as an answer", view.owner, distractor.text.trim()),
                "remove it from `prompt.distractors` if it is right, or from `answer.answer` if it is wrong",
            );
        }
    }
    for (field, options) in [("answer.answer", answers), ("prompt.distractors", distractors)] {
        let mut seen = BTreeSet::new();
        for option in options {
            if !option.text.trim().is_empty() && !seen.insert(option.text.trim()) {
                diagnostics.error(
                    "duplicate-option",
                    view.file.location_of(&option.span),
                    format!("{} lists \"{}\" twice in `{field}`", view.owner, option.text.trim()),
                    "remove or reword one of them",
                );
            }
        }
    }
}

fn read_explanations(
    view: &TableView<'_, '_>,
    table: &TableView<'_, '_>,
    answer_count: usize,
    distractor_count: usize,
    diagnostics: &mut Diagnostics,
) -> Option<Explanations> {
    let for_answers = table.one_or_many("answer", true, diagnostics);
    let for_distractors = table.string_array("distractors", true, diagnostics);
    let (for_answers, for_distractors) = (for_answers?, for_distractors?);

    let answer_explanations = for_answers.items();
    if answer_explanations.len() != answer_count {
        diagnostics.error(
            "explanation-count",
            view.file.location_of(&for_answers.span()),
            format!(
                "{} has {answer_count} correct answer(s) but {} explanation(s) in `explain.answer`",
                view.owner,
                answer_explanations.len()
            ),
            "give exactly one explanation per correct answer, in the order of `answer.answer`",
        );
    }
    if for_distractors.len() != distractor_count {
        diagnostics.error(
            "explanation-count",
            view.file.location_of(&table.span_of("distractors")),
            format!(
                "{} has {distractor_count} distractor(s) but {} explanation(s) in `explain.distractors`",
                view.owner,
                for_distractors.len()
            ),
            "give exactly one explanation per distractor, in the order of `prompt.distractors`",
        );
    }
    for text in &answer_explanations {
        check_not_blank(view, "explain.answer", text, diagnostics);
    }
    for text in &for_distractors {
        check_not_blank(view, "explain.distractors", text, diagnostics);
    }
    Some(Explanations {
        answer: answer_text(for_answers),
        distractors: for_distractors.into_iter().map(|text| text.text).collect(),
    })
}
