//! Diagnostics: what the checker reports.
//!
//! Every diagnostic names a file, a 1-based line and column, a stable rule
//! name, and one message that says both what is wrong and how to fix it.
//! Checks push diagnostics into a [`Diagnostics`] list and keep going, so one
//! run reports every problem instead of stopping at the first.

use std::fmt;
use std::ops::Range;

use serde::Serialize;

/// A file the checker read, kept so byte offsets can become line and column.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as shown to the author, e.g. `ownership-election/quizzes/x.toml`.
    pub display_path: String,
    /// The whole text of the file.
    pub text: String,
}

impl SourceFile {
    /// Wraps a file's text with the path to show in messages.
    pub fn new(display_path: impl Into<String>, text: impl Into<String>) -> Self {
        Self { display_path: display_path.into(), text: text.into() }
    }

    /// The 1-based line and column (counted in characters) of a byte offset.
    /// Offsets past the end clamp to the end, so a span from a parser can never panic here.
    pub fn line_column(&self, byte_offset: usize) -> (usize, usize) {
        let mut offset = byte_offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }

    /// A location at a byte offset in this file.
    pub fn location(&self, byte_offset: usize) -> Location {
        let (line, column) = self.line_column(byte_offset);
        Location { file: self.display_path.clone(), line, column }
    }

    /// A location at the start of a span in this file.
    pub fn location_of(&self, span: &Range<usize>) -> Location {
        self.location(span.start)
    }
}

/// Where a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The file, as shown to the author.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Location {
    /// The start of a file, for problems that belong to the file as a whole.
    pub fn file_start(file: impl Into<String>) -> Self {
        Self { file: file.into(), line: 1, column: 1 }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One problem found in the content.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Diagnostic {
    /// The file, relative to the lesson directory's parent.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, then `; `, then how to fix it.
    pub message: String,
    /// A short, stable rule name such as `unknown-field`, for tooling and AUTHORING.md.
    pub rule: &'static str,
}

impl fmt::Display for Diagnostic {
    /// The one-line form editors and terminals understand: `path:line:col: error: message`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}:{}: error: {}", self.file, self.line, self.column, self.message)
    }
}

/// The diagnostics of one run, in the order they were found.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a problem: `problem` says what is wrong, `fix` how to fix it.
    pub fn error(&mut self, rule: &'static str, location: Location, problem: impl AsRef<str>, fix: impl AsRef<str>) {
        let message = format!("{}; {}", problem.as_ref(), fix.as_ref());
        self.items.push(Diagnostic {
            file: location.file,
            line: location.line,
            column: location.column,
            message,
            rule,
        });
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many problems were reported.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The problems sorted by file, line and column so a report reads top to
    /// bottom; exact repeats (a TOML parser can report one spot twice) are dropped.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.items.sort();
        self.items.dedup();
        self.items
    }
}

/// The closest candidate to a misspelt name, if one is close enough to suggest.
pub fn closest_name<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|candidate| (edit_distance(name, candidate), *candidate))
        // Allow about one edit per three characters: enough for typos and a
        // missing plural `s`, not so many that unrelated names are suggested.
        .filter(|(distance, candidate)| *distance <= candidate.len().max(name.len()) / 3 + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// The help text for an unknown name: a suggestion if one is close, else the list.
pub fn suggestion_or_list(name: &str, candidates: &[&str], quote: &str) -> String {
    let listed = candidates.iter().map(|candidate| format!("{quote}{candidate}{quote}")).collect::<Vec<_>>().join(", ");
    match closest_name(name, candidates) {
        Some(suggestion) => format!("did you mean {quote}{suggestion}{quote}? (allowed: {listed})"),
        None => format!("use one of {listed}"),
    }
}

/// Levenshtein distance, case-insensitive: names are short, so the quadratic table is fine.
fn edit_distance(left: &str, right: &str) -> usize {
    let left: Vec<char> = left.to_lowercase().chars().collect();
    let right: Vec<char> = right.to_lowercase().chars().collect();
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (left_index, left_char) in left.iter().enumerate() {
        let mut current = vec![left_index + 1];
        for (right_index, right_char) in right.iter().enumerate() {
            let substitution = previous[right_index] + usize::from(left_char != right_char);
            let insertion = current[right_index] + 1;
            let deletion = previous[right_index + 1] + 1;
            current.push(substitution.min(insertion).min(deletion));
        }
        previous = current;
    }
    previous[right.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters_from_one() {
        let file = SourceFile::new("x", "ab\ncé d\n");
        assert_eq!(file.line_column(0), (1, 1));
        assert_eq!(file.line_column(3), (2, 1));
        // "é" is two bytes but one column.
        assert_eq!(file.line_column(6), (2, 3));
        assert_eq!(file.line_column(999), (3, 1));
    }

    #[test]
    fn suggests_close_names_only() {
        let candidates = ["distractors", "prompt", "answer"];
        for (name, expected) in
            [("distractor", Some("distractors")), ("promt", Some("prompt")), ("Answer", Some("answer")), ("zzzz", None)]
        {
            assert_eq!(closest_name(name, &candidates), expected, "{name}");
        }
    }

    #[test]
    fn message_joins_problem_and_fix() {
        let mut diagnostics = Diagnostics::default();
        diagnostics.error("rule", Location::file_start("b"), "second", "fix it");
        diagnostics.error("rule", Location { file: "a".into(), line: 2, column: 1 }, "first", "fix it");
        let sorted = diagnostics.into_sorted();
        let lines: Vec<String> = sorted.iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["a:2:1: error: first; fix it", "b:1:1: error: second; fix it"]);
    }
}
