//! The lock exercise: try-lock, blocking lock, versioned unlock.

mod check;
mod harness;
mod rules;
pub mod workload;

use sim::{Fault, FaultKind, FaultProfile, Plan, SimLimits};

pub use harness::run_rust;
pub use workload::{LockStep, LockWorkload, LOCK_KEY};

use crate::grade::{Case, Execution, Exercise, Scenario};
use crate::registry::{Drive, ExerciseInfo, LabRun};
use crate::report::Violation;
pub use rules::RULES;
use sim::rng::Rng;

pub struct LockExercise;

const TTL_MS: u64 = 1_000;

fn limits() -> SimLimits {
    SimLimits { time_ms_max: 60_000, ..SimLimits::default() }
}

fn case(scenario: &str, plan: Plan, scripts: Vec<Vec<LockStep>>) -> Case<LockWorkload> {
    Case { scenario: scenario.into(), plan, workload: LockWorkload { scripts }, limits: limits() }
}

use LockStep::{Hold, Lock, Sleep, TryLock, Unlock};

/// The faults random lock schedules may contain.
pub fn fault_profile() -> FaultProfile {
    FaultProfile {
        kinds: vec![
            FaultKind::Pause,
            FaultKind::Crash,
            FaultKind::DelayRequest,
            FaultKind::DelayReply,
            FaultKind::ClockDrift,
        ],
        horizon_ms: 3_000,
        pause_ms_max: 2_500,
        delay_ms_max: 1_500,
        calls_targeted_max: 8,
        ..FaultProfile::default()
    }
}

impl Exercise for LockExercise {
    type Workload = LockWorkload;

