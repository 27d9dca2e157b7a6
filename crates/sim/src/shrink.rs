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
        *fault = fault.renumbered(renumber(fault.process()));
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

/// Whether shrinking could have made `smaller` from `original`: the same
/// seed and latency range, some of its processes (in their order, renumbered
/// as [`without_process`] does), some of their faults, each as planned or
/// with its amount halved as [`plan_candidates`] halves it, and the original
/// scheduler or the plain one. A replay token is checked against the plan of
/// the test it names, so that a hand-made one cannot show a run under faults
/// that the exercise never plans; `Err` names the first part that no
/// shrinking gives.
pub fn check_shrunk_from(original: &Plan, smaller: &Plan) -> Result<(), String> {
    let never = "a replay token made by the grader never has that";
    if smaller.seed != original.seed {
        return Err(format!("the token's seed {:x} is not this test's ({:x}); {never}", smaller.seed, original.seed));
    }
    if smaller.processes > original.processes {
        return Err(format!(
            "the token asks for {} processes; this test runs {}, and shrinking only removes processes; {never}",
            smaller.processes, original.processes
        ));
    }
    if (smaller.latency_min_ms, smaller.latency_max_ms) != (original.latency_min_ms, original.latency_max_ms) {
        return Err(format!(
            "the token's latency range {}-{} ms is not this test's ({}-{} ms); {never}",
            smaller.latency_min_ms, smaller.latency_max_ms, original.latency_min_ms, original.latency_max_ms
        ));
    }
    if let Scheduler::Priority { change_points_ms, bias_ms, .. } = &smaller.scheduler {
        let same = matches!(&original.scheduler, Scheduler::Priority { change_points_ms: points, bias_ms: bias, .. }
            if points == change_points_ms && bias == bias_ms);
        if !same {
            return Err(format!(
                "the token's scheduler `{}` is not this test's, nor the plain random one shrinking gives it; {never}",
                crate::token::scheduler_part(&smaller.scheduler)
            ));
        }
    }
    // Which of the original processes each of the token's is (in order): some choice must fit every fault.
    let mut kept = Vec::with_capacity(smaller.processes as usize);
    if keep_processes(original, smaller, &mut kept) {
        return Ok(());
    }
    // Name a fault that no process of the original plan has, if one explains it.
    let unplanned = smaller.faults.iter().find(|fault| {
        !original.faults.iter().any(|planned| shrinks_to(planned, &Fault::renumbered(fault, planned.process())))
    });
    Err(match unplanned {
        Some(fault) => format!(
            "the token's fault `{}` is not one this test plans, nor one shrinking makes of its faults (`{}`); {never}",
            crate::token::fault_part(fault),
            if original.faults.is_empty() {
                "none".to_string()
            } else {
                original.faults.iter().map(crate::token::fault_part).collect::<Vec<_>>().join("`, `")
            }
        ),
        None => format!(
            "the token's faults and scheduler do not fit this test's processes (its faults: `{}`); {never}",
            original.faults.iter().map(crate::token::fault_part).collect::<Vec<_>>().join("`, `")
        ),
    })
}

/// Chooses, for each of `smaller`'s processes after those in `kept`, the
/// original process it is (increasing), so that its faults are shrunk
/// faults of that process and the scheduler's order fits; true if a choice fits.
fn keep_processes(original: &Plan, smaller: &Plan, kept: &mut Vec<ProcessIndex>) -> bool {
    let next = kept.len() as ProcessIndex;
    if next == smaller.processes {
        return match &smaller.scheduler {
            Scheduler::Random => true,
            Scheduler::Priority { order, .. } => {
                let Scheduler::Priority { order: planned, .. } = &original.scheduler else { return false };
                let mapped: Vec<ProcessIndex> = order.iter().map(|&process| kept[process as usize]).collect();
                let restricted: Vec<ProcessIndex> =
                    planned.iter().copied().filter(|process| kept.contains(process)).collect();
                mapped == restricted
            }
        };
    }
    let first = kept.last().map_or(0, |last| last + 1);
    let last = original.processes - (smaller.processes - next);
    for candidate in first..=last {
        let mine: Vec<&Fault> = smaller.faults.iter().filter(|fault| fault.process() == next).collect();
        let planned: Vec<&Fault> = original.faults.iter().filter(|fault| fault.process() == candidate).collect();
        if faults_fit(&mine, &planned, candidate) {
            kept.push(candidate);
            if keep_processes(original, smaller, kept) {
                return true;
            }
            kept.pop();
        }
    }
    false
}

/// Whether each of `faults` is a shrunk one of a different fault of `planned`
/// (all for the original process `process`).
fn faults_fit(faults: &[&Fault], planned: &[&Fault], process: ProcessIndex) -> bool {
    fn assign(faults: &[&Fault], planned: &[&Fault], used: &mut Vec<bool>, process: ProcessIndex) -> bool {
        let Some((fault, rest)) = faults.split_first() else { return true };
        let fault = Fault::renumbered(fault, process);
        for (index, candidate) in planned.iter().enumerate() {
            if !used[index] && shrinks_to(candidate, &fault) {
                used[index] = true;
                if assign(rest, planned, used, process) {
                    return true;
                }
                used[index] = false;
            }
        }
        false
    }
    faults.len() <= planned.len() && assign(faults, planned, &mut vec![false; planned.len()], process)
}

