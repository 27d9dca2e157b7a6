//! A run's plan: everything that a seed decides, as plain data.
//!
//! A plan is drawn from a seed once ([`Plan::generate`]), then the kernel
//! only reads it. Shrinking edits the plan (drops faults, shortens them,
//! removes processes) and the replay token ([`crate::token`]) writes it out,
//! so a shrunk failure can be replayed exactly even though no seed produces it.

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// Processes are numbered from 0; people see them as "p1", "p2", ….
pub type ProcessIndex = u32;

/// The largest time (ms) a plan may hold, and the largest sum of one
/// process's clock jumps: 2^50 ms, some 35,000 years, far beyond any run's
/// end. Hosts read plans and traces as JSON, and JavaScript holds whole
/// numbers exactly only up to 2^53; the simulation adds a few plan times
/// together (a pause's start and length; a clock's reading, up to twice the
/// store's time plus its jumps), and with this bound every such sum stays
/// below 2^53.
pub const TIME_MS_MAX: u64 = 1 << 50;

/// The name people see for a process index.
pub fn process_name(process: ProcessIndex) -> String {
    ProcessName(process).to_string()
}

/// A process's name for messages, formatted only if a message is made
/// (checkers name the process on every event they look at, and almost none
/// of those become a message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessName(pub ProcessIndex);

impl std::fmt::Display for ProcessName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "p{}", self.0 + 1)
    }
}

/// One planned fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// Stop the world for one process: it runs nothing, and replies wait,
    /// from `at_ms` for `duration_ms` (its own clock keeps running).
    Pause { process: ProcessIndex, at_ms: u64, duration_ms: u64 },
    /// The process stops at `at_ms` and never runs again. Requests it already
    /// sent still reach the store.
    Crash { process: ProcessIndex, at_ms: u64 },
    /// The process's `call`-th store call (0-based) reaches the store `extra_ms` late.
    DelayRequest { process: ProcessIndex, call: u32, extra_ms: u64 },
    /// The reply to the process's `call`-th store call arrives `extra_ms` late
    /// (the write itself lands on time).
    DelayReply { process: ProcessIndex, call: u32, extra_ms: u64 },
    /// The process's clock runs `percent` % fast (negative: slow).
    ClockDrift { process: ProcessIndex, percent: i32 },
    /// At store time `at_ms` the process's clock jumps `forward_ms` ahead.
    ClockJump { process: ProcessIndex, at_ms: u64, forward_ms: u64 },
}

impl Fault {
    pub fn process(&self) -> ProcessIndex {
        match self {
            Fault::Pause { process, .. }
            | Fault::Crash { process, .. }
            | Fault::DelayRequest { process, .. }
            | Fault::DelayReply { process, .. }
            | Fault::ClockDrift { process, .. }
            | Fault::ClockJump { process, .. } => *process,
        }
    }

    /// The same fault for another process.
    pub fn renumbered(&self, to: ProcessIndex) -> Fault {
        let mut fault = self.clone();
        match &mut fault {
            Fault::Pause { process, .. }
            | Fault::Crash { process, .. }
            | Fault::DelayRequest { process, .. }
            | Fault::DelayReply { process, .. }
            | Fault::ClockDrift { process, .. }
            | Fault::ClockJump { process, .. } => *process = to,
        }
        fault
    }

    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::Pause { .. } => FaultKind::Pause,
            Fault::Crash { .. } => FaultKind::Crash,
            Fault::DelayRequest { .. } => FaultKind::DelayRequest,
            Fault::DelayReply { .. } => FaultKind::DelayReply,
            Fault::ClockDrift { .. } => FaultKind::ClockDrift,
            Fault::ClockJump { .. } => FaultKind::ClockJump,
        }
    }
}

/// The kinds of fault, for profiles and swarm selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    Pause,
    Crash,
    DelayRequest,
    DelayReply,
    ClockDrift,
    ClockJump,
}

pub const ALL_FAULT_KINDS: [FaultKind; 6] = [
    FaultKind::Pause,
    FaultKind::Crash,
    FaultKind::DelayRequest,
    FaultKind::DelayReply,
    FaultKind::ClockDrift,
    FaultKind::ClockJump,
];

/// How the kernel orders concurrent work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scheduler {
    /// Every call's latency is drawn independently from the latency range.
    Random,
    /// PCT-like: processes get distinct priorities; a lower priority adds
    /// `bias_ms` of latency per rank, so one process systematically runs
    /// ahead. At each change point (store time, ms) the process currently
    /// first drops to last. Few change points find ordering bugs of small
    /// depth with good probability.
    Priority { order: Vec<ProcessIndex>, change_points_ms: Vec<u64>, bias_ms: u64 },
}

/// Everything one run depends on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Seeds the per-call latencies (hashed with process and call index).
    pub seed: u64,
    pub processes: u32,
    /// One-way network latency range for store calls, in ms.
    pub latency_min_ms: u64,
    pub latency_max_ms: u64,
    pub scheduler: Scheduler,
    pub faults: Vec<Fault>,
}

