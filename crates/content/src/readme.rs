//! An exercise's README: the instructions, and the hints that unlock one by one.
//!
//! Hints are written at the end of the README under `## Hints`, one
//! `### Hint N` heading each, numbered from 1. The renderer keeps them out of
//! the instructions so a learner sees a hint only after asking for it.

use serde::Serialize;

use crate::diagnostic::{Diagnostics, SourceFile};
use crate::markdown_lines::{markdown_lines, MarkdownLine};

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

/// How a heading that names a hint (its text is `Hint N`) is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HintHeading {
    /// The number as written, e.g. `2`.
    number: String,
    /// Byte offset of the heading's first non-space character in its line.
    indent: usize,
    /// True for a Setext heading, whose underline is the next line.
    underlined: bool,
}

/// The text of an ATX heading as CommonMark reads it (up to three spaces of
/// indentation, one to six `#`, an optional closing run of `#`), with its indentation.
fn atx_heading_text(line: &str) -> Option<(&str, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.chars().take_while(|character| *character == '#').count();
    let after = &rest[level..];
    if !(1..=6).contains(&level) || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let text = after.trim();
    // A closing run of `#` belongs to the heading's syntax, not its text, when a space precedes it.
    let without_closing = text.trim_end_matches('#');
    let text = if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
        without_closing.trim_end()
    } else {
        text
    };
    Some((text, indent))
}

/// True for a Setext underline: a run of `=` or of `-`, indented at most three spaces.
fn is_setext_underline(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let marks = line.trim();
    indent <= 3 && !marks.is_empty() && (marks.chars().all(|mark| mark == '=') || marks.chars().all(|mark| mark == '-'))
}

/// The number in a heading text `Hint N` (any case), if that is all the text says.
fn hint_number(text: &str) -> Option<String> {
    let rest = text.get(..4).filter(|word| word.eq_ignore_ascii_case("hint")).map(|_| &text[4..])?;
    let number = rest.trim_start();
    let spaced = number.len() < rest.len();
    (spaced && !number.is_empty() && number.chars().all(|digit| digit.is_ascii_digit())).then(|| number.to_string())
}

