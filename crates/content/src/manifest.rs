//! `lesson.toml`: the lesson's title, summary and the order of its sections.

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostics, Location, SourceFile};
use crate::files::check_inside_lesson;
use crate::toml_reader::{parse_document, TableView};

/// The fields of `lesson.toml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Manifest {
    /// The lesson's title.
    pub title: String,
    /// One or two sentences on what the lesson teaches.
    pub summary: String,
    /// Where the material comes from, if it is adapted.
    pub source: Option<String>,
    /// Whether every quiz answer must carry an explanation.
    pub require_explanations: bool,
    /// The section files in reading order, each with where it is listed.
    pub sections: Vec<(String, Location)>,
}

const MANIFEST_KEYS: &[&str] = &["title", "summary", "source", "require_explanations", "sections"];

/// Reads `lesson.toml`, reporting every problem. Fields that could not be
/// read keep their defaults, so the rest of the lesson can still be checked.
pub fn read_manifest(file: &SourceFile, diagnostics: &mut Diagnostics) -> Manifest {
    let mut manifest = Manifest::default();
    let Some(document) = parse_document(file, diagnostics) else {
        return manifest;
    };
    let root = TableView::root(file, document.get_ref(), "lesson.toml");
    root.check_keys(MANIFEST_KEYS, diagnostics);
    for key in ["title", "summary"] {
        let Some(text) = root.string(key, true, diagnostics) else {
            continue;
        };
        if text.text.trim().is_empty() {
            diagnostics.error(
                "empty-text",
                file.location_of(&text.span),
                format!("`{key}` in lesson.toml is empty"),
                format!("write the lesson's {key}"),
            );
        }
        if key == "title" {
            manifest.title = text.text;
        } else {
            manifest.summary = text.text;
        }
    }
    manifest.source = root.string("source", false, diagnostics).map(|source| source.text);
    manifest.require_explanations = root.boolean("require_explanations", false, diagnostics).unwrap_or(false);

    let Some(sections) = root.string_array("sections", true, diagnostics) else {
        return manifest;
    };
    if sections.is_empty() {
        diagnostics.error(
            "missing-field",
            file.location_of(&root.span_of("sections")),
            "`sections` in lesson.toml is empty",
            "list the section files in reading order, e.g. `sections = [\"01-intro.md\"]`",
        );
    }
    let mut first_listed: BTreeMap<String, Location> = BTreeMap::new();
    for section in sections {
        let location = file.location_of(&section.span);
        if let Some(first) = first_listed.get(&section.text) {
            diagnostics.error(
                "duplicate-section",
                location,
                format!("`{}` is listed twice in `sections` (first at {first})", section.text),
                "list each section once",
            );
            continue;
        }
        if !section.text.ends_with(".md") {
            diagnostics.error(
                "invalid-value",
                location,
                format!("the section `{}` is not a Markdown file", section.text),
                "list `.md` files in `sections`",
            );
            continue;
        }
        if !check_inside_lesson(&section.text, &location, diagnostics) {
            continue;
        }
        first_listed.insert(section.text.clone(), location.clone());
        manifest.sections.push((section.text, location));
    }
    manifest
}
