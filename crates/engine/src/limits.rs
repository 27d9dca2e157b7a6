//! Every limit of a run, and the words a learner reads when one ends it.
//! The same limits and words as the JavaScript runner's sandbox
//! (`runner/sandbox.js`, `DEFAULT_LIMITS` and `STOP_REASONS`).

use serde::{Deserialize, Serialize};

/// The limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    /// In interrupt-handler calls: QuickJS calls the handler about every
    /// 10,000 operations.
    pub step_budget: u32,
    /// JavaScript stack, in bytes.
    pub stack_bytes: u32,
    /// The wall-clock backstop per run (never reached by well-behaved code).
    pub wall_ms: u32,
    /// Promise jobs run between two store replies (a passing solution runs a
    /// few dozen; an `await` loop that never reaches the store runs them all).
    pub job_budget: u32,
    pub console_lines_max: u32,
    pub console_line_chars_max: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            step_budget: 300,
            stack_bytes: 128 * 1024,
            wall_ms: 5_000,
            job_budget: 10_000,
            console_lines_max: 300,
            console_line_chars_max: 500,
        }
    }
}

/// The sandbox's memory: QuickJS's whole heap lives in this many bytes.
pub const MEMORY_BYTES: usize = 32 * 1024 * 1024;

/// How many operations QuickJS runs between two calls of the interrupt handler.
pub const OPERATIONS_PER_INTERRUPT: u32 = 10_000;

/// Jobs run between two checks of the job budget and the clock.
pub const JOBS_PER_BATCH: u32 = 1_000;

/// Why a limit stopped the code, in the learner's terms.
pub mod reasons {
    use super::{Limits, MEMORY_BYTES, OPERATIONS_PER_INTERRUPT};

    pub fn steps(limits: &Limits) -> String {
        format!(
            "kept running without waiting for the store (more than {} steps in one go): an infinite loop?",
            u64::from(limits.step_budget) * u64::from(OPERATIONS_PER_INTERRUPT)
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
    fn the_words_are_the_javascript_runners() {
        let limits = Limits::default();
        assert_eq!(
            reasons::steps(&limits),
            "kept running without waiting for the store (more than 3000000 steps in one go): an infinite loop?"
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
}