/// The hint heading `lines[index]` is, if any, at any level and in either
/// heading syntax: an author who writes `## Hint 2` means a hint, and the
/// page must not show its text as instructions without a word.
fn hint_heading(lines: &[MarkdownLine<'_>], index: usize) -> Option<HintHeading> {
    let line = &lines[index];
    if line.in_code {
        return None;
    }
    if let Some((text, indent)) = atx_heading_text(line.text) {
        return hint_number(text).map(|number| HintHeading { number, indent, underlined: false });
    }
    // A Setext heading of one line: text after a blank line (or at the start), then its underline.
    let next_underlines = lines.get(index + 1).is_some_and(|next| !next.in_code && is_setext_underline(next.text));
    let starts_block = index == 0 || lines[index - 1].text.trim().is_empty();
    let indent = line.text.len() - line.text.trim_start_matches(' ').len();
    if !(next_underlines && starts_block && indent <= 3) {
        return None;
    }
    hint_number(line.text.trim()).map(|number| HintHeading { number, indent, underlined: true })
}

/// Splits a README into instructions and hints, reporting a missing or
/// malformed hints section.
pub fn read_readme(file: &SourceFile, diagnostics: &mut Diagnostics) -> Readme {
    let mut instructions = String::new();
    let mut hints: Vec<Hint> = Vec::new();
    let mut hint_offsets: Vec<usize> = Vec::new();
    let mut in_hints = false;
    let mut hints_heading_offset = None;
    let lines = markdown_lines(&file.text);
    let mut skip_underline = false;
    for (index, line) in lines.iter().enumerate() {
        if std::mem::take(&mut skip_underline) {
            continue;
        }
        let level = if line.in_code { None } else { heading_level(line.text) };
        if level.is_some() && line.text.trim_end() == HINTS_HEADING {
            in_hints = true;
            hints_heading_offset = Some(line.start);
            continue;
        }
        if let Some(heading) = hint_heading(&lines, index) {
            let written = line.text.trim();
            let location = file.location(line.start + heading.indent);
            if !in_hints {
                // The page shows everything outside `## Hints` as instructions, so this hint would be read at once.
                diagnostics.error(
                    "hint-heading",
                    location,
                    format!("`{written}` names a hint, but it is outside the `## Hints` section, so the page would show it with the instructions"),
                    "move it with its text under `## Hints` at the end of the README, as a `### Hint N` heading numbered in order",
                );
                instructions.push_str(line.text);
                instructions.push('\n');
                continue;
            }
            // Inside `## Hints`, a hint heading of another form is still taken as
            // the next hint, so that one mistake gives one error, not one per later hint.
            let expected = format!("### Hint {}", hints.len() + 1);
            let exact_form = line.text.trim_end() == format!("### Hint {}", heading.number);
            if !exact_form {
                diagnostics.error(
                    "hint-heading",
                    location,
                    format!("`{written}` names a hint, but only a heading written exactly `### Hint N` is one, so the page would not unlock its text as a hint of its own"),
                    format!("write it as `{expected}`"),
                );
            } else if line.text.trim_end() != expected {
                diagnostics.error(
                    "malformed-hints",
                    location,
                    format!("the hint heading `{written}` is out of sequence"),
                    format!("hints unlock in order: call it `{expected}`"),
                );
            }
            hints.push(Hint { title: format!("Hint {}", heading.number), markdown: String::new() });
            hint_offsets.push(line.start);
            skip_underline = heading.underlined;
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
            // Every `###` heading under `## Hints` starts a hint, and this one is not called `Hint N`.
            diagnostics.error(
                "malformed-hints",
                file.location(line.start),
                format!("the heading `### {title}` under `## Hints` starts a hint, but it is not called `Hint N`"),
                format!("hints unlock in order: call it `### {expected}`, or make it a `####` heading inside a hint"),
            );
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
            ("# T\n## Hints\n### Tip\nx\n", "R.md:3:1: error: the heading `### Tip` under `## Hints` starts a hint"),
        ];
        for (text, expected_start) in cases {
            let (_, problems) = read(text);
            assert_eq!(problems.len(), 1, "{text:?}: {problems:?}");
            assert!(problems[0].starts_with(expected_start), "{text:?}: {}", problems[0]);
        }
    }

    /// Any heading whose text is `Hint N` must be exactly `### Hint N` under
    /// `## Hints`: at another level the page would not unlock it as a hint,
    /// and would show its text with the instructions or the hint before it.
    #[test]
    fn hint_headings_must_be_level_three_under_hints() {
        let hints = "# T\n## Hints\n### Hint 1\none\n";
        let cases = [
            (format!("{hints}## Hint 2\ntwo\n"), "R.md:5:1: error: `## Hint 2` names a hint, but only a heading written exactly `### Hint N` is one"),
            (format!("{hints}#### Hint 2\ntwo\n"), "R.md:5:1: error: `#### Hint 2` names a hint"),
            (format!("{hints}# Hint 2 #\ntwo\n"), "R.md:5:1: error: `# Hint 2 #` names a hint"),
            (format!("{hints}  ### Hint 2\ntwo\n"), "R.md:5:3: error: `### Hint 2` names a hint"),
            (format!("{hints}### hint 2\ntwo\n"), "R.md:5:1: error: `### hint 2` names a hint"),
            (format!("{hints}\nHint 2\n------\ntwo\n"), "R.md:6:1: error: `Hint 2` names a hint"),
            (format!("{hints}### Hint 3\nthree\n"), "R.md:5:1: error: the hint heading `### Hint 3` is out of sequence; hints unlock in order: call it `### Hint 2`"),
            ("# T\n### Hint 1\nearly\n## Hints\n### Hint 1\none\n".to_string(), "R.md:2:1: error: `### Hint 1` names a hint, but it is outside the `## Hints` section"),
            ("# T\n## Hint 1\nearly\n".to_string(), "R.md:2:1: error: `## Hint 1` names a hint, but it is outside"),
            (format!("{hints}## Notes\n### Hint 2\ntwo\n"), "R.md:6:1: error: `### Hint 2` names a hint, but it is outside"),
        ];
        for (text, expected_start) in &cases {
            let (_, problems) = read(text);
            let hint_problems: Vec<&String> =
                problems.iter().filter(|problem| !problem.contains("no `## Hints`")).collect();
            assert_eq!(hint_problems.len(), 1, "{text:?}: {problems:?}");
            assert!(hint_problems[0].starts_with(expected_start), "{text:?}: {}", hint_problems[0]);
        }
        // The fix it names is the heading the hint needs.
        let (readme, problems) = read(&cases[0].0);
        assert!(problems[0].ends_with("; write it as `### Hint 2`"), "{}", problems[0]);
        // Taken as the next hint, so its text is not in the instructions.
        assert_eq!(readme.instructions, "# T\n");
        assert_eq!(readme.hints.len(), 2);
        // Words that only start like a hint are not hint headings.
        for text in ["## Hints to come\n", "### Hinting\n", "### Hint 2: watch\n", "Hint 2\n"] {
            let (_, problems) = read(&format!("{text}{hints}"));
            assert!(problems.is_empty(), "{text:?}: {problems:?}");
        }
    }
}
