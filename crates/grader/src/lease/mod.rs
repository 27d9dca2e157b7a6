//! The lease exercise: the leader loop (`campaign`, then `lead`: renew at
//! ttl/2, work only inside the validity window, step down on loss).
//!
//! Every run has a horizon (`SimLimits::time_ms_max`): the replicas loop
//! forever, and reaching the horizon is how a run normally ends.

mod check;
mod harness;
mod rules;
pub mod workload;

use sim::rng::Rng;
use sim::{Fault, FaultKind, FaultProfile, Plan, SimLimits};

/// The implementations `run_rust` runs, for callers outside the grader (the failover simulator).
pub use ::lease::LeaseVariant;
pub use harness::run_rust;
pub use workload::{LeaseWorkload, LEASE_KEY};

use crate::grade::{Case, Execution, Exercise, Scenario};
use crate::registry::{Drive, ExerciseInfo, LabRun};
use crate::report::Violation;
pub use rules::RULES;

pub struct LeaseExercise;

const TTL_MS: u64 = 1_000;
/// One unit of `ctx.work()`: a leader checks its window five times between
/// renewals of a 1 s lease. Shorter units add events to every story without
/// catching more mistakes; longer ones would leave a 600 ms lease's leader
/// no work between renewals.
pub const WORK_MS: u64 = 100;
/// The horizon: five TTLs, enough for renewals, a failover and a second term.
const HORIZON_MS: u64 = 5_000;

/// The first renewal of a replica that starts at 0 (with the reference's
/// calls): its acquire is call 0, then five units of work (calls 1..=5) fill
/// the 500 ms before the renewal is due, for any acquire round trip below
/// 100 ms. A test checks this.
pub const FIRST_RENEWAL_CALL: u32 = 6;

fn limits() -> SimLimits {
    SimLimits { time_ms_max: HORIZON_MS, ..SimLimits::default() }
}

fn workload(starts_ms: Vec<u64>) -> LeaseWorkload {
    LeaseWorkload { ttl_ms: TTL_MS, work_ms: WORK_MS, starts_ms }
}

fn case(scenario: &str, plan: Plan, starts_ms: Vec<u64>) -> Case<LeaseWorkload> {
    Case { scenario: scenario.into(), plan, workload: workload(starts_ms), limits: limits() }
}

/// The faults random lease schedules may contain.
pub fn fault_profile() -> FaultProfile {
    FaultProfile {
        kinds: vec![
            FaultKind::Pause,
            FaultKind::Crash,
            FaultKind::DelayRequest,
            FaultKind::DelayReply,
            FaultKind::ClockDrift,
            FaultKind::ClockJump,
        ],
        per_kind_max: 3,
        horizon_ms: 3_500,
        pause_ms_max: 2_500,
        delay_ms_max: 1_500,
        drift_percent_max: 10,
        jump_ms_max: 800,
        // Most of a leader's calls are the sleeps of its work; delays aim at
        // its first 40 calls so that renewals get hit too.
        calls_targeted_max: 40,
        ..FaultProfile::default()
    }
}

impl Exercise for LeaseExercise {
    type Workload = LeaseWorkload;

