//! Diagrams: SVG files that the page inlines, so text in them is selectable
//! and they take the page's colours.

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
    if let Some(script_offset) = file.text.to_ascii_lowercase().find("<script") {
        diagnostics.error(
            "diagram-script",
            file.location(script_offset),
            "the diagram contains a `<script>`, which would run inside the lesson page",
            "remove the script; diagrams must be static",
        );
    }
    Diagram { path: relative.to_string(), svg: file.text.clone() }
}
