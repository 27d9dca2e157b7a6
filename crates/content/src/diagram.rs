//! Diagrams: SVG files that the page inlines, so text in them is selectable
//! and they take the page's colours.
//!
//! Inlined SVG is part of the page's DOM, so anything in it that runs code
//! runs as the lesson page. The checker therefore refuses every way SVG can
//! carry script or another document: `<script>`, event-handler attributes
//! (`onload`, `onclick`, …), `javascript:` and `data:text/html` URLs, and the
//! elements that embed HTML or other documents (`<foreignObject>`,
//! `<iframe>`, `<object>`, `<embed>`). The scan reads tags the way the HTML
//! parser that inlines them does (names end at a space, `/` or `>`;
//! attributes are separated by spaces or `/`), and reads them everywhere,
//! comments included, rather than trust a guess at where a comment ends.

use serde::Serialize;

use crate::diagnostic::{Diagnostics, SourceFile};

/// One diagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagram {
    /// The file, relative to the lesson folder.
    pub path: String,
    /// The SVG markup.
    pub svg: String,
}

/// Elements that would put another document, or HTML with its own scripts
/// and forms, inside the page.
const EMBEDDING_ELEMENTS: &[&str] = &["foreignobject", "iframe", "object", "embed"];

/// URL schemes that run script or open a page the lesson does not control.
/// Compared after removing spaces and control characters, which URL parsers ignore.
const SCRIPT_URL_PREFIXES: &[&str] = &["javascript:", "vbscript:", "data:text/html"];

/// Reads a diagram and checks what inlining it needs: that it is SVG, that a
/// screen reader can name it, and that it runs no script inside the page.
pub fn read_diagram(relative: &str, file: &SourceFile, diagnostics: &mut Diagnostics) -> Diagram {
    match file.text.find("<svg") {
        None => diagnostics.error(
            "not-svg",
            file.location(0),
            "the diagram has no `<svg>` element",
            "export the diagram as SVG",
        ),
        Some(svg_offset) => {
            if !file.text.contains("<title") {
                diagnostics.error(
                    "diagram-no-title",
                    file.location(svg_offset),
                    "the diagram has no `<title>`, so screen readers cannot name it",
                    "add `<title>What the diagram shows</title>` as the first child of `<svg>` (and a `<desc>` for the details)",
                );
            }
        }
    }
    check_static(file, diagnostics);
    Diagram { path: relative.to_string(), svg: file.text.clone() }
}

/// One start tag: where it begins, its name and its attributes.
struct Tag<'a> {
    offset: usize,
    /// The name as written, e.g. `foreignObject` or `svg:script`.
    name: &'a str,
    attributes: Vec<Attribute<'a>>,
}

/// One attribute of a start tag.
struct Attribute<'a> {
    offset: usize,
    name: &'a str,
    /// The value without its quotes, character references not yet decoded.
    value: &'a str,
}

/// Reports everything in the diagram that would run script or embed another
/// document once the page inlines it, each at its own line and column.
fn check_static(file: &SourceFile, diagnostics: &mut Diagnostics) {
    for tag in start_tags(&file.text) {
        // `svg:script` is a script to an XML parser; judge the local name.
        let local_name = tag.name.rsplit(':').next().unwrap_or(tag.name).to_ascii_lowercase();
        if local_name == "script" {
            diagnostics.error(
                "diagram-script",
                file.location(tag.offset),
                format!("the diagram contains a `<{}>`, which would run inside the lesson page", tag.name),
                "remove the script; diagrams must be static",
            );
        } else if EMBEDDING_ELEMENTS.contains(&local_name.as_str()) {
            diagnostics.error(
                "diagram-embedded-content",
                file.location(tag.offset),
                format!(
                    "the diagram contains `<{}>`, which puts HTML or another document, and any script in it, inside the lesson page",
                    tag.name
                ),
                "draw it with SVG shapes and `<text>` instead; diagrams must be static",
            );
        }
        for attribute in &tag.attributes {
            let attribute_local = attribute.name.rsplit(':').next().unwrap_or(attribute.name);
            if attribute.name.to_ascii_lowercase().starts_with("on")
                || attribute_local.to_ascii_lowercase().starts_with("on")
            {
                diagnostics.error(
                    "diagram-event-handler",
                    file.location(attribute.offset),
                    format!(
                        "`{}` on `<{}>` is an event handler, whose code would run inside the lesson page",
                        attribute.name, tag.name
                    ),
                    "remove the attribute; diagrams must be static (a hover effect can be CSS in the diagram's `<style>`)",
                );
            } else if let Some(scheme) = script_url(attribute.value) {
                diagnostics.error(
                    "diagram-script-url",
                    file.location(attribute.offset),
                    format!(
                        "`{}` on `<{}>` holds a `{scheme}` URL, which would run script or open a page of its own from the lesson page",
                        attribute.name, tag.name
                    ),
                    "link to an `https:` page or a `#fragment`, or remove the attribute; diagrams must be static",
                );
            }
        }
    }
}

