//! Diagnostics: what the checker reports, in the shape of rustc's messages.
//!
//! Every diagnostic names a file, a 1-based line and column, a rule code,
//! what is wrong and how to fix it. Checks push diagnostics into a
//! [`Diagnostics`] list and keep going, so one run reports every problem.

use std::fmt;
use std::ops::Range;

/// A file the checker read, kept so byte offsets can become line and column.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as shown to the author, e.g. `exercises/ownership-election/quizzes/x.toml`.
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
        Location { display_path: self.display_path.clone(), line, column }
    }

    /// A location at the start of a span in this file.
    pub fn location_of(&self, span: &Range<usize>) -> Location {
        self.location(span.start)
    }
}

/// Where a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// The file, as shown to the author.
    pub display_path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Location {
    /// The start of a file, for problems that belong to the file as a whole
    /// (it is missing, it cannot be read).
    pub fn file_start(display_path: impl Into<String>) -> Self {
        Self { display_path: display_path.into(), line: 1, column: 1 }
    }
}

/// One problem found in the content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A short, stable rule name such as `unknown-field`; AUTHORING.md lists them.
    pub rule: &'static str,
    /// What is wrong, as one sentence without a final period.
    pub message: String,
    /// Where it is.
    pub location: Location,
    /// How to fix it.
    pub help: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(formatter, "error[{}]: {}", self.rule, self.message)?;
        writeln!(
            formatter,
            "  --> {}:{}:{}",
            self.location.display_path, self.location.line, self.location.column
        )?;
        write!(formatter, "  help: {}", self.help)
    }
}

/// The diagnostics of one run, in the order they were found.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a problem.
    pub fn error(
        &mut self,
        rule: &'static str,
        location: Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.items.push(Diagnostic { rule, message: message.into(), location, help: help.into() });
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many problems were reported.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The problems, sorted by file, line and column so the report reads top to bottom.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.items.sort_by(|left, right| left.location.cmp(&right.location));
        self.items
    }

    /// Renders every problem and a closing count, the way the command prints them.
    pub fn render(self) -> String {
        let items = self.into_sorted();
        let mut report = String::new();
        for item in &items {
            report.push_str(&item.to_string());
            report.push_str("\n\n");
        }
        match items.len() {
            0 => report.push_str("ok: no problems found\n"),
            1 => report.push_str("error: 1 problem found\n"),
            count => report.push_str(&format!("error: {count} problems found\n")),
        }
        report
    }
}

/// The closest candidate to a misspelt name, if one is close enough to suggest.
pub fn closest_name<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|candidate| (edit_distance(name, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= candidate.len().max(name.len()) / 3 + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, case-insensitive: small names, so the quadratic table is fine.
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
        assert_eq!(closest_name("distractor", &["distractors", "prompt"]), Some("distractors"));
        assert_eq!(closest_name("zzzz", &["distractors", "prompt"]), None);
    }
}
