//! The fencing exercise: the worker side of fencing, `handleRequest`.
//!
//! Leaders are harness code, so every request's owner and version are real
//! ones; the faults and the delivery times make some of them stale. The
//! checker judges each answer against the lock's true record during the
//! call.

mod check;
mod harness;
mod rules;
pub mod workload;

use sim::rng::Rng;
use sim::{Fault, FaultKind, FaultProfile, Plan, SimLimits};

pub use harness::run_rust;
pub use workload::{request_id, Delivery, FencingWorkload, LeaderStep, LOCK_KEY};

use crate::grade::{Case, Execution, Exercise, Scenario};
use crate::registry::{Drive, ExerciseInfo};
use crate::report::Violation;
pub use rules::RULES;

pub struct FencingExercise;

/// A backstop: runs end by themselves (every lock has a TTL), in a few seconds.
fn limits() -> SimLimits {
    SimLimits { time_ms_max: 30_000, ..SimLimits::default() }
}

fn case(scenario: &str, plan: Plan, leaders: Vec<Vec<LeaderStep>>, deliveries: &[(u32, u64)]) -> Case<FencingWorkload> {
    let deliveries = deliveries.iter().map(|(request, at_ms)| Delivery { at_ms: *at_ms, request: *request }).collect();
    Case { scenario: scenario.into(), plan, workload: FencingWorkload { leaders, deliveries }, limits: limits() }
}

use LeaderStep::{Acquire, Release, Renew, Send, Sleep};

/// Requests in the `many-duplicates` scenario.
const MANY_REQUESTS: u32 = 24;

/// One leader holds the lock throughout and sends many requests; every one
/// is current, so each must be applied exactly once. The deliveries aim at
/// the ways a dedupe goes wrong that few random schedules reach: a pair of
/// one id at the same moment (a claim made after an `await`), an earlier id
/// right after a later one (remembering only the last id), a third delivery
/// of a pair (forgetting an id when rejecting its duplicate), and every id
/// again at the end, newest first (a bounded memory that forgets old ids).
fn many_duplicates() -> Case<FencingWorkload> {
    let mut script = vec![Acquire { ttl_ms: 10_000 }];
    script.extend((1..=MANY_REQUESTS).map(|request| Send { request }));
    script.extend([Sleep { ms: 3_000 }, Release]);
    let mut deliveries = Vec::new();
    for request in 1..=MANY_REQUESTS {
        let at_ms = 100 + 20 * u64::from(request);
        deliveries.push((request, at_ms));
        if request % 6 == 3 {
            deliveries.push((request, at_ms));
        }
        if request % 6 == 0 {
            deliveries.push((request - 1, at_ms + 5));
        }
    }
    for request in (1..=MANY_REQUESTS).rev() {
        deliveries.push((request, 1_000 + 10 * u64::from(MANY_REQUESTS + 1 - request)));
    }
    case("many-duplicates", Plan::calm(35, 2), vec![script], &deliveries)
}

/// The faults random fencing schedules may contain.
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
        pause_ms_max: 2_000,
        delay_ms_max: 1_200,
        calls_targeted_max: 10,
        ..FaultProfile::default()
    }
}

impl Exercise for FencingExercise {
    type Workload = FencingWorkload;

