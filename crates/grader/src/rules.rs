//! What a rule is, as learners and authors see it.
//!
//! Each exercise keeps its rules in one table (`<exercise>/rules.rs`): the
//! checker names violations by these ids, the registry exports the table to
//! the page and the CLI, and `content check` holds each exercise's README
//! ("What the tests check") to it.

use serde::Serialize;

/// One rule of an exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The id a violation carries, e.g. `unlock-only-own`.
    pub id: &'static str,
    /// The rule in one sentence, addressed to the learner.
    pub statement: &'static str,
    /// Why it matters, in one sentence.
    pub why: &'static str,
}

/// The rule every exercise shares: the learner's code ran without throwing.
pub const NO_ERRORS: Rule = Rule {
    id: crate::grade::NO_ERRORS,
    statement: "Your functions do not throw, and every run finishes within the sandbox's limits.",
    why: "An exception or a runaway loop in an owner is an outage, not a neutral event.",
};

/// Looks a rule up by id in a table.
pub fn find(table: &'static [Rule], id: &str) -> Option<&'static Rule> {
    table.iter().find(|rule| rule.id == id)
}