/// Whether `fault` is `planned`, or `planned` with its amount halved one or more times.
fn shrinks_to(planned: &Fault, fault: &Fault) -> bool {
    let halvings = |mut from: u64, to: u64| loop {
        if from == to {
            return true;
        }
        if !halve(&mut from) {
            return false;
        }
    };
    match (planned, fault) {
        (
            Fault::Pause { process: a, at_ms: at_a, duration_ms: from },
            Fault::Pause { process: b, at_ms: at_b, duration_ms: to },
        )
        | (
            Fault::ClockJump { process: a, at_ms: at_a, forward_ms: from },
            Fault::ClockJump { process: b, at_ms: at_b, forward_ms: to },
        ) => a == b && at_a == at_b && halvings(*from, *to),
        (Fault::Crash { process: a, at_ms: at_a }, Fault::Crash { process: b, at_ms: at_b }) => a == b && at_a == at_b,
        (
            Fault::DelayRequest { process: a, call: call_a, extra_ms: from },
            Fault::DelayRequest { process: b, call: call_b, extra_ms: to },
        )
        | (
            Fault::DelayReply { process: a, call: call_a, extra_ms: from },
            Fault::DelayReply { process: b, call: call_b, extra_ms: to },
        ) => a == b && call_a == call_b && halvings(*from, *to),
        (Fault::ClockDrift { process: a, percent: from }, Fault::ClockDrift { process: b, percent: to }) => {
            let mut percent = *from;
            a == b
                && loop {
                    if percent == *to {
                        break true;
                    }
                    if percent / 2 == percent {
                        break false;
                    }
                    percent /= 2;
                }
        }
        _ => false,
    }
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

    use crate::plan::FaultProfile;
    use crate::rng::Rng;

    #[test]
    fn every_plan_shrinking_makes_is_known_to_come_from_its_original() {
        let profile = FaultProfile::default();
        for seed in 0..300 {
            let original = Plan::generate(seed, 4, &profile);
            let mut rng = Rng::new(seed ^ 0x5348);
            let mut plan = original.clone();
            // A random walk of shrinking steps, each checked.
            for _ in 0..12 {
                let mut candidates = plan_candidates(&plan);
                if plan.processes > 1 {
                    candidates.push(without_process(&plan, rng.range(0, u64::from(plan.processes) - 1) as u32));
                }
                if candidates.is_empty() {
                    break;
                }
                plan = rng.pick(&candidates).clone();
                assert_eq!(check_shrunk_from(&original, &plan), Ok(()), "seed {seed}: {plan:?} from {original:?}");
            }
        }
    }

    #[test]
    fn a_plan_no_shrinking_makes_is_refused_by_name() {
        let original = Plan {
            faults: vec![
                Fault::Pause { process: 1, at_ms: 300, duration_ms: 800 },
                Fault::Crash { process: 2, at_ms: 500 },
            ],
            ..Plan::calm(7, 3)
        };
        let refused = |plan: Plan| check_shrunk_from(&original, &plan).expect_err("refused");
        let with = |faults: Vec<Fault>| Plan { faults, ..original.clone() };
        // A pause longer than planned, or at another time; a fault of a kind the test never plans.
        assert!(refused(with(vec![Fault::Pause { process: 1, at_ms: 300, duration_ms: 5_000 }]))
            .contains("`P1@300+5000` is not one this test plans"));
        assert!(refused(with(vec![Fault::Pause { process: 1, at_ms: 301, duration_ms: 800 }])).contains("`P1@301+800`"));
        assert!(refused(with(vec![Fault::DelayReply { process: 0, call: 2, extra_ms: 90 }])).contains("`A0#2+90`"));
        // Two crashes where the test plans one; a crash moved to a process that never crashes.
        assert!(refused(with(vec![Fault::Crash { process: 2, at_ms: 500 }, Fault::Crash { process: 2, at_ms: 500 }]))
            .contains("do not fit"));
        assert!(refused(with(vec![Fault::Crash { process: 0, at_ms: 500 }])).contains("do not fit"));
        assert!(refused(Plan { processes: 4, ..original.clone() }).contains("asks for 4 processes; this test runs 3"));
        assert!(refused(Plan { latency_max_ms: 900, ..original.clone() }).contains("latency range 1-900 ms"));
        assert!(refused(Plan { seed: 8, ..original.clone() }).contains("seed 8 is not this test's (7)"));
        let priority = Scheduler::Priority { order: vec![0, 1, 2], change_points_ms: vec![], bias_ms: 3 };
        assert!(refused(Plan { scheduler: priority, ..original.clone() }).contains("scheduler `q0,1,2//3`"));
        // What shrinking does: a halved pause, a process less (p2 gone, p3 renumbered to p2), no faults.
        assert_eq!(
            check_shrunk_from(&original, &with(vec![Fault::Pause { process: 1, at_ms: 300, duration_ms: 200 }])),
            Ok(())
        );
        let without_p2 =
            Plan { processes: 2, faults: vec![Fault::Crash { process: 1, at_ms: 500 }], ..original.clone() };
        assert_eq!(check_shrunk_from(&original, &without_p2), Ok(()));
        assert_eq!(check_shrunk_from(&original, &with(vec![])), Ok(()));
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