/// The script-running scheme an attribute value starts with, if any. Each
/// `;`-separated part is read, since `<animate values="…">` and `<set to="…">`
/// can set an `href` to any of them.
fn script_url(value: &str) -> Option<&'static str> {
    let decoded = decode_character_references(value);
    decoded.split(';').find_map(|part| {
        // URL parsers drop tabs and newlines anywhere and spaces and controls at the ends.
        let compact: String =
            part.chars().filter(|character| !character.is_ascii_whitespace() && !character.is_control()).collect();
        let compact = compact.to_ascii_lowercase();
        SCRIPT_URL_PREFIXES.iter().copied().find(|prefix| compact.starts_with(prefix))
    })
}

/// Decodes the character references an HTML parser decodes in attribute
/// values and that could spell a scheme (`&#106;avascript&colon;`): numeric
/// ones, with or without their `;`, and the named ones for punctuation and space.
fn decode_character_references(value: &str) -> String {
    const NAMED: &[(&str, char)] = &[("colon;", ':'), ("tab;", '\t'), ("newline;", '\n'), ("amp;", '&'), ("sol;", '/')];
    let mut decoded = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(ampersand) = rest.find('&') {
        decoded.push_str(&rest[..ampersand]);
        rest = &rest[ampersand + 1..];
        if let Some(number) = rest.strip_prefix('#') {
            let (digits, radix) = match number.strip_prefix(['x', 'X']) {
                Some(hex) => (hex, 16),
                None => (number, 10),
            };
            let length = digits.chars().take_while(|digit| digit.is_digit(radix)).count();
            // Leading zeros do not change the character (`&#0000106;` is `j`); past eight digits none is valid.
            let significant = digits[..length].trim_start_matches('0');
            let code = if length == 0 || significant.len() > 8 {
                None
            } else {
                u32::from_str_radix(if significant.is_empty() { "0" } else { significant }, radix).ok()
            };
            if let Some(character) = code.and_then(char::from_u32) {
                decoded.push(character);
                let after = &digits[length..];
                rest = after.strip_prefix(';').unwrap_or(after);
                continue;
            }
        } else if let Some((name, character)) = NAMED
            .iter()
            .find(|(name, _)| rest.get(..name.len()).is_some_and(|written| written.eq_ignore_ascii_case(name)))
        {
            decoded.push(*character);
            rest = &rest[name.len()..];
            continue;
        }
        decoded.push('&');
    }
    decoded.push_str(rest);
    decoded
}

