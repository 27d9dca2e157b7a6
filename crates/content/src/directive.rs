//! Directives: the lines of lesson Markdown that embed a quiz, an exercise,
//! a widget or a diagram, such as `{{#quiz quizzes/locks-and-ttl.toml}}`.
//!
//! The syntax follows mdBook's `{{#include ...}}` and mdbook-quiz's
//! `{{#quiz ...}}`. A directive stands alone on its line, starting at column
//! 1, because the renderer swaps the whole line for a block element; one that
//! shares a line with text could not be replaced without breaking the
//! paragraph around it, so that is reported instead of half-rendered.
//! Lines in fenced code blocks and text in inline code are never directives,
//! so a lesson can show the syntax.

use serde::Serialize;

use crate::diagnostic::{suggestion_or_list, Diagnostics, Location, SourceFile};
use crate::markdown_lines::{find_outside_inline_code, markdown_lines};

/// What a directive embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DirectiveKind {
    /// A quiz file, by path relative to the lesson directory.
    Quiz,
    /// An exercise, by the name of its folder in the lesson directory.
    Exercise,
    /// A built-in interactive widget, by name.
    Widget,
    /// An SVG diagram, by path relative to the lesson directory.
    Diagram,
}

/// The directive names, in the order they are listed in messages.
pub const DIRECTIVE_NAMES: &[&str] = &["quiz", "exercise", "widget", "diagram"];

impl DirectiveKind {
    /// The name written after `{{#`.
    pub fn name(self) -> &'static str {
        match self {
            DirectiveKind::Quiz => "quiz",
            DirectiveKind::Exercise => "exercise",
            DirectiveKind::Widget => "widget",
            DirectiveKind::Diagram => "diagram",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "quiz" => Some(DirectiveKind::Quiz),
            "exercise" => Some(DirectiveKind::Exercise),
            "widget" => Some(DirectiveKind::Widget),
            "diagram" => Some(DirectiveKind::Diagram),
            _ => None,
        }
    }

    /// A correct directive of this kind, for messages.
    pub fn example(self) -> &'static str {
        match self {
            DirectiveKind::Quiz => "{{#quiz quizzes/NAME.toml}}",
            DirectiveKind::Exercise => "{{#exercise NAME}}",
            DirectiveKind::Widget => "{{#widget NAME}}",
            DirectiveKind::Diagram => "{{#diagram diagrams/NAME.svg}}",
        }
    }
}

/// One directive found in a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Directive {
    /// What it embeds.
    pub kind: DirectiveKind,
    /// Its one argument: a path or a name.
    pub argument: String,
    /// 1-based line of the directive in the section file.
    pub line: usize,
    /// 1-based column of the directive's `{{`.
    pub column: usize,
}

impl Directive {
    /// Where the directive is written.
    pub fn location(&self, file: &SourceFile) -> Location {
        Location { file: file.display_path.clone(), line: self.line, column: self.column }
    }
}

/// Finds every directive in a Markdown file, reporting malformed ones.
/// Directives with a problem in their syntax are left out of the result.
pub fn scan_directives(file: &SourceFile, diagnostics: &mut Diagnostics) -> Vec<Directive> {
    let mut directives = Vec::new();
    for line in markdown_lines(&file.text) {
        if line.in_code {
            continue;
        }
        let trimmed = line.text.trim_start();
        let indent_bytes = line.text.len() - trimmed.len();
        if trimmed.starts_with("{{") {
            let location = file.location(line.start + indent_bytes);
            if indent_bytes > 0 {
                diagnostics.error(
                    "malformed-directive",
                    location.clone(),
                    "the directive is indented",
                    "start it at the beginning of the line, with a blank line before and after",
                );
            }
            if let Some(directive) = parse_line(trimmed.trim_end(), location, diagnostics) {
                directives.push(directive);
            }
        } else if let Some(offset) = find_outside_inline_code(line.text, "{{#") {
            diagnostics.error(
                "directive-not-alone",
                file.location(line.start + offset),
                "a directive shares its line with other text",
                "put the directive on a line of its own, with a blank line before and after (or quote it in `backticks` if it is an example)",
            );
        }
    }
    directives
}