/// What faults an exercise's randomized schedules may contain, and how big.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultProfile {
    /// The kinds this exercise may use; each seed enables a random subset.
    pub kinds: Vec<FaultKind>,
    /// Faults of each enabled kind per run: 1..=this.
    pub per_kind_max: u32,
    /// Faults start within this window of store time.
    pub horizon_ms: u64,
    pub pause_ms_max: u64,
    pub delay_ms_max: u64,
    /// Clock rates stay within ±this percent.
    pub drift_percent_max: i32,
    pub jump_ms_max: u64,
    /// Calls per process that a delay may target: 0..this.
    pub calls_targeted_max: u32,
    /// Processes that may crash; by default all but one, so someone is left.
    pub crashes_max: u32,
    pub latency_min_ms: u64,
    pub latency_max_ms: u64,
}

impl Default for FaultProfile {
    fn default() -> Self {
        FaultProfile {
            kinds: ALL_FAULT_KINDS.to_vec(),
            per_kind_max: 2,
            horizon_ms: 5_000,
            pause_ms_max: 3_000,
            delay_ms_max: 1_500,
            drift_percent_max: 10,
            jump_ms_max: 1_000,
            calls_targeted_max: 12,
            crashes_max: 1,
            latency_min_ms: 1,
            latency_max_ms: 20,
        }
    }
}

impl Plan {
    /// Whether every fault targets a process the plan has: a plan read from
    /// a replay token is checked, so a hand-edited token is refused by name
    /// instead of running with some of its faults silently ignored.
    ///
    /// Also what no plan of the grader's has and a hand-made one could use to
    /// break a host: more processes than a run may have (a page drew a lane
    /// for each, so a million froze it), a latency range upside down, or a
    /// time JavaScript cannot hold exactly (a page reads traces as JSON).
    pub fn check(&self) -> Result<(), String> {
        let processes_max = crate::kernel::SimLimits::default().processes_max;
        if self.processes == 0 || self.processes > processes_max {
            return Err(format!(
                "the plan asks for {} processes; a run has 1 to {processes_max}, and a replay token made by the grader never has that",
                self.processes
            ));
        }
        if self.latency_min_ms > self.latency_max_ms {
            return Err(format!(
                "the plan's latency range {}-{} ms is upside down; a replay token made by the grader never has that",
                self.latency_min_ms, self.latency_max_ms
            ));
        }
        if let Some(time) = self.times().into_iter().find(|&time| time > TIME_MS_MAX) {
            return Err(format!(
                "the plan has a time of {time} ms, more than {TIME_MS_MAX}; a replay token made by the grader never has that"
            ));
        }
        for process in 0..self.processes {
            let jumped = self
                .faults
                .iter()
                .filter_map(|fault| match *fault {
                    Fault::ClockJump { process: jumper, forward_ms, .. } if jumper == process => Some(forward_ms),
                    _ => None,
                })
                .try_fold(0u64, |sum, forward| sum.checked_add(forward).filter(|&sum| sum <= TIME_MS_MAX));
            if jumped.is_none() {
                return Err(format!(
                    "the plan's clock jumps for process {process} add up to more than {TIME_MS_MAX} ms; a replay token made by the grader never has that"
                ));
            }
        }
        if let Scheduler::Priority { order, .. } = &self.scheduler {
            if let Some(process) = order.iter().find(|&&process| process >= self.processes) {
                return Err(format!(
                    "the plan has {} process(es), but its scheduler orders process {process}; a replay token made by the grader never has that",
                    self.processes
                ));
            }
        }
        match self.faults.iter().find(|fault| fault.process() >= self.processes) {
            Some(fault) => Err(format!(
                "the plan has {} process(es), but one of its faults is for process {} (p{}); a replay token made by the grader never has that",
                self.processes,
                fault.process(),
                fault.process() + 1
            )),
            None => Ok(()),
        }
    }

    /// Every time (ms) the plan holds: latencies, the scheduler's, the faults'.
    fn times(&self) -> Vec<u64> {
        let mut times = vec![self.latency_min_ms, self.latency_max_ms];
        if let Scheduler::Priority { change_points_ms, bias_ms, .. } = &self.scheduler {
            times.extend(change_points_ms);
            times.push(*bias_ms);
        }
        for fault in &self.faults {
            match *fault {
                Fault::Pause { at_ms, duration_ms, .. } => times.extend([at_ms, duration_ms]),
                Fault::Crash { at_ms, .. } => times.push(at_ms),
                Fault::DelayRequest { extra_ms, .. } | Fault::DelayReply { extra_ms, .. } => times.push(extra_ms),
                Fault::ClockDrift { .. } => {}
                Fault::ClockJump { at_ms, forward_ms, .. } => times.extend([at_ms, forward_ms]),
            }
        }
        times
    }

