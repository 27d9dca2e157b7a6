//! Shrinking: from a failing case to a minimal one that still fails.
//!
//! Greedy and deterministic: try each smaller candidate in a fixed order,
//! keep the first that still fails, start again from it; stop when no
//! candidate fails or the attempt budget is spent. Candidates remove a
//! process ([`without_process`]), remove a fault, halve a pause or delay, and
//! calm the scheduler;
//! the grader adds its own (fewer rounds of work, shorter workloads).
//! Because latencies are hashed per call (see `rng.rs`), a candidate changes
//! only what it removes.

use crate::plan::{Fault, Plan, ProcessIndex, Scheduler};

/// The plan without process `removed`: its faults go, later processes move
/// up by one. (The grader removes the process's workload to match.)
pub fn without_process(plan: &Plan, removed: ProcessIndex) -> Plan {
    let renumber = |process: ProcessIndex| if process > removed { process - 1 } else { process };
    let mut smaller = plan.clone();
    smaller.processes = plan.processes.saturating_sub(1).max(1);
    smaller.faults.retain(|fault| fault.process() != removed);
    for fault in &mut smaller.faults {
        match fault {
            Fault::Pause { process, .. }
            | Fault::Crash { process, .. }
            | Fault::DelayRequest { process, .. }
            | Fault::DelayReply { process, .. }
            | Fault::ClockDrift { process, .. }
            | Fault::ClockJump { process, .. } => *process = renumber(*process),
        }
    }
    if let Scheduler::Priority { order, .. } = &mut smaller.scheduler {
        order.retain(|process| *process != removed);
        for process in order.iter_mut() {
            *process = renumber(*process);
        }
    }
    smaller
}

/// The plan's smaller neighbours that keep every process, most promising first.
pub fn plan_candidates(plan: &Plan) -> Vec<Plan> {
    let mut candidates = Vec::new();
    // Fewer faults.
    for index in 0..plan.faults.len() {
        let mut smaller = plan.clone();
        smaller.faults.remove(index);
        candidates.push(smaller);
    }
    // A plain scheduler.
    if plan.scheduler != Scheduler::Random {
        candidates.push(Plan { scheduler: Scheduler::Random, ..plan.clone() });
    }
    // Shorter faults.
    for index in 0..plan.faults.len() {
        let mut smaller = plan.clone();
        let shortened = match &mut smaller.faults[index] {
            Fault::Pause { duration_ms: amount, .. }
            | Fault::DelayRequest { extra_ms: amount, .. }
            | Fault::DelayReply { extra_ms: amount, .. }
            | Fault::ClockJump { forward_ms: amount, .. } => halve(amount),
            Fault::ClockDrift { percent, .. } => {
                let before = *percent;
                *percent /= 2;
                *percent != before
            }
            Fault::Crash { .. } => false,
        };
        if shortened {
            candidates.push(smaller);
        }
    }
    candidates
}

fn halve(amount: &mut u64) -> bool {
    if *amount <= 1 {
        return false;
    }
    *amount /= 2;
    true
}

/// The result of shrinking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk<C> {
    pub case: C,
    /// How many candidate runs were tried.
    pub attempts: u32,
    /// How many of them still failed and were kept.
    pub steps: u32,
}

/// Shrinks `case` while `fails` holds, trying at most `attempts_max` runs.
pub fn shrink<C: Clone>(
    case: C,
    attempts_max: u32,
    mut candidates: impl FnMut(&C) -> Vec<C>,
    mut fails: impl FnMut(&C) -> bool,
) -> Shrunk<C> {
    let mut current = case;
    let (mut attempts, mut steps) = (0, 0);
    'outer: loop {
        for candidate in candidates(&current) {
            if attempts >= attempts_max {
                break 'outer;
            }
            attempts += 1;
            if fails(&candidate) {
                current = candidate;
                steps += 1;
                continue 'outer;
            }
        }
        break;
    }
    Shrunk { case: current, attempts, steps }
}
