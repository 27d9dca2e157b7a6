//! Markdown to HTML, with directives swapped for placeholder elements.
//!
//! Each directive line becomes `<div class="embed" data-kind="KIND"
//! data-src="ARGUMENT"></div>`, surrounded by blank lines so CommonMark reads
//! it as a raw HTML block that ends right after it, whatever the author put
//! around the directive. The browser fills the placeholder; the page already
//! shows all text before any script runs.

use pulldown_cmark::{html, Options, Parser};

use crate::directive::{Directive, DirectiveKind};

/// The Markdown extensions lessons use: GitHub-style tables and strikethrough.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Renders Markdown to HTML. Fenced code gets `class="language-LANG"` from its info string.
pub fn to_html(markdown: &str) -> String {
    let mut output = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut output, Parser::new_ext(markdown, markdown_options()));
    output
}

/// Renders a short Markdown text (a quiz option, an explanation) without the
/// `<p>` that would wrap a single paragraph, so it can sit inside a button or label.
pub fn to_inline_html(markdown: &str) -> String {
    let rendered = to_html(markdown);
    let trimmed = rendered.trim_end();
    if let Some(inner) = trimmed.strip_prefix("<p>").and_then(|rest| rest.strip_suffix("</p>")) {
        if !inner.contains("<p>") {
            return inner.to_string();
        }
    }
    trimmed.to_string()
}

/// Escapes text for use inside a double-quoted HTML attribute.
pub fn escape_attribute(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '"' => escaped.push_str("&quot;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// The placeholder element a directive becomes.
pub fn embed_placeholder(kind: DirectiveKind, source: &str) -> String {
    format!("<div class=\"embed\" data-kind=\"{}\" data-src=\"{}\"></div>", kind.name(), escape_attribute(source))
}

/// Renders a section, replacing each directive's line with its placeholder.
pub fn section_to_html(markdown: &str, directives: &[Directive]) -> String {
    let mut source = String::with_capacity(markdown.len() + directives.len() * 80);
    for (index, line) in markdown.split_inclusive('\n').enumerate() {
        match directives.iter().find(|directive| directive.line == index + 1) {
            Some(directive) => {
                source.push('\n');
                source.push_str(&embed_placeholder(directive.kind, &directive.argument));
                source.push_str("\n\n");
            }
            None => source.push_str(line),
        }
    }
    to_html(&source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_carry_their_language() {
        assert_eq!(
            to_html("```js\nlet x = 1 < 2;\n```\n"),
            "<pre><code class=\"language-js\">let x = 1 &lt; 2;\n</code></pre>\n"
        );
    }

    #[test]
    fn directives_become_placeholders_even_inside_paragraph_text() {
        let directive =
            Directive { kind: DirectiveKind::Quiz, argument: "quizzes/a&b.toml".to_string(), line: 2, column: 1 };
        assert_eq!(
            section_to_html("Before\n{{#quiz quizzes/a&b.toml}}\nafter\n", &[directive]),
            "<p>Before</p>\n<div class=\"embed\" data-kind=\"quiz\" data-src=\"quizzes/a&amp;b.toml\"></div>\n<p>after</p>\n"
        );
    }

    #[test]
    fn inline_html_unwraps_one_paragraph_only() {
        assert_eq!(to_inline_html("Use `cas` *now*."), "Use <code>cas</code> <em>now</em>.");
        assert_eq!(to_inline_html("One.\n\nTwo."), "<p>One.</p>\n<p>Two.</p>");
    }
}
