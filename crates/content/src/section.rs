//! A section: one Markdown file of the lesson, its title and its directives.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::diagnostic::{Diagnostics, SourceFile};
use crate::directive::{scan_directives, Directive};
use crate::markdown::markdown_options;

/// One section of the lesson.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// The file, relative to the lesson folder, e.g. `06-locks.md`.
    pub file: String,
    /// A stable identifier: the file name without `.md`, e.g. `06-locks`.
    pub id: String,
    /// The text of the heading the section starts with.
    pub title: String,
    /// The Markdown source.
    pub markdown: String,
    /// The directives, in order.
    pub directives: Vec<Directive>,
}

/// Reads a section and reports its problems.
///
/// The title is the heading the file starts with, of any level: the lesson
/// is one page whose first section carries the page's `#` heading and whose
/// other sections start at `##`, so requiring `#` everywhere would be wrong.
pub fn read_section(relative: &str, file: &SourceFile, diagnostics: &mut Diagnostics) -> Section {
    let directives = scan_directives(file, diagnostics);
    let title = match leading_heading(&file.text) {
        Ok(title) => title,
        Err(offset) => {
            diagnostics.error(
                "missing-title",
                file.location(offset),
                "the section does not start with a heading, so it has no title",
                "begin the file with a heading such as `## Implementing locks`",
            );
            String::new()
        }
    };
    Section {
        file: relative.to_string(),
        id: relative.trim_end_matches(".md").replace('/', "-"),
        title,
        markdown: file.text.clone(),
        directives,
    }
}

/// The plain text of the heading a Markdown text starts with, or the byte
/// offset of the first block when that block is not a (non-empty) heading.
pub fn leading_heading(markdown: &str) -> Result<String, usize> {
    let mut in_heading = false;
    let mut title = String::new();
    for (event, range) in Parser::new_ext(markdown, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) if !in_heading => in_heading = true,
            Event::End(TagEnd::Heading(_)) => {
                let title = title.trim().to_string();
                return if title.is_empty() { Err(range.start) } else { Ok(title) };
            }
            Event::Text(text) | Event::Code(text) if in_heading => title.push_str(&text),
            Event::SoftBreak | Event::HardBreak if in_heading => title.push(' '),
            _ if in_heading => {}
            _ => return Err(range.start),
        }
    }
    Err(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_is_the_leading_heading_of_any_level() {
        for (markdown, expected) in [
            ("# Ownership Election\n\ntext", Ok("Ownership Election".to_string())),
            ("\n\n## The `CAS` *basics*\n", Ok("The CAS basics".to_string())),
            ("Locks\n=====\n", Ok("Locks".to_string())),
            ("text first\n\n## Later\n", Err(0)),
            ("\n\nplain\n", Err(2)),
            ("", Err(0)),
            ("#\n", Err(0)),
        ] {
            assert_eq!(leading_heading(markdown), expected, "{markdown:?}");
        }
    }
}