    fn name(&self) -> &'static str {
        INFO.name
    }

    fn scenarios(&self) -> Vec<Scenario<LockWorkload>> {
        vec![
            Scenario {
                id: "basic",
                title: "one process locks, works and unlocks, twice",
                points: 1,
                case: case(
                    "basic",
                    Plan::calm(11, 1),
                    vec![vec![
                        Lock { ttl_ms: TTL_MS },
                        Hold { ms: 200 },
                        Unlock,
                        Lock { ttl_ms: TTL_MS },
                        Hold { ms: 200 },
                        Unlock,
                    ]],
                ),
            },
            Scenario {
                id: "try-lock-held",
                title: "tryLock fails at once while another process holds the lock",
                points: 1,
                case: case(
                    "try-lock-held",
                    Plan::calm(12, 2),
                    vec![
                        vec![Lock { ttl_ms: 2_000 }, Hold { ms: 1_000 }, Unlock],
                        vec![
                            Sleep { ms: 200 },
                            TryLock { ttl_ms: 2_000 },
                            Sleep { ms: 1_500 },
                            TryLock { ttl_ms: 2_000 },
                            Hold { ms: 100 },
                            Unlock,
                        ],
                    ],
                ),
            },
            Scenario {
                id: "ttl-unlock-bug",
                title: "the TTL unlock bug: a stalled holder's late unlock",
                points: 2,
                case: case(
                    "ttl-unlock-bug",
                    Plan {
                        faults: vec![Fault::Pause { process: 0, at_ms: 100, duration_ms: 1_500 }],
                        ..Plan::calm(13, 3)
                    },
                    vec![
                        vec![Lock { ttl_ms: TTL_MS }, Hold { ms: 300 }, Unlock],
                        vec![Sleep { ms: 50 }, Lock { ttl_ms: TTL_MS }, Hold { ms: 900 }, Unlock],
                        vec![Sleep { ms: 1_700 }, TryLock { ttl_ms: TTL_MS }, Hold { ms: 100 }, Unlock],
                    ],
                ),
            },
            Scenario {
                id: "holder-crash",
                title: "a crashed holder's lock comes free within its TTL",
                points: 2,
                case: case(
                    "holder-crash",
                    Plan { faults: vec![Fault::Crash { process: 0, at_ms: 200 }], ..Plan::calm(14, 3) },
                    vec![
                        vec![Lock { ttl_ms: TTL_MS }, Hold { ms: 5_000 }, Unlock],
                        vec![Sleep { ms: 50 }, Lock { ttl_ms: TTL_MS }, Hold { ms: 100 }, Unlock],
                        vec![Sleep { ms: 60 }, Lock { ttl_ms: TTL_MS }, Hold { ms: 100 }, Unlock],
                    ],
                ),
            },
            Scenario {
                id: "wait-by-watch",
                title: "a blocked lock() waits by watching, not polling",
                points: 2,
                case: case(
                    "wait-by-watch",
                    Plan::calm(15, 2),
                    vec![
                        vec![Lock { ttl_ms: 3_000 }, Hold { ms: 2_000 }, Unlock],
                        vec![Sleep { ms: 20 }, Lock { ttl_ms: 3_000 }, Hold { ms: 10 }, Unlock],
                    ],
                ),
            },
            Scenario {
                id: "contention",
                title: "four processes contend for the lock, with pauses",
                points: 2,
                case: case(
                    "contention",
                    Plan {
                        faults: vec![
                            Fault::Pause { process: 1, at_ms: 150, duration_ms: 1_200 },
                            Fault::Pause { process: 3, at_ms: 900, duration_ms: 700 },
                        ],
                        ..Plan::calm(16, 4)
                    },
                    (0..4)
                        .map(|_| {
                            vec![
                                Lock { ttl_ms: 800 },
                                Hold { ms: 150 },
                                Unlock,
                                Lock { ttl_ms: 800 },
                                Hold { ms: 150 },
                                Unlock,
                            ]
                        })
                        .collect(),
                ),
            },
        ]
    }

    fn random_case(&self, seed: u64) -> Case<LockWorkload> {
        let processes = 3;
        let plan = Plan::generate(seed, processes, &fault_profile());
        // The workload draws from its own stream so that it does not depend on the plan's.
        let mut rng = Rng::new(seed ^ 0x6C6F_636B);
        let scripts = (0..processes)
            .map(|_| {
                let mut script = vec![Sleep { ms: rng.range(0, 200) }];
                for _ in 0..2 {
                    let ttl_ms = rng.range(600, 1_500);
                    script.push(if rng.chance(1, 4) { TryLock { ttl_ms } } else { Lock { ttl_ms } });
                    script.push(Hold { ms: rng.range(20, 500) });
                    script.push(Unlock);
                }
                script
            })
            .collect();
        Case { scenario: "random".into(), plan, workload: LockWorkload { scripts }, limits: limits() }
    }

    fn random_points(&self) -> u32 {
        4
    }

    fn check(&self, case: &Case<LockWorkload>, execution: &Execution) -> Option<Violation> {
        check::check(case, execution)
    }

    fn shrink_workload(&self, workload: &LockWorkload) -> Vec<LockWorkload> {
        workload.smaller()
    }

    fn remove_process(&self, workload: &LockWorkload, index: u32) -> LockWorkload {
        workload.without_process(index as usize)
    }
}

impl crate::dynamic::Hosted for LockExercise {
    fn info(&self) -> &'static ExerciseInfo {
        &INFO
    }

    fn implementations(&self) -> Vec<crate::dynamic::Implementation<LockWorkload>> {
        crate::dynamic::Implementation::of(lock::LockVariant::Reference, &lock::LockVariant::BUGGY, run_rust)
    }

    fn lab_run(&self) -> Option<LabRun<LockWorkload>> {
        // Two processes contend for a 4 s lock: the second waits, then takes it.
        let scripts = vec![
            vec![Lock { ttl_ms: 4_000 }, Hold { ms: 1_500 }, Unlock],
            vec![Sleep { ms: 300 }, Lock { ttl_ms: 4_000 }, Hold { ms: 1_000 }, Unlock],
        ];
        Some(LabRun { processes: 2, workload: LockWorkload { scripts }, duration_ms: 15_000 })
    }

    fn execution_from_json(&self, _: &Case<LockWorkload>, json: &str) -> Result<Execution, String> {
        crate::dynamic::simulated_execution(json)
    }
}

/// The lock exercise's registry entry.
pub static INFO: ExerciseInfo = ExerciseInfo {
    name: "lock",
    file: "lock.js",
    exports: &["tryLock", "lock", "unlock"],
    drive: Drive::Processes,
    key: Some(LOCK_KEY),
    lab: Some("two processes contend for one lock on your etcd: the second waits, then takes it"),
    rules: rules::RULES,
};