/// Every start tag in `text`: a `<` followed by an ASCII letter, as the HTML
/// parser reads one, up to its closing `>` (or the end of the file).
fn start_tags(text: &str) -> Vec<Tag<'_>> {
    let bytes = text.as_bytes();
    let is_space = |byte: u8| matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    let mut tags = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] != b'<' || !bytes.get(index + 1).is_some_and(u8::is_ascii_alphabetic) {
            index += 1;
            continue;
        }
        let offset = index;
        index += 1;
        let name_start = index;
        while index < bytes.len() && !is_space(bytes[index]) && bytes[index] != b'/' && bytes[index] != b'>' {
            index += 1;
        }
        let name = &text[name_start..index];
        let mut attributes = Vec::new();
        loop {
            while index < bytes.len() && (is_space(bytes[index]) || bytes[index] == b'/') {
                index += 1;
            }
            if index >= bytes.len() || bytes[index] == b'>' {
                break;
            }
            let attribute_start = index;
            // The first character may be `=` (HTML keeps it in the name); the name ends where the next space, `/`, `>` or `=` is.
            index += 1;
            while index < bytes.len() && !is_space(bytes[index]) && !matches!(bytes[index], b'/' | b'>' | b'=') {
                index += 1;
            }
            let attribute_name = &text[attribute_start..index];
            let mut after_name = index;
            while after_name < bytes.len() && is_space(bytes[after_name]) {
                after_name += 1;
            }
            let mut value = "";
            if bytes.get(after_name) == Some(&b'=') {
                index = after_name + 1;
                while index < bytes.len() && is_space(bytes[index]) {
                    index += 1;
                }
                match bytes.get(index) {
                    Some(&quote @ (b'"' | b'\'')) => {
                        let value_start = index + 1;
                        let value_end =
                            text[value_start..].find(quote as char).map_or(bytes.len(), |end| value_start + end);
                        value = &text[value_start..value_end];
                        index = (value_end + 1).min(bytes.len());
                    }
                    _ => {
                        let value_start = index;
                        while index < bytes.len() && !is_space(bytes[index]) && bytes[index] != b'>' {
                            index += 1;
                        }
                        value = &text[value_start..index];
                    }
                }
            }
            attributes.push(Attribute { offset: attribute_start, name: attribute_name, value });
        }
        tags.push(Tag { offset, name, attributes });
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The problems the checker reports for `svg`, one `line:col rule` each.
    fn problems(svg: &str) -> Vec<String> {
        let file = SourceFile::new("d.svg", svg);
        let mut diagnostics = Diagnostics::default();
        read_diagram("d.svg", &file, &mut diagnostics);
        diagnostics
            .into_sorted()
            .iter()
            .map(|diagnostic| format!("{}:{} {}", diagnostic.line, diagnostic.column, diagnostic.rule))
            .collect()
    }

    const HEAD: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\"><title>T</title>\n";

    #[test]
    fn static_diagrams_pass() {
        for body in [
            "<a href=\"https://etcd.io\"><text>etcd</text></a>",
            "<a href=\"#part\" xlink:href=\"#part\">x</a>",
            "<image href=\"data:image/png;base64,AAAA\"/>",
            "<rect opacity=\"0.5\" class=\"one\"/>",
            "<text aria-label=\"never use javascript: urls\">no</text>",
            "<desc>No <b>script</b> here: onload=x is text, and so is javascript:x</desc>",
            "<style>.objects { fill: red }</style><g id=\"embedded\"/>",
        ] {
            assert_eq!(problems(&format!("{HEAD}{body}\n</svg>")), Vec::<String>::new(), "{body}");
        }
    }

    /// Each way of running code from inlined SVG, case-insensitively, at the
    /// line and column of the tag or attribute that does it.
    #[test]
    fn anything_that_runs_code_is_refused() {
        for (body, expected) in [
            ("<script>alert(1)</script>", "2:1 diagram-script"),
            ("<SCRIPT src=\"x.js\"/>", "2:1 diagram-script"),
            ("<svg:script>alert(1)</svg:script>", "2:1 diagram-script"),
            ("  <g onload=\"alert(1)\"/>", "2:6 diagram-event-handler"),
            ("<g/OnClick=alert(1)>", "2:4 diagram-event-handler"),
            ("<animate onbegin='x()'/>", "2:10 diagram-event-handler"),
            ("<a href=\"javascript:alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a xlink:href=\" JavaScript:alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a href=\"java\tscript:alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a href=\"&#106;avascript&colon;alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a href=\"&#x6A;avascript:alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a href=\"&#0000000106avascript:alert(1)\">x</a>", "2:4 diagram-script-url"),
            ("<a href=javascript:alert(1)>x</a>", "2:4 diagram-script-url"),
            ("<image src=\"data:text/html,<b>x</b>\"/>", "2:8 diagram-script-url"),
            ("<set attributeName=\"href\" to=\"javascript:alert(1)\"/>", "2:27 diagram-script-url"),
            ("<animate values=\"#a;javascript:alert(1)\"/>", "2:10 diagram-script-url"),
            ("<foreignObject><p>x</p></foreignObject>", "2:1 diagram-embedded-content"),
            ("<FOREIGNOBJECT/>", "2:1 diagram-embedded-content"),
            ("<iframe src=\"https://example.com\"></iframe>", "2:1 diagram-embedded-content"),
            ("<object data=\"x.svg\"></object>", "2:1 diagram-embedded-content"),
            ("<embed src=\"x.svg\"/>", "2:1 diagram-embedded-content"),
            ("<!-- <script>old</script> -->", "2:6 diagram-script"),
        ] {
            assert_eq!(problems(&format!("{HEAD}{body}\n</svg>")), [expected], "{body}");
        }
    }

    #[test]
    fn the_svg_element_itself_is_checked_and_every_problem_reported() {
        let svg = "<svg onload=\"alert(1)\"><title>T</title>\n<foreignObject><iframe src=\"javascript:x\"/></foreignObject>\n</svg>";
        assert_eq!(
            problems(svg),
            [
                "1:6 diagram-event-handler",
                "2:1 diagram-embedded-content",
                "2:16 diagram-embedded-content",
                "2:24 diagram-script-url"
            ]
        );
    }

    #[test]
    fn messages_say_what_to_do() {
        let file =
            SourceFile::new("d.svg", format!("{HEAD}<a href=\"javascript:alert(1)\" onclick=\"x()\">x</a></svg>"));
        let mut diagnostics = Diagnostics::default();
        read_diagram("d.svg", &file, &mut diagnostics);
        let lines: Vec<String> = diagnostics.into_sorted().iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "d.svg:2:4: error: `href` on `<a>` holds a `javascript:` URL, which would run script or open a page of its own from the lesson page; link to an `https:` page or a `#fragment`, or remove the attribute; diagrams must be static",
                "d.svg:2:31: error: `onclick` on `<a>` is an event handler, whose code would run inside the lesson page; remove the attribute; diagrams must be static (a hover effect can be CSS in the diagram's `<style>`)",
            ]
        );
    }
}
