//! An exercise README's "What the tests check" section, held to the
//! grader's rule table for that exercise (`grader::registry::info(name).rules`).
//!
//! The table is the one source of truth: the checker names violations by its
//! ids, and the README must list exactly its rules, one list item each, as
//! ``- `rule-id`: statement`` with the table's statement word for word. A
//! rule missing from the README, a README rule the grader lacks, or a
//! statement that drifted from the table is an error at its line. Prose in
//! the section (for example what is deliberately not tested) is free.

use grader::rules::Rule;

use crate::diagnostic::{Diagnostics, SourceFile};
use crate::markdown_lines::markdown_lines;

/// The section's heading, a level-2 heading of its own.
pub const RULES_HEADING: &str = "## What the tests check";

/// One rule as the README lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed<'a> {
    id: &'a str,
    statement: &'a str,
    /// Byte offset of the item's line, for diagnostics.
    start: usize,
}

/// `- `id`: statement` → (id, statement), if the line is such an item.
fn rule_item(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("- `")?;
    let (id, rest) = rest.split_once('`')?;
    let statement = rest.strip_prefix(':')?.trim();
    Some((id, statement))
}

/// Checks the README of exercise `name` against `rules`.
pub fn check_rules_section(file: &SourceFile, name: &str, rules: &[Rule], diagnostics: &mut Diagnostics) {
    let mut heading = None;
    let mut listed: Vec<Listed> = Vec::new();
    let mut in_section = false;
    for line in markdown_lines(&file.text) {
        if line.in_code {
            continue;
        }
        if line.text.starts_with('#') {
            in_section = line.text.trim_end() == RULES_HEADING;
            if in_section {
                heading = Some(line.start);
            }
            continue;
        }
        if in_section {
            if let Some((id, statement)) = rule_item(line.text) {
                listed.push(Listed { id, statement, start: line.start });
            }
        }
    }
    let Some(heading) = heading else {
        diagnostics.error(
            "rules-section-missing",
            file.location(file.text.len()),
            format!("the README has no `{RULES_HEADING}` section, so learners cannot see the {} rules the grader checks", rules.len()),
            format!("add `{RULES_HEADING}` before `## Hints`, with one item ``- `id`: statement`` per rule of the {name} exercise's table (crates/grader/src/{name}/rules.rs)"),
        );
        return;
    };
    for (position, item) in listed.iter().enumerate() {
        if listed[..position].iter().any(|earlier| earlier.id == item.id) {
            diagnostics.error(
                "rule-listed-twice",
                file.location(item.start),
                format!("the rule `{}` is listed twice", item.id),
                "keep one item per rule",
            );
            continue;
        }
        match rules.iter().find(|rule| rule.id == item.id) {
            None => diagnostics.error(
                "unknown-rule",
                file.location(item.start),
                format!("the README lists the rule `{}`, which the {name} grader does not check", item.id),
                format!(
                    "remove it, or add it to crates/grader/src/{name}/rules.rs with a checker; the grader's rules are: {}",
                    rules.iter().map(|rule| rule.id).collect::<Vec<_>>().join(", ")
                ),
            ),
            Some(rule) if rule.statement != item.statement => diagnostics.error(
                "rule-statement-differs",
                file.location(item.start + 6 + item.id.len()),
                format!("the statement of `{}` differs from the grader's rule table", item.id),
                format!("write it as the table states it: {}", rule.statement),
            ),
            Some(_) => {}
        }
    }
    for rule in rules {
        if !listed.iter().any(|item| item.id == rule.id) {
            diagnostics.error(
                "rule-not-listed",
                file.location(heading),
                format!("the grader checks the rule `{}`, but the README does not list it", rule.id),
                format!("add the item: - `{}`: {}", rule.id, rule.statement),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &[Rule] = &[
        Rule { id: "one", statement: "First rule.", why: "." },
        Rule { id: "two", statement: "Second rule.", why: "." },
    ];

    fn problems(text: &str) -> Vec<String> {
        let file = SourceFile::new("x/README.md", text);
        let mut diagnostics = Diagnostics::default();
        check_rules_section(&file, "x", RULES, &mut diagnostics);
        diagnostics.into_sorted().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_section_listing_exactly_the_table_passes() {
        let text = "# T\n\n## What the tests check\n\n- `one`: First rule.\n- `two`: Second rule.\n\nNot tested: style.\n\n## Hints\n";
        assert_eq!(problems(text), Vec::<String>::new());
    }

    #[test]
    fn every_difference_is_an_error_at_its_line() {
        let cases = [
            ("# T\n", "x/README.md:2:1: error: the README has no `## What the tests check` section"),
            (
                "# T\n## What the tests check\n- `one`: First rule.\n",
                "x/README.md:2:1: error: the grader checks the rule `two`, but the README does not list it",
            ),
            (
                "# T\n## What the tests check\n- `one`: First rule.\n- `two`: Second rule.\n- `three`: Extra.\n",
                "x/README.md:5:1: error: the README lists the rule `three`, which the x grader does not check",
            ),
            (
                "# T\n## What the tests check\n- `one`: First rules.\n- `two`: Second rule.\n",
                "x/README.md:3:10: error: the statement of `one` differs from the grader's rule table",
            ),
            (
                "# T\n## What the tests check\n- `one`: First rule.\n- `one`: First rule.\n- `two`: Second rule.\n",
                "x/README.md:4:1: error: the rule `one` is listed twice",
            ),
        ];
        for (text, expected) in cases {
            let found = problems(text);
            assert_eq!(found.len(), 1, "{text:?}: {found:?}");
            assert!(found[0].starts_with(expected), "{text:?}: {}", found[0]);
        }
    }

    #[test]
    fn items_in_code_blocks_and_other_sections_do_not_count() {
        let text = "# T\n- `three`: elsewhere.\n## What the tests check\n```\n- `four`: code.\n```\n- `one`: First rule.\n- `two`: Second rule.\n";
        assert_eq!(problems(text), Vec::<String>::new());
    }
}
