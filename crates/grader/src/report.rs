//! What a grading run reports: per test a status, a score, a one-line
//! message a learner understands, and for a failure the minimal
//! counterexample (its trace and replay token). Shown by the browser and the
//! command line alike; serialized with serde.

use serde::{Deserialize, Serialize};
use sim::{Ending, TraceEvent};

/// A broken rule, found in a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// A stable id, e.g. `unlock-only-own`.
    pub invariant: String,
    /// One sentence: what happened, who did it, when.
    pub message: String,
    /// Where in the trace it happened (the event that broke the rule).
    pub trace_index: Option<usize>,
    pub at_ms: u64,
    pub process: Option<u32>,
}

impl Violation {
    pub fn new(invariant: &str, message: String, trace_index: Option<usize>, at_ms: u64, process: Option<u32>) -> Self {
        Violation { invariant: invariant.into(), message, trace_index, at_ms, process }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Passed,
    Failed,
}

/// The minimal failing run, ready to show as a timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counterexample {
    /// Reproduces this exact run: `exercise:scenario:workload:plan`.
    pub replay_token: String,
    pub processes: u32,
    pub trace: Vec<TraceEvent>,
    pub ending: Ending,
    /// The violation, with `trace_index` pointing into `trace`.
    pub violation: Violation,
    /// How far shrinking got: trace events before and after.
    pub shrunk_from_events: usize,
    /// Each trace event in words (`timeline::event_words`), so that every
    /// host tells the story in the same sentences.
    #[serde(default)]
    pub words: Vec<crate::timeline::EventWords>,
    /// The events of a very long run that `trace` and `words` leave out
    /// (`crate::shown::shown_events`); the replay token reproduces them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<OmittedEvents>,
}

/// Events left out of the middle of a counterexample: `count` of them, after
/// the first `after` events that `trace` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OmittedEvents {
    pub after: usize,
    pub count: usize,
}

/// One test of a suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestReport {
    /// Stable and readable, e.g. "the TTL unlock bug" or "random schedules".
    pub name: String,
    pub status: Status,
    pub score: u32,
    pub max_score: u32,
    /// One line for the learner; empty when passed.
    pub message: String,
    /// How many runs this test made (1 for a scenario, N for random schedules).
    pub runs: u32,
    pub counterexample: Option<Counterexample>,
}

/// A whole exercise's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    pub exercise: String,
    /// The grader that made the verdicts (`registry::GRADER_VERSION`).
    #[serde(default)]
    pub grader_version: String,
    pub score: u32,
    pub max_score: u32,
    pub tests: Vec<TestReport>,
}

impl SuiteReport {
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|test| test.status == Status::Passed)
    }
}
