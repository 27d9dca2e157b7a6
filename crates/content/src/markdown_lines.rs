//! Line-by-line view of a Markdown file that knows which lines are code.
//!
//! Directives, README hint headings and the like are line-oriented, but a
//! `{{#quiz ...}}` or `## Hints` inside a fenced code block is an example, not
//! the real thing. This module finds fenced code blocks the way CommonMark
//! does (a run of at least three backticks or tildes, closed by a run of the
//! same character at least as long), so the line-oriented scanners skip them.

/// One line of a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first character in the file.
    pub start: usize,
    /// The line without its line ending.
    pub text: &'a str,
    /// True for a line in a fenced code block, including the fences themselves.
    pub in_code: bool,
}

/// An open code fence: its character and how many of them opened it.
struct Fence {
    marker: char,
    length: usize,
}

/// The fence a line opens or closes, if it is a fence line.
fn fence_of(line: &str) -> Option<Fence> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let marker = rest.chars().next().filter(|first| *first == '`' || *first == '~')?;
    let length = rest.chars().take_while(|character| *character == marker).count();
    if length < 3 {
        return None;
    }
    // A backtick fence's info string cannot contain backticks (CommonMark 4.5).
    if marker == '`' && rest[length..].contains('`') {
        return None;
    }
    Some(Fence { marker, length })
}

/// Splits a Markdown text into lines, marking those inside fenced code.
pub fn markdown_lines(text: &str) -> Vec<MarkdownLine<'_>> {
    let mut lines = Vec::new();
    let mut open: Option<Fence> = None;
    let mut start = 0;
    for (index, raw_line) in text.split_inclusive('\n').enumerate() {
        let line = raw_line.trim_end_matches('\n').trim_end_matches('\r');
        let fence = fence_of(line);
        let in_code = match (&open, fence) {
            (None, Some(fence)) => {
                open = Some(fence);
                true
            }
            (Some(current), Some(fence)) => {
                let closes = fence.marker == current.marker
                    && fence.length >= current.length
                    && line.trim().chars().all(|character| character == current.marker);
                if closes {
                    open = None;
                }
                true
            }
            (Some(_), None) => true,
            (None, None) => false,
        };
        lines.push(MarkdownLine { number: index + 1, start, text: line, in_code });
        start += raw_line.len();
    }
    lines
}

/// The byte index of `needle` in `line`, ignoring inline code spans
/// (`` `like this` ``), where authors quote syntax without meaning it.
pub fn find_outside_inline_code(line: &str, needle: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'`' {
            let run = bytes[index..].iter().take_while(|byte| **byte == b'`').count();
            if let Some(close) = closing_backticks(&line[index + run..], run) {
                index += run + close + run;
                continue;
            }
            index += run;
            continue;
        }
        if line[index..].starts_with(needle) {
            return Some(index);
        }
        index += line[index..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// Where a run of exactly `run` backticks starts in `rest`, if anywhere.
fn closing_backticks(rest: &str, run: usize) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'`' {
            let length = bytes[index..].iter().take_while(|byte| **byte == b'`').count();
            if length == run {
                return Some(index);
            }
            index += length;
        } else {
            index += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_fenced_lines_as_code() {
        let text = "a\n```js\n{{#quiz x}}\n```\nb\n~~~~\n```\n~~~~\nc";
        let code: Vec<(usize, bool)> = markdown_lines(text).iter().map(|line| (line.number, line.in_code)).collect();
        assert_eq!(
            code,
            [(1, false), (2, true), (3, true), (4, true), (5, false), (6, true), (7, true), (8, true), (9, false)]
        );
    }

    #[test]
    fn offsets_point_at_line_starts() {
        let text = "ab\r\ncd\n";
        let starts: Vec<(usize, &str)> = markdown_lines(text).iter().map(|line| (line.start, line.text)).collect();
        assert_eq!(starts, [(0, "ab"), (4, "cd")]);
    }

    #[test]
    fn skips_inline_code_spans() {
        for (line, expected) in [
            ("see {{#quiz a}}", Some(4)),
            ("write `{{#quiz a}}` alone", None),
            ("``{{#x`` then {{#y}}", Some(14)),
            ("unclosed ` {{#z}}", Some(11)),
        ] {
            assert_eq!(find_outside_inline_code(line, "{{#"), expected, "{line}");
        }
    }
}