    /// A plan with no faults and the random scheduler.
    pub fn calm(seed: u64, processes: u32) -> Plan {
        Plan {
            seed,
            processes,
            latency_min_ms: 1,
            latency_max_ms: 20,
            scheduler: Scheduler::Random,
            faults: Vec::new(),
        }
    }

    /// Draws a plan from `seed`, swarm style: the seed first picks which of
    /// the profile's fault kinds are on (possibly none), then the faults of
    /// those kinds, then the scheduler. So some seeds give calm runs and some
    /// pile several kinds of trouble on top of each other.
    pub fn generate(seed: u64, processes: u32, profile: &FaultProfile) -> Plan {
        let mut rng = Rng::new(seed);
        let enabled: Vec<FaultKind> = profile.kinds.iter().copied().filter(|_| rng.chance(1, 2)).collect();
        let mut faults = Vec::new();
        let mut crashes = 0;
        for kind in enabled {
            let count = rng.range(1, u64::from(profile.per_kind_max.max(1)));
            for _ in 0..count {
                let process = rng.range(0, u64::from(processes.max(1)) - 1) as ProcessIndex;
                let at_ms = rng.range(0, profile.horizon_ms);
                let fault = match kind {
                    FaultKind::Pause => {
                        Fault::Pause { process, at_ms, duration_ms: rng.range(1, profile.pause_ms_max.max(1)) }
                    }
                    FaultKind::Crash => {
                        if crashes >= profile.crashes_max.min(processes.saturating_sub(1)) {
                            continue;
                        }
                        crashes += 1;
                        Fault::Crash { process, at_ms }
                    }
                    FaultKind::DelayRequest => Fault::DelayRequest {
                        process,
                        call: rng.range(0, u64::from(profile.calls_targeted_max.max(1)) - 1) as u32,
                        extra_ms: rng.range(1, profile.delay_ms_max.max(1)),
                    },
                    FaultKind::DelayReply => Fault::DelayReply {
                        process,
                        call: rng.range(0, u64::from(profile.calls_targeted_max.max(1)) - 1) as u32,
                        extra_ms: rng.range(1, profile.delay_ms_max.max(1)),
                    },
                    FaultKind::ClockDrift => {
                        let max = profile.drift_percent_max.max(1) as u64;
                        let percent = rng.range(0, 2 * max) as i32 - max as i32;
                        Fault::ClockDrift { process, percent }
                    }
                    FaultKind::ClockJump => {
                        Fault::ClockJump { process, at_ms, forward_ms: rng.range(1, profile.jump_ms_max.max(1)) }
                    }
                };
                faults.push(fault);
            }
        }
        // One drift per process at most: keep the first.
        let mut drifted = Vec::new();
        faults.retain(|fault| match fault {
            Fault::ClockDrift { process, .. } if drifted.contains(process) => false,
            Fault::ClockDrift { process, .. } => {
                drifted.push(*process);
                true
            }
            _ => true,
        });
        let scheduler = if rng.chance(1, 2) {
            Scheduler::Random
        } else {
            let mut order: Vec<ProcessIndex> = (0..processes).collect();
            for i in (1..order.len()).rev() {
                let j = rng.range(0, i as u64) as usize;
                order.swap(i, j);
            }
            let change_points = rng.range(0, 3);
            let mut change_points_ms: Vec<u64> = (0..change_points).map(|_| rng.range(0, profile.horizon_ms)).collect();
            change_points_ms.sort_unstable();
            Scheduler::Priority { order, change_points_ms, bias_ms: rng.range(1, profile.latency_max_ms.max(1)) }
        };
        Plan {
            seed,
            processes,
            latency_min_ms: profile.latency_min_ms,
            latency_max_ms: profile.latency_max_ms.max(profile.latency_min_ms),
            scheduler,
            faults,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_varied() {
        let profile = FaultProfile::default();
        assert_eq!(Plan::generate(42, 3, &profile), Plan::generate(42, 3, &profile));
        let plans: Vec<Plan> = (0..200).map(|seed| Plan::generate(seed, 3, &profile)).collect();
        // Swarm: some runs are calm, some carry several kinds at once.
        assert!(plans.iter().any(|plan| plan.faults.is_empty()));
        assert!(plans.iter().any(|plan| {
            let mut kinds: Vec<FaultKind> = plan.faults.iter().map(Fault::kind).collect();
            kinds.sort();
            kinds.dedup();
            kinds.len() >= 4
        }));
        for kind in ALL_FAULT_KINDS {
            assert!(
                plans.iter().any(|plan| plan.faults.iter().any(|fault| fault.kind() == kind)),
                "{kind:?} never drawn"
            );
        }
        // Never every process crashed: someone is left to make progress.
        for plan in &plans {
            assert!(plan.faults.iter().filter(|fault| fault.kind() == FaultKind::Crash).count() <= 1);
        }
    }
}