    fn name(&self) -> &'static str {
        INFO.name
    }

    fn scenarios(&self) -> Vec<Scenario<FencingWorkload>> {
        vec![
            Scenario {
                id: "current-owner",
                title: "requests from the current owner are applied",
                points: 1,
                case: case(
                    "current-owner",
                    Plan::calm(31, 2),
                    vec![vec![
                        Acquire { ttl_ms: 1_000 },
                        Send { request: 1 },
                        Sleep { ms: 300 },
                        Renew { ttl_ms: 1_000 },
                        Send { request: 2 },
                        Sleep { ms: 300 },
                        Release,
                    ]],
                    &[(1, 100), (2, 500)],
                ),
            },
            Scenario {
                id: "stale-tenure",
                title: "a request from a leader's earlier tenure arrives during its next one",
                points: 2,
                case: case(
                    "stale-tenure",
                    Plan::calm(32, 3),
                    vec![
                        // A: a first tenure that sends r1, then a second, renewed once.
                        vec![
                            Acquire { ttl_ms: 2_000 },
                            Send { request: 1 },
                            Release,
                            Sleep { ms: 150 },
                            Acquire { ttl_ms: 2_000 },
                            Renew { ttl_ms: 2_000 },
                            Send { request: 2 },
                            Sleep { ms: 1_000 },
                            Release,
                        ],
                        // B: a tenure in between.
                        vec![Sleep { ms: 100 }, Acquire { ttl_ms: 2_000 }, Sleep { ms: 200 }, Release],
                    ],
                    &[(1, 700), (2, 900)],
                ),
            },
            Scenario {
                id: "duplicate-delivery",
                title: "a request delivered twice at once, and once more later, is applied once",
                points: 2,
                case: case(
                    "duplicate-delivery",
                    Plan::calm(33, 2),
                    vec![vec![
                        Acquire { ttl_ms: 2_000 },
                        Send { request: 1 },
                        Send { request: 2 },
                        Sleep { ms: 1_500 },
                        Release,
                    ]],
                    &[(1, 200), (1, 200), (2, 400), (2, 800)],
                ),
            },
            Scenario {
                id: "paused-leader",
                title: "a leader paused past its TTL sends a request it believes is current",
                points: 2,
                case: case(
                    "paused-leader",
                    Plan {
                        faults: vec![Fault::Pause { process: 0, at_ms: 100, duration_ms: 1_200 }],
                        ..Plan::calm(34, 3)
                    },
                    vec![
                        vec![
                            Acquire { ttl_ms: 500 },
                            Sleep { ms: 200 },
                            Send { request: 1 },
                            Sleep { ms: 100 },
                            Release,
                        ],
                        vec![
                            Sleep { ms: 50 },
                            Acquire { ttl_ms: 2_000 },
                            Send { request: 2 },
                            Sleep { ms: 1_500 },
                            Release,
                        ],
                    ],
                    &[(1, 1_400), (2, 1_500)],
                ),
            },
            Scenario {
                id: "many-duplicates",
                title:
                    "24 requests, delivered again at once, out of order and all over again later, are each applied once",
                points: 2,
                case: many_duplicates(),
            },
        ]
    }

    fn random_case(&self, seed: u64) -> Case<FencingWorkload> {
        let leaders = 2;
        let plan = Plan::generate(seed, leaders + 1, &fault_profile());
        // The workload draws from its own stream so that it does not depend on the plan's.
        let mut rng = Rng::new(seed ^ 0x0066_656E_6365);
        let mut next_request = 1;
        // Each request's nominal send time: the script's sleeps plus a round
        // trip per store call, as if nobody waited. Deliveries aim near it,
        // so that about half the requests arrive while still current.
        let mut nominal_sent_ms = Vec::new();
        let scripts = (0..leaders)
            .map(|_| {
                let mut clock_ms = 0;
                let mut step = |script: &mut Vec<LeaderStep>, step: LeaderStep| {
                    clock_ms += match step {
                        Sleep { ms } => ms,
                        Acquire { .. } | Renew { .. } | Release => 20,
                        Send { request } => {
                            nominal_sent_ms.push((request, clock_ms));
                            0
                        }
                    };
                    script.push(step);
                };
                let mut script = Vec::new();
                step(&mut script, Sleep { ms: rng.range(0, 300) });
                for _ in 0..2 {
                    let ttl_ms = rng.range(300, 900);
                    step(&mut script, Acquire { ttl_ms });
                    step(&mut script, Send { request: next_request });
                    next_request += 1;
                    // Sometimes longer than the TTL: the leader's next request is then stale.
                    step(&mut script, Sleep { ms: rng.range(50, 1_200) });
                    if rng.chance(1, 2) {
                        step(&mut script, Renew { ttl_ms });
                        step(&mut script, Send { request: next_request });
                        next_request += 1;
                        step(&mut script, Sleep { ms: rng.range(50, 600) });
                    }
                    if rng.chance(1, 2) {
                        step(&mut script, Release);
                    }
                    step(&mut script, Sleep { ms: rng.range(0, 300) });
                }
                script
            })
            .collect();
        let mut deliveries = Vec::new();
        for (request, sent_ms) in nominal_sent_ms {
            let at_ms = if rng.chance(2, 3) { sent_ms + rng.range(40, 250) } else { sent_ms + rng.range(250, 2_000) };
            deliveries.push(Delivery { at_ms, request });
            if rng.chance(1, 3) {
                deliveries.push(Delivery { at_ms, request });
            }
            if rng.chance(1, 3) {
                deliveries.push(Delivery { at_ms: at_ms + rng.range(50, 1_500), request });
            }
        }
        // A third of the seeds (their own stream, so the others stay as they
        // were) deliver every request once more at the end, newest first:
        // the duplicates a dedupe that forgets ids meets in production.
        let mut echo_rng = Rng::new(seed ^ 0x6563_686F);
        if echo_rng.chance(1, 3) {
            let last_ms = deliveries.iter().map(|delivery| delivery.at_ms).max().unwrap_or(0);
            let mut requests: Vec<u32> = deliveries.iter().map(|delivery| delivery.request).collect();
            requests.sort_unstable();
            requests.dedup();
            for (position, request) in requests.into_iter().rev().enumerate() {
                deliveries.push(Delivery { at_ms: last_ms + echo_rng.range(50, 400) + 10 * position as u64, request });
            }
        }
        Case {
            scenario: "random".into(),
            plan,
            workload: FencingWorkload { leaders: scripts, deliveries },
            limits: limits(),
        }
    }

    fn random_points(&self) -> u32 {
        4
    }

    fn check(&self, case: &Case<FencingWorkload>, execution: &Execution) -> Option<Violation> {
        check::check(case, execution)
    }

    fn shrink_workload(&self, workload: &FencingWorkload) -> Vec<FencingWorkload> {
        workload.smaller()
    }

    fn remove_process(&self, workload: &FencingWorkload, index: u32) -> FencingWorkload {
        workload.without_process(index as usize)
    }
}

impl crate::dynamic::Hosted for FencingExercise {
    fn info(&self) -> &'static ExerciseInfo {
        &INFO
    }

    fn implementations(&self) -> Vec<crate::dynamic::Implementation<FencingWorkload>> {
        crate::dynamic::Implementation::of(
            ::lease::FencingVariant::Reference,
            &::lease::FencingVariant::BUGGY,
            run_rust,
        )
    }

    fn execution_from_json(&self, _: &Case<FencingWorkload>, json: &str) -> Result<Execution, String> {
        crate::dynamic::simulated_execution(json)
    }
}

/// The fencing exercise's registry entry.
pub static INFO: ExerciseInfo = ExerciseInfo {
    name: "fencing",
    file: "fencing.js",
    exports: &["handleRequest"],
    drive: Drive::Processes,
    key: Some(LOCK_KEY),
    lab: None,
    rules: rules::RULES,
};
