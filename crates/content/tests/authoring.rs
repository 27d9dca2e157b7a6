//! AUTHORING.md is where the checker's messages send authors: every section
//! a message names must exist, and every rule id the checker reports must be
//! documented there.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn authoring() -> String {
    fs::read_to_string(crate_dir().join("../../AUTHORING.md")).expect("AUTHORING.md is at the repository root")
}

/// The checker's sources, without their `#[cfg(test)]` modules, each with its path.
fn sources() -> Vec<(PathBuf, String)> {
    let mut folders = vec![crate_dir().join("src")];
    let mut found = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
                found.push((path, code));
            }
        }
    }
    found.sort();
    assert!(found.len() > 10, "the checker's sources were not found under {}", crate_dir().display());
    found
}

/// The text after each occurrence of `marker` up to the next `"`.
fn quoted_after<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.match_indices(marker)
        .map(|(index, _)| {
            let rest = &text[index + marker.len()..];
            &rest[..rest.find('"').unwrap_or(rest.len())]
        })
        .collect()
}

#[test]
fn sections_that_messages_name_exist() {
    let headings: Vec<String> = authoring()
        .lines()
        .filter(|line| line.starts_with('#'))
        .map(|line| line.trim_start_matches('#').trim().to_string())
        .collect();
    let mut named = 0;
    for (path, code) in sources() {
        // Messages write `(see AUTHORING.md, "Section")`, the quotes escaped in Rust's string.
        for section in quoted_after(&code, "AUTHORING.md, \\\"") {
            let section = section.trim_end_matches('\\');
            named += 1;
            assert!(
                headings.iter().any(|heading| heading == section),
                "{} sends authors to AUTHORING.md, \"{section}\", which has no such heading (it has {headings:?})",
                path.display()
            );
        }
    }
    assert!(named > 0, "no message names a section of AUTHORING.md; is the pattern still `AUTHORING.md, \\\"…\\\"`?");
}

#[test]
fn every_rule_id_is_documented() {
    let authoring = authoring();
    let mut rules = BTreeMap::new();
    for (path, code) in sources() {
        // Every diagnostic is `….error("rule-id", …)`, the id a literal first argument.
        for (index, _) in code.match_indices(".error(") {
            let rest = code[index + ".error(".len()..].trim_start();
            let Some(literal) = rest.strip_prefix('"') else {
                continue;
            };
            let rule = &literal[..literal.find('"').unwrap()];
            rules.entry(rule.to_string()).or_insert_with(|| path.clone());
        }
    }
    assert!(rules.len() > 30, "found only {} rule ids; is the pattern still `.error(\"rule-id\", …)`?", rules.len());
    let undocumented: Vec<String> = rules
        .iter()
        .filter(|(rule, _)| !authoring.contains(&format!("`{rule}`")))
        .map(|(rule, path)| format!("`{rule}` ({})", path.display()))
        .collect();
    assert!(
        undocumented.is_empty(),
        "AUTHORING.md's table of rules (\"What the checker checks\") does not list {}; add each to its row",
        undocumented.join(", ")
    );
}
