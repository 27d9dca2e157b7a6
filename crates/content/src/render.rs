//! The rendered lesson: the JSON document the browser page loads.
//!
//! Everything a page needs is resolved here, at build time: Markdown becomes
//! HTML, quiz options carry their own explanations, README hints are split
//! out. The page only has to place things. The crate docs describe the shape.
//! Reference solutions are never part of it: learners can read the document.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::directive::DirectiveKind;
use crate::exercise::Exercise;
use crate::lesson::Lesson;
use crate::markdown::{section_to_html, to_html, to_inline_html};
use crate::quiz::{MultipleChoice, Question, QuestionCommon, Quiz, ShortAnswer, Tracing};

/// The version of the document's shape; bumped when a field changes meaning or goes away.
pub const FORMAT_VERSION: u32 = 1;

/// The whole rendered lesson.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedLesson {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The lesson's id: its folder's name (storage keys and exports use it,
    /// so two lessons never share a learner's progress).
    pub id: String,
    /// The lesson's title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Where the material comes from, or null.
    pub source: Option<String>,
    /// The sections, in reading order.
    pub sections: Vec<RenderedSection>,
    /// Quizzes by the path their directive uses (the placeholder's `data-src`).
    pub quizzes: BTreeMap<String, RenderedQuiz>,
    /// Exercises by name (the placeholder's `data-src`).
    pub exercises: BTreeMap<String, RenderedExercise>,
    /// Diagrams by path (the placeholder's `data-src`).
    pub diagrams: BTreeMap<String, RenderedDiagram>,
    /// The names of the widgets the lesson embeds, sorted.
    pub widgets: Vec<String>,
    /// How the grader grades, from its registry: the page grades with exactly this.
    pub grading: Grading,
}

/// The grader's version and default budget, from its registry.
#[derive(Debug, Clone, Serialize)]
pub struct Grading {
    /// The grader's version (replay tokens and exported progress carry it).
    pub grader_version: String,
    /// Random schedules per exercise when nobody names another number.
    pub seeds: u32,
}

/// One section.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedSection {
    /// Stable identifier from the file name, e.g. `06-locks`.
    pub id: String,
    /// The source file, relative to the lesson folder.
    pub file: String,
    /// The text of the section's first heading.
    pub title: String,
    /// The section as HTML, with a placeholder `<div class="embed">` per directive.
    pub html: String,
    /// The placeholders, in order.
    pub embeds: Vec<RenderedEmbed>,
}

/// One placeholder in a section.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedEmbed {
    /// `quiz`, `exercise`, `widget` or `diagram`.
    pub kind: DirectiveKind,
    /// The key into `quizzes`, `exercises` or `diagrams`, or the widget's name.
    pub src: String,
}

/// One quiz.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedQuiz {
    /// The quiz's optional title.
    pub title: Option<String>,
    /// mdbook-quiz's multipart contexts, rendered, by key.
    pub multipart_html: BTreeMap<String, String>,
    /// The questions, in file order.
    pub questions: Vec<RenderedQuestion>,
}

/// Fields every rendered question has.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedCommon {
    /// The question's id, or null.
    pub id: Option<String>,
    /// The key of its multipart context, or null.
    pub multipart: Option<String>,
    /// The explanation shown after answering, or null.
    pub context_html: Option<String>,
    /// Whether to ask the learner to justify the answer.
    pub prompt_explanation: bool,
}

/// One question, tagged by `type` as in mdbook-quiz.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type")]
pub enum RenderedQuestion {
    /// Choose among options.
    MultipleChoice {
        /// Shared fields.
        #[serde(flatten)]
        common: RenderedCommon,
        /// The question.
        prompt_html: String,
        /// True for "select all that apply" (the answer was written as a list).
        multiple: bool,
        /// The correct options first, then the distractors, in file order.
        options: Vec<RenderedOption>,
        /// Show the (single) correct option at this position instead of shuffling.
        answer_index: Option<usize>,
        /// Sort the options by text instead of shuffling.
        sort_answers: bool,
    },
    /// Type an answer.
    ShortAnswer {
        /// Shared fields.
        #[serde(flatten)]
        common: RenderedCommon,
        /// The question.
        prompt_html: String,
        /// `short`, `long` or `code`.
        response: String,
        /// The expected answer.
        answer: String,
        /// Other accepted answers.
        alternatives: Vec<String>,
    },
    /// Predict a program's behaviour.
    Tracing {
        /// Shared fields.
        #[serde(flatten)]
        common: RenderedCommon,
        /// The program, as plain text.
        program: String,
        /// Whether it compiles.
        does_compile: bool,
        /// Its output, if it compiles.
        stdout: Option<String>,
        /// The failing line, if it does not.
        line_number: Option<usize>,
    },
}

/// One option of a multiple-choice question.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedOption {
    /// The option's text as inline HTML.
    pub html: String,
    /// Whether choosing it is right.
    pub correct: bool,
    /// Why it is right or wrong, as inline HTML, or null.
    pub explanation_html: Option<String>,
}

/// One exercise.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedExercise {
    /// Its folder name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// The learner's module name, e.g. `lock.js`.
    pub file: String,
    /// The functions the module must export.
    pub exports: Vec<String>,
    /// The starter code.
    pub starter: String,
    /// The README without its hints, as HTML.
    pub readme_html: String,
    /// The hints, in unlocking order.
    pub hints: Vec<RenderedHint>,
    /// What lab mode (the learner's code on a real etcd) shows, or null if it
    /// does not run this exercise: from the grader's registry.
    pub lab: Option<String>,
}

