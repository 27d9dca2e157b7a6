//! An exercise's README: the instructions, and the hints that unlock one by one.
//!
//! Hints are written at the end of the README under `## Hints`, one
//! `### Hint N` heading each, numbered from 1. The renderer keeps them out of
//! the instructions so a learner sees a hint only after asking for it.

use serde::Serialize;

use crate::diagnostic::{Diagnostics, SourceFile};
use crate::markdown_lines::markdown_lines;

/// A README split into instructions and hints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Readme {
    /// The Markdown of everything except the hints.
    pub instructions: String,
    /// The hints, in unlocking order.
    pub hints: Vec<Hint>,
}

/// One hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hint {
    /// Its heading text, e.g. `Hint 1`.
    pub title: String,
    /// Its Markdown body.
    pub markdown: String,
}

const HINTS_HEADING: &str = "## Hints";

/// The heading level of an ATX heading line (`## x` is 2), if it is one.
fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|character| *character == '#').count();
    let after = &line[level..];
    let is_heading = (1..=6).contains(&level) && (after.is_empty() || after.starts_with(' '));
    is_heading.then_some(level)
}

/// Splits a README into instructions and hints, reporting a missing or
/// malformed hints section.
pub fn read_readme(file: &SourceFile, diagnostics: &mut Diagnostics) -> Readme {
    let mut instructions = String::new();
    let mut hints: Vec<Hint> = Vec::new();
    let mut hint_offsets: Vec<usize> = Vec::new();
    let mut in_hints = false;
    let mut hints_heading_offset = None;
    for line in markdown_lines(&file.text) {
        let level = if line.in_code { None } else { heading_level(line.text) };
        if level.is_some() && line.text.trim_end() == HINTS_HEADING {
            in_hints = true;
            hints_heading_offset = Some(line.start);
            continue;
        }
        if in_hints && level.is_some_and(|level| level <= 2) {
            // A later `#` or `##` heading ends the hints; what follows is instructions again.
            in_hints = false;
        }
        if !in_hints {
            instructions.push_str(line.text);
            instructions.push('\n');
            continue;
        }
        if level == Some(3) {
            let title = line.text[3..].trim().to_string();
            let expected = format!("Hint {}", hints.len() + 1);
            if title != expected {
                diagnostics.error(
                    "malformed-hints",
                    file.location(line.start),
                    format!("the hint heading `### {title}` is out of sequence"),
                    format!("hints unlock in order: call it `### {expected}`"),
                );
            }
            hints.push(Hint { title, markdown: String::new() });
            hint_offsets.push(line.start);
        } else if let Some(hint) = hints.last_mut() {
            hint.markdown.push_str(line.text);
            hint.markdown.push('\n');
        } else if !line.text.trim().is_empty() {
            diagnostics.error(
                "malformed-hints",
                file.location(line.start),
                "text between `## Hints` and the first `### Hint 1` belongs to no hint and would not be shown",
                "move it above `## Hints`, or into a hint",
            );
        }
    }
    match hints_heading_offset {
        None => diagnostics.error(
            "missing-hints",
            file.location(file.text.len()),
            "the README has no `## Hints` section",
            "end it with `## Hints`, then `### Hint 1`, `### Hint 2`, ... each followed by its text",
        ),
        Some(offset) if hints.is_empty() => diagnostics.error(
            "missing-hints",
            file.location(offset),
            "the `## Hints` section has no hints",
            "add `### Hint 1` followed by its text, and more hints after it",
        ),
        Some(_) => {}
    }
    for hint in &mut hints {
        hint.markdown = hint.markdown.trim().to_string();
    }
    for (index, (hint, offset)) in hints.iter().zip(&hint_offsets).enumerate() {
        if hint.markdown.is_empty() {
            diagnostics.error(
                "empty-hint",
                file.location(*offset),
                format!("hint {} has no text", index + 1),
                "write the hint below its heading, or remove the heading",
            );
        }
    }
    Readme { instructions: instructions.trim_end().to_string() + "\n", hints }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Readme, Vec<String>) {
        let file = SourceFile::new("R.md", text);
        let mut diagnostics = Diagnostics::default();
        let readme = read_readme(&file, &mut diagnostics);
        (readme, diagnostics.into_sorted().iter().map(ToString::to_string).collect())
    }

    #[test]
    fn splits_hints_from_instructions() {
        let (readme, problems) = read(
            "# Do it\n\nText.\n\n```md\n## Hints\n```\n\n## Hints\n\n### Hint 1\n\nFirst.\n\n### Hint 2\n\nSecond\nline.\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(readme.instructions, "# Do it\n\nText.\n\n```md\n## Hints\n```\n");
        let hints: Vec<(&str, &str)> =
            readme.hints.iter().map(|hint| (hint.title.as_str(), hint.markdown.as_str())).collect();
        assert_eq!(hints, [("Hint 1", "First."), ("Hint 2", "Second\nline.")]);
    }

    #[test]
    fn reports_missing_and_malformed_hints() {
        let cases = [
            ("# T\n", "R.md:2:1: error: the README has no `## Hints` section"),
            ("# T\n## Hints\n\n", "R.md:2:1: error: the `## Hints` section has no hints"),
            ("# T\n## Hints\n### Hint 2\nx\n", "R.md:3:1: error: the hint heading `### Hint 2` is out of sequence"),
            ("# T\n## Hints\nstray\n### Hint 1\nx\n", "R.md:3:1: error: text between `## Hints`"),
            ("# T\n## Hints\n### Hint 1\n\n", "R.md:3:1: error: hint 1 has no text"),
        ];
        for (text, expected_start) in cases {
            let (_, problems) = read(text);
            assert_eq!(problems.len(), 1, "{text:?}: {problems:?}");
            assert!(problems[0].starts_with(expected_start), "{text:?}: {}", problems[0]);
        }
    }
}