/// Parses a line that starts with `{{` (leading and trailing spaces removed).
fn parse_line(text: &str, location: Location, diagnostics: &mut Diagnostics) -> Option<Directive> {
    let malformed = |diagnostics: &mut Diagnostics, problem: String, fix: &str| {
        diagnostics.error("malformed-directive", location.clone(), problem, fix);
    };
    let generic_fix = "write it as `{{#NAME ARGUMENT}}`, e.g. `{{#quiz quizzes/locks-and-ttl.toml}}`";
    let Some(after_open) = text.strip_prefix("{{#") else {
        malformed(diagnostics, format!("`{text}` looks like a directive but has no `#` after `{{{{`"), generic_fix);
        return None;
    };
    let Some(inner) = after_open.strip_suffix("}}") else {
        malformed(
            diagnostics,
            format!("the directive `{text}` is not closed with `}}}}` at the end of the line"),
            generic_fix,
        );
        return None;
    };
    let words: Vec<&str> = inner.split_whitespace().collect();
    let Some((&name, arguments)) = words.split_first() else {
        malformed(diagnostics, "the directive has no name".to_string(), generic_fix);
        return None;
    };
    let Some(kind) = DirectiveKind::from_name(name) else {
        diagnostics.error(
            "unknown-directive",
            location,
            format!("`{{{{#{name}}}}}` is not a directive"),
            suggestion_or_list(name, DIRECTIVE_NAMES, "`"),
        );
        return None;
    };
    if arguments.len() != 1 {
        let problem = if arguments.is_empty() {
            format!("`{{{{#{name}}}}}` has no argument")
        } else {
            format!("`{{{{#{name}}}}}` has {} arguments but takes one", arguments.len())
        };
        malformed(diagnostics, problem, &format!("write it as `{}`", kind.example()));
        return None;
    }
    Some(Directive { kind, argument: arguments[0].to_string(), line: location.line, column: location.column })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> (Vec<String>, Vec<String>) {
        let file = SourceFile::new("s.md", text);
        let mut diagnostics = Diagnostics::default();
        let found = scan_directives(&file, &mut diagnostics)
            .iter()
            .map(|directive| {
                format!("{}:{} {} {}", directive.line, directive.column, directive.kind.name(), directive.argument)
            })
            .collect();
        let problems = diagnostics.into_sorted().iter().map(ToString::to_string).collect();
        (found, problems)
    }

    #[test]
    fn finds_well_formed_directives() {
        let (found, problems) =
            scan("# T\n\n{{#quiz quizzes/a.toml}}\n\ntext\n{{#widget cas-playground}}  \r\n{{#diagram d.svg}}\r\n");
        assert_eq!(found, ["3:1 quiz quizzes/a.toml", "6:1 widget cas-playground", "7:1 diagram d.svg"]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn ignores_code_blocks_and_inline_code() {
        let (found, problems) = scan("```md\n{{#quiz a.toml}}\n```\nUse `{{#quiz a.toml}}` to embed.\n");
        assert!(found.is_empty());
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn reports_each_malformation() {
        let cases = [
            ("{{quiz a.toml}}", "s.md:1:1: error: `{{quiz a.toml}}` looks like a directive but has no `#` after `{{`"),
            (
                "{{#quiz a.toml",
                "s.md:1:1: error: the directive `{{#quiz a.toml` is not closed with `}}` at the end of the line",
            ),
            ("{{#}}", "s.md:1:1: error: the directive has no name"),
            ("{{#quizz a.toml}}", "s.md:1:1: error: `{{#quizz}}` is not a directive; did you mean `quiz`?"),
            ("{{#quiz}}", "s.md:1:1: error: `{{#quiz}}` has no argument; write it as `{{#quiz quizzes/NAME.toml}}`"),
            (
                "{{#widget a b}}",
                "s.md:1:1: error: `{{#widget}}` has 2 arguments but takes one; write it as `{{#widget NAME}}`",
            ),
            ("  {{#widget a}}", "s.md:1:3: error: the directive is indented"),
            ("see {{#widget a}}", "s.md:1:5: error: a directive shares its line with other text"),
        ];
        for (text, expected_start) in cases {
            let (_, problems) = scan(text);
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert!(problems[0].starts_with(expected_start), "{text}: {}", problems[0]);
        }
    }
}
