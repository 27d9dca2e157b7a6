//! The exercises' suites and the grading machinery.
//!
//! The design decision: grading is generic over the submission. An exercise
//! ([`grade::Exercise`]) lists its cases and checks a finished run's trace;
//! a submission is any function from a case to an execution. So the same
//! suites and the same checkers grade the Rust reference solutions, the
//! known-buggy variants, and the learner's JavaScript, and give the same
//! verdicts for the same trace.

pub mod cas;
pub mod dynamic;
pub mod election;
pub mod fencing;
pub mod grade;
pub mod lease;
pub mod lock;
pub mod registry;
pub mod report;
pub mod rules;
pub mod shown;
pub mod timeline;
pub mod waiting;

pub use grade::{
    case_from_token, grade, grade_part, grade_part_with, replay_token, Case, Execution, Exercise, GradeOptions,
    Scenario, ScenarioPart, TestEvent,
};
pub use report::{Counterexample, Status, SuiteReport, TestReport, Violation};
