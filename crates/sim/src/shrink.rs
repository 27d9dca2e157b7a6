//! Shrinking: from a failing case to a minimal one that still fails.
//!
//! Greedy and deterministic: try the smaller candidates in a fixed order,
//! keep the first that still fails, go on from it (see [`shrink`]); stop when
//! no candidate fails or the attempt budget is spent. Candidates remove a
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

/// A case's smaller neighbours, in the order they are tried.
pub struct Candidates<C> {
    /// The big cuts (a process less): tried first in every round, so a story
    /// loses every process it can before it loses anything else (fewer
    /// processes make the easier story).
    pub first: Vec<C>,
    /// The rest (less work, a fault less, a fault shorter), tried from where
    /// the last round kept one (see [`shrink`]).
    pub rest: Vec<C>,
}

/// Shrinks `case` while `fails` holds, trying at most `attempts_max` runs.
///
/// Each round tries the `first` candidates, then the `rest` from the place
/// where the last round kept one of them, wrapping around, rather than from
/// their start: the candidates before it were just tried and did not fail,
/// and mostly still would not (removing fault 7 rarely makes removing fault
/// 2 fail), so starting over spent most of a shrink's runs on them; and a
/// halving that was kept is tried again at once. The search ends after a
/// round in which no candidate fails, so the result is as minimal as ever.
pub fn shrink<C: Clone>(
    case: C,
    attempts_max: u32,
    mut candidates: impl FnMut(&C) -> Candidates<C>,
    mut fails: impl FnMut(&C) -> bool,
) -> Shrunk<C> {
    let mut current = case;
    let (mut attempts, mut steps) = (0, 0);
    // Where in the current case's `rest` the next round goes on.
    let mut resume_at = 0;
    'outer: loop {
        let Candidates { first, rest } = candidates(&current);
        let in_rest = (0..rest.len()).map(|offset| (resume_at + offset) % rest.len());
        let order =
            first.iter().map(|candidate| (candidate, None)).chain(in_rest.map(|index| (&rest[index], Some(index))));
        for (candidate, index) in order {
            if attempts >= attempts_max {
                break 'outer;
            }
            attempts += 1;
            if fails(candidate) {
                current = candidate.clone();
                steps += 1;
                if let Some(index) = index {
                    resume_at = index;
                }
                continue 'outer;
            }
        }
        break;
    }
    Shrunk { case: current, attempts, steps }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Removing one number at a time, while the numbers still hold both 3 and 17.
    fn shrink_numbers(first_cuts: bool) -> Shrunk<Vec<u32>> {
        let without = |numbers: &Vec<u32>, index: usize| {
            let mut smaller = numbers.clone();
            smaller.remove(index);
            smaller
        };
        shrink(
            (0..20).collect::<Vec<u32>>(),
            400,
            |numbers| {
                let all: Vec<Vec<u32>> = (0..numbers.len()).map(|index| without(numbers, index)).collect();
                if first_cuts {
                    // The upper half at once, as a big cut.
                    let half: Vec<u32> = numbers.iter().copied().filter(|&number| number < 10).collect();
                    Candidates { first: if half.len() < numbers.len() { vec![half] } else { vec![] }, rest: all }
                } else {
                    Candidates { first: vec![], rest: all }
                }
            },
            |numbers| numbers.contains(&3) && numbers.contains(&17),
        )
    }

    #[test]
    fn the_result_is_minimal_and_the_search_goes_on_where_it_was() {
        let shrunk = shrink_numbers(false);
        assert_eq!(shrunk.case, vec![3, 17]);
        assert_eq!(shrunk.steps, 18);
        // Starting each round over would try 3 (and later 17) again after every
        // kept removal: 37 attempts. Going on from the last kept place: 22.
        assert_eq!(shrunk.attempts, 22);
    }

    #[test]
    fn big_cuts_that_do_not_fail_are_tried_in_every_round_and_never_kept() {
        let shrunk = shrink_numbers(true);
        assert_eq!(shrunk.case, vec![3, 17]);
        // The same 22 attempts, and the half (it drops 17) tried first in each
        // of the 19 rounds: the 18 that kept a removal and the last.
        assert_eq!(shrunk.attempts, 22 + 19);
    }
}
