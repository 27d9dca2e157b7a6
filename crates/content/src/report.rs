//! The checker's report, as text for people and as JSON for tools.

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::lesson::Checked;

/// What was checked and what was found, the shape of `content check --format json`.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Every problem, sorted by file, line and column.
    pub diagnostics: &'a [Diagnostic],
    /// How many section files were read.
    pub sections: usize,
    /// How many quiz files were read.
    pub quizzes: usize,
    /// How many exercises were read.
    pub exercises: usize,
    /// How many problems were found.
    pub errors: usize,
}

/// `1 quiz`, `4 quizzes`.
fn counted(count: usize, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
}

impl<'a> Report<'a> {
    /// The report of one check.
    pub fn new(checked: &'a Checked) -> Self {
        Self {
            diagnostics: &checked.diagnostics,
            sections: checked.lesson.sections.len(),
            quizzes: checked.lesson.quizzes.len(),
            exercises: checked.lesson.exercises.len(),
            errors: checked.diagnostics.len(),
        }
    }

    /// The closing line, e.g. `checked 10 sections, 4 quizzes, 4 exercises: 0 errors`.
    pub fn summary(&self) -> String {
        format!(
            "checked {}, {}, {}: {}",
            counted(self.sections, "section", "sections"),
            counted(self.quizzes, "quiz", "quizzes"),
            counted(self.exercises, "exercise", "exercises"),
            counted(self.errors, "error", "errors"),
        )
    }

    /// One `path:line:col: error: message` line per problem, then the summary.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for diagnostic in self.diagnostics {
            text.push_str(&diagnostic.to_string());
            text.push('\n');
        }
        text.push_str(&self.summary());
        text.push('\n');
        text
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Strings, numbers and a list of plain structs always serialize.
        let mut json = serde_json::to_string_pretty(self).expect("the report serializes");
        json.push('\n');
        json
    }
}