    fn name(&self) -> &'static str {
        INFO.name
    }

    fn scenarios(&self) -> Vec<Scenario<LeaseWorkload>> {
        let leader = 0;
        vec![
            Scenario {
                id: "calm",
                title: "on a calm network the first leader keeps its lease",
                points: 2,
                case: case("calm", Plan::calm(21, 3), vec![0, 20, 40]),
            },
            Scenario {
                id: "long-pause",
                title: "a leader paused longer than its TTL does no work when it wakes; then every replica is paused in turn, so leaders keep failing over",
                points: 2,
                // The first pause makes the story; the later ones catch
                // whoever leads next, so that each new leader, too, wakes
                // to find its lease gone (repeated failovers).
                case: case(
                    "long-pause",
                    Plan {
                        faults: vec![
                            Fault::Pause { process: leader, at_ms: 300, duration_ms: 1_500 },
                            Fault::Pause { process: 1, at_ms: 2_000, duration_ms: 1_300 },
                            Fault::Pause { process: 2, at_ms: 3_400, duration_ms: 1_200 },
                        ],
                        ..Plan::calm(22, 3)
                    },
                    vec![0, 20, 40],
                ),
            },
            Scenario {
                id: "delayed-renew-reply",
                title: "a renewal's reply arrives after the window it opened has closed: the window counts from when it was sent, and no work follows the reply",
                points: 2,
                // Sent at 500, answered after 1 400: a window counted from the
                // reply would run to 2 150, one from the send closed at 1 250,
                // and a loop that works right after the reply is past it.
                case: case(
                    "delayed-renew-reply",
                    Plan {
                        faults: vec![Fault::DelayReply { process: leader, call: FIRST_RENEWAL_CALL, extra_ms: 900 }],
                        ..Plan::calm(23, 3)
                    },
                    vec![0, 20, 40],
                ),
            },
            Scenario {
                id: "failed-renewal",
                title: "a renewal that fails stops leader work",
                points: 2,
                case: case(
                    "failed-renewal",
                    Plan {
                        faults: vec![Fault::DelayRequest { process: leader, call: FIRST_RENEWAL_CALL, extra_ms: 800 }],
                        ..Plan::calm(24, 3)
                    },
                    vec![0, 20, 40],
                ),
            },
            Scenario {
                id: "clock-drift",
                title: "clocks drift by up to 10% under a short TTL: the leader keeps its lease through many renewals",
                points: 1,
                // A 600 ms TTL gives sixteen renewals before the horizon: a
                // long tenure, where a window or a renewal time that drifts
                // a little each term adds up.
                case: Case {
                    workload: LeaseWorkload { ttl_ms: 600, work_ms: WORK_MS, starts_ms: vec![0, 20, 40] },
                    ..case(
                        "clock-drift",
                        Plan {
                            faults: vec![
                                Fault::ClockDrift { process: 0, percent: -10 },
                                Fault::ClockDrift { process: 1, percent: 10 },
                                Fault::ClockDrift { process: 2, percent: -5 },
                            ],
                            ..Plan::calm(25, 3)
                        },
                        vec![0, 20, 40],
                    )
                },
            },
            Scenario {
                id: "leader-crash",
                title: "after the leader crashes another replica takes over within the TTL and 3 round trips",
                points: 2,
                case: case(
                    "leader-crash",
                    Plan { faults: vec![Fault::Crash { process: leader, at_ms: 700 }], ..Plan::calm(26, 3) },
                    vec![0, 20, 40],
                ),
            },
            Scenario {
                id: "late-acquire-reply",
                title: "campaign's reply arrives after the window has closed: no work before checking it",
                points: 2,
                case: case(
                    "late-acquire-reply",
                    Plan {
                        faults: vec![Fault::DelayReply { process: leader, call: 0, extra_ms: 900 }],
                        ..Plan::calm(28, 3)
                    },
                    vec![0, 20, 40],
                ),
            },
        ]
    }

    fn random_case(&self, seed: u64) -> Case<LeaseWorkload> {
        let processes = 3;
        let plan = Plan::generate(seed, processes, &fault_profile());
        // The workload draws from its own stream so that it does not depend on the plan's.
        let mut rng = Rng::new(seed ^ 0x006C_6561_7365);
        // A multiple of 4 keeps ttl/2 and 0.75·ttl whole; at least 600 ms
        // leaves a validity margin of 150 ms, above any round trip.
        let ttl_ms = 4 * rng.range(150, 350);
        let starts_ms = (0..processes).map(|_| if rng.chance(1, 3) { 0 } else { rng.range(1, 300) }).collect();
        Case {
            scenario: "random".into(),
            plan,
            workload: LeaseWorkload { ttl_ms, work_ms: WORK_MS, starts_ms },
            limits: limits(),
        }
    }

    fn random_points(&self) -> u32 {
        4
    }

    fn check(&self, case: &Case<LeaseWorkload>, execution: &Execution) -> Option<Violation> {
        check::check(case, execution)
    }

    fn shrink_workload(&self, workload: &LeaseWorkload) -> Vec<LeaseWorkload> {
        workload.smaller()
    }

    fn remove_process(&self, workload: &LeaseWorkload, index: u32) -> LeaseWorkload {
        workload.without_process(index as usize)
    }
}

impl crate::dynamic::Hosted for LeaseExercise {
    fn info(&self) -> &'static ExerciseInfo {
        &INFO
    }

    fn implementations(&self) -> Vec<crate::dynamic::Implementation<LeaseWorkload>> {
        crate::dynamic::Implementation::of(LeaseVariant::Reference, &LeaseVariant::BUGGY, run_rust)
    }

    fn lab_run(&self) -> Option<LabRun<LeaseWorkload>> {
        // Two replicas with a 4 s lease: one leads and renews, the other waits.
        Some(LabRun {
            processes: 2,
            workload: LeaseWorkload { ttl_ms: 4_000, work_ms: 500, starts_ms: vec![0, 300] },
            duration_ms: 12_000,
        })
    }

    fn execution_from_json(&self, _: &Case<LeaseWorkload>, json: &str) -> Result<Execution, String> {
        crate::dynamic::simulated_execution(json)
    }
}

/// The lease exercise's registry entry.
pub static INFO: ExerciseInfo = ExerciseInfo {
    name: "lease",
    file: "lease.js",
    exports: &["campaign", "lead"],
    drive: Drive::Processes,
    key: Some(LEASE_KEY),
    lab: Some("two replicas campaign for one lease on your etcd: one leads and renews, the other waits"),
    rules: rules::RULES,
};