/// One hint.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedHint {
    /// Its heading, e.g. `Hint 1`.
    pub title: String,
    /// Its body as HTML.
    pub html: String,
}

/// One diagram.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedDiagram {
    /// The SVG markup, to inline in the page.
    pub svg: String,
}

/// Renders a lesson. Call it on a lesson that checked clean: it renders what
/// it is given and does not check again.
pub fn render_lesson(lesson: &Lesson) -> RenderedLesson {
    RenderedLesson {
        format_version: FORMAT_VERSION,
        id: lesson.id.clone(),
        title: lesson.title.clone(),
        summary: lesson.summary.clone(),
        source: lesson.source.clone(),
        sections: lesson
            .sections
            .iter()
            .map(|section| RenderedSection {
                id: section.id.clone(),
                file: section.file.clone(),
                title: section.title.clone(),
                html: section_to_html(&section.markdown, &section.directives),
                embeds: section
                    .directives
                    .iter()
                    .map(|directive| RenderedEmbed { kind: directive.kind, src: directive.argument.clone() })
                    .collect(),
            })
            .collect(),
        quizzes: lesson.quizzes.iter().map(|(path, quiz)| (path.clone(), render_quiz(quiz))).collect(),
        exercises: lesson.exercises.iter().map(|(name, exercise)| (name.clone(), render_exercise(exercise))).collect(),
        diagrams: lesson
            .diagrams
            .iter()
            .map(|(path, diagram)| (path.clone(), RenderedDiagram { svg: diagram.svg.clone() }))
            .collect(),
        widgets: lesson.widgets.iter().cloned().collect(),
        grading: Grading {
            grader_version: grader::registry::GRADER_VERSION.to_string(),
            seeds: grader::registry::defaults().seeds,
        },
    }
}

/// The rendered lesson as pretty-printed JSON, ending with a newline.
pub fn to_json(rendered: &RenderedLesson) -> String {
    // Serializing plain structs of strings, numbers and maps with string keys cannot fail.
    let mut json = serde_json::to_string_pretty(rendered).expect("the rendered lesson serializes");
    json.push('\n');
    json
}

/// Renders one quiz.
pub fn render_quiz(quiz: &Quiz) -> RenderedQuiz {
    RenderedQuiz {
        title: quiz.title.clone(),
        multipart_html: quiz
            .multipart
            .iter()
            .flatten()
            .map(|(key, markdown)| (key.clone(), to_html(markdown)))
            .collect(),
        questions: quiz.questions.iter().map(render_question).collect(),
    }
}

fn render_common(common: &QuestionCommon) -> RenderedCommon {
    RenderedCommon {
        id: common.id.clone(),
        multipart: common.multipart.clone(),
        context_html: common.context.as_deref().map(to_html),
        prompt_explanation: common.prompt_explanation.unwrap_or(false),
    }
}

fn render_question(question: &Question) -> RenderedQuestion {
    match question {
        Question::MultipleChoice(question) => render_multiple_choice(question),
        Question::ShortAnswer(ShortAnswer { common, prompt, answer }) => RenderedQuestion::ShortAnswer {
            common: render_common(common),
            prompt_html: to_html(&prompt.prompt),
            response: prompt.response.clone().unwrap_or_else(|| "short".to_string()),
            answer: answer.answer.clone(),
            alternatives: answer.alternatives.clone().unwrap_or_default(),
        },
        Question::Tracing(Tracing { common, prompt, answer }) => RenderedQuestion::Tracing {
            common: render_common(common),
            program: prompt.program.clone(),
            does_compile: answer.does_compile,
            stdout: answer.stdout.clone(),
            line_number: answer.line_number,
        },
    }
}

fn render_multiple_choice(question: &MultipleChoice) -> RenderedQuestion {
    let answer_explanations: Vec<&str> =
        question.explain.as_ref().map(|explain| explain.answer.texts()).unwrap_or_default();
    let distractor_explanations: Vec<&String> =
        question.explain.iter().flat_map(|explain| &explain.distractors).collect();
    let explanation = |texts: &[&str], index: usize| texts.get(index).map(|text| to_inline_html(text));
    let distractor_texts: Vec<&str> = distractor_explanations.iter().map(|text| text.as_str()).collect();

    let mut options: Vec<RenderedOption> = question
        .answer
        .answer
        .texts()
        .iter()
        .enumerate()
        .map(|(index, text)| RenderedOption {
            html: to_inline_html(text),
            correct: true,
            explanation_html: explanation(&answer_explanations, index),
        })
        .collect();
    options.extend(question.prompt.distractors.iter().enumerate().map(|(index, text)| RenderedOption {
        html: to_inline_html(text),
        correct: false,
        explanation_html: explanation(&distractor_texts, index),
    }));
    RenderedQuestion::MultipleChoice {
        common: render_common(&question.common),
        prompt_html: to_html(&question.prompt.prompt),
        multiple: question.answer.answer.is_list(),
        options,
        answer_index: question.prompt.answer_index,
        sort_answers: question.prompt.sort_answers.unwrap_or(false),
    }
}

fn render_exercise(exercise: &Exercise) -> RenderedExercise {
    RenderedExercise {
        name: exercise.name.clone(),
        title: exercise.title.clone(),
        file: exercise.file.clone(),
        exports: exercise.exports.clone(),
        starter: exercise.starter.clone(),
        readme_html: to_html(&exercise.readme.instructions),
        hints: exercise
            .readme
            .hints
            .iter()
            .map(|hint| RenderedHint { title: hint.title.clone(), html: to_html(&hint.markdown) })
            .collect(),
        lab: grader::registry::info(&exercise.name).and_then(|entry| entry.lab).map(str::to_string),
    }
}
