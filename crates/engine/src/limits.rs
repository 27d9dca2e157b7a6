//! Every limit of a run, and the words a learner reads when one ends it.
//!
//! A step is what the code runs between two waits: from the moment the
//! simulation resumes it (a process starts, a store call is answered, a
//! sleep ends) until every one of its promise jobs has run and it waits
//! again. The step budget bounds one step; the run budget bounds a whole
//! test run, so that a verdict never depends on how fast the host is.

use serde::{Deserialize, Serialize};

/// The limits of one run. A host may leave any field out for its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Limits {
    /// Interrupt-handler calls in one step (QuickJS calls the handler
    /// about every [`OPERATIONS_PER_INTERRUPT`] operations).
    pub step_budget: u32,
    /// Interrupt-handler calls in one whole run.
    pub run_budget: u32,
    /// Bytes the code may ask of the allocator in one run, however many it
    /// gives back: the work built-ins do (`repeat`, `join`, …) is counted
    /// here, since they run few operations.
    pub run_allocation_bytes: u64,
    /// Stack, in bytes: QuickJS's own frames on wasm's shadow stack plus
    /// each C function's native frame on the host, as the build estimates
    /// it (xtask's `host_stack`).
    pub stack_bytes: u32,
    /// The wall-clock backstop per run (never reached by well-behaved code).
    pub wall_ms: u32,
    /// Promise jobs in one step (a passing solution runs a few dozen; an
    /// `await` loop that never reaches the store runs them all).
    pub job_budget: u32,
    pub console_lines_max: u32,
    pub console_line_chars_max: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            step_budget: 300,
            run_budget: 10_000,
            run_allocation_bytes: 512 << 20,
            stack_bytes: STACK_BYTES,
            wall_ms: 5_000,
            job_budget: 10_000,
            console_lines_max: 300,
            console_line_chars_max: 500,
        }
    }
}

/// The stack a run may use. The smallest host, a Chromium Web Worker, ran
/// out of its native stack at 533 KiB or more of this measure in every
/// deep program tried (BENCHMARKS.md, "The stack budget"); 384 KiB keeps
/// the engine's own check first, with room to spare, and lets a plain
/// function recurse about 700 calls deep.
pub const STACK_BYTES: u32 = 384 * 1024;

/// The sandbox's memory: QuickJS's whole heap lives in this many bytes.
pub const MEMORY_BYTES: usize = 32 * 1024 * 1024;

/// How many operations QuickJS runs between two calls of the interrupt handler.
pub const OPERATIONS_PER_INTERRUPT: u32 = 10_000;

/// Jobs run between two checks of the job budget and the clock.
pub const JOBS_PER_BATCH: u32 = 1_000;

/// Why a limit stopped the code, in the learner's terms.
pub mod reasons {
    use super::{Limits, MEMORY_BYTES, OPERATIONS_PER_INTERRUPT};

    fn operations(interrupts: u32) -> u64 {
        u64::from(interrupts) * u64::from(OPERATIONS_PER_INTERRUPT)
    }

    pub fn steps(limits: &Limits) -> String {
        format!(
            "kept running without waiting for the store (more than {} operations since it last waited): an infinite loop?",
            operations(limits.step_budget)
        )
    }

    pub fn run(limits: &Limits) -> String {
        format!(
            "ran more than {} operations in one test run: does it do far more work than the test needs, or loop while it waits?",
            operations(limits.run_budget)
        )
    }

    pub fn allocation(limits: &Limits) -> String {
        format!(
            "allocated more than {} MiB of memory in one test run, however much of it was given back: does it build something big again and again?",
            limits.run_allocation_bytes / (1024 * 1024)
        )
    }

    pub fn jobs(limits: &Limits) -> String {
        format!(
            "kept running without waiting for the store: it ran more than {} promise jobs (awaits of values that were already settled) in a row; does a loop await something other than a store call or ctx.sleep?",
            limits.job_budget
        )
    }

    pub fn wall(limits: &Limits) -> String {
        let seconds = f64::from(limits.wall_ms) / 1000.0;
        format!("ran for more than {seconds} s of real time in one test run")
    }

    pub fn memory() -> String {
        format!(
            "used more than {} MiB of memory: does something keep growing (an array, a string, a Map)?",
            MEMORY_BYTES / (1024 * 1024)
        )
    }

    pub fn stack() -> String {
        "recursed too deeply, or built a value nested too deeply (stack overflow): does a function call itself with no case that stops it?".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_name_each_limit_as_it_is_counted() {
        let limits = Limits::default();
        assert_eq!(
            reasons::steps(&limits),
            "kept running without waiting for the store (more than 3000000 operations since it last waited): an infinite loop?"
        );
        assert_eq!(
            reasons::run(&limits),
            "ran more than 100000000 operations in one test run: does it do far more work than the test needs, or loop while it waits?"
        );
        assert_eq!(reasons::wall(&limits), "ran for more than 5 s of real time in one test run");
        assert_eq!(
            reasons::wall(&Limits { wall_ms: 1500, ..limits }),
            "ran for more than 1.5 s of real time in one test run"
        );
        assert_eq!(
            reasons::memory(),
            "used more than 32 MiB of memory: does something keep growing (an array, a string, a Map)?"
        );
    }

    /// The build traps a run that goes this far below the shadow stack's
    /// start (xtask's host_stack, FLOOR_BYTES): the budget, and 64 KiB for
    /// the host's and the grader's frames above QuickJS's own.
    #[test]
    fn the_stack_floor_lies_just_below_the_budget() {
        let host_stack = include_str!("../../../xtask/src/host_stack.rs");
        let line = format!("pub const FLOOR_BYTES: u32 = {} * 1024;", STACK_BYTES / 1024 + 64);
        assert!(host_stack.contains(&line), "xtask/src/host_stack.rs must say `{line}`");
    }

    #[test]
    fn a_host_may_name_only_the_limits_it_changes() {
        let limits: Limits = serde_json::from_str(r#"{"wallMs": 1000}"#).expect("a partial set of limits");
        assert_eq!(limits, Limits { wall_ms: 1000, ..Limits::default() });
        assert!(serde_json::from_str::<Limits>(r#"{"stepsBudget": 1}"#).is_err(), "an unknown limit is refused");
    }
}
