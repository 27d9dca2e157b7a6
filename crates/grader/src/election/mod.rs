//! The election exercise: a queue of candidates under one prefix, each
//! waiting on the key just ahead of it (etcd's `concurrency.Election`).
//!
//! A candidate's key carries a TTL so that a crashed candidate leaves the
//! queue by itself. The lesson does not ask learners to keep their keys
//! alive (etcd's session does that in the background). Instead a process
//! that the plan crashes campaigns with a short TTL, and every other one with
//! a TTL that outlasts the whole run, so that nobody behind a crashed leader
//! sees its own key run out while it waits for the leader's to. A candidate
//! with a short TTL can still outwait its own key before it crashes; then it
//! is out of the queue and must join again (the `own-key-expires` scenario).

mod check;
mod harness;
mod rules;
pub mod workload;

use sim::rng::Rng;
use sim::{Fault, FaultKind, FaultProfile, Plan, SimLimits};

pub use harness::run_rust;
pub use rules::RULES;
pub use workload::{ElectionStep, ElectionWorkload, ELECTION_PREFIX};

use crate::grade::{Case, Execution, Exercise, Scenario};
use crate::registry::{Drive, ExerciseInfo, LabRun};
use crate::report::Violation;

use ElectionStep::{Campaign, Lead, Resign, Sleep};

pub struct ElectionExercise;

/// A TTL that outlasts every live candidate's wait in the tests.
const TTL_MS: u64 = 10_000;
/// The TTL of a candidate that the plan crashes: its key leaves the queue soon after.
const CRASHING_TTL_MS: u64 = 300;

fn limits() -> SimLimits {
    SimLimits { time_ms_max: 60_000, ..SimLimits::default() }
}

fn case(scenario: &str, plan: Plan, scripts: Vec<Vec<ElectionStep>>) -> Case<ElectionWorkload> {
    Case { scenario: scenario.into(), plan, workload: ElectionWorkload { scripts }, limits: limits() }
}

/// A candidate that joins after `join_ms`, leads `lead_ms` and resigns.
fn candidate(join_ms: u64, ttl_ms: u64, lead_ms: u64) -> Vec<ElectionStep> {
    let mut script = Vec::new();
    if join_ms > 0 {
        script.push(Sleep { ms: join_ms });
    }
    script.extend([Campaign { ttl_ms }, Lead { ms: lead_ms }, Resign]);
    script
}

/// The faults random election schedules may contain. Pauses and delays stay
/// short, so that no live candidate waits anywhere near its TTL.
pub fn fault_profile() -> FaultProfile {
    FaultProfile {
        kinds: vec![
            FaultKind::Pause,
            FaultKind::Crash,
            FaultKind::DelayRequest,
            FaultKind::DelayReply,
            FaultKind::ClockDrift,
        ],
        horizon_ms: 2_000,
        pause_ms_max: 300,
        delay_ms_max: 300,
        calls_targeted_max: 6,
        ..FaultProfile::default()
    }
}

impl Exercise for ElectionExercise {
    type Workload = ElectionWorkload;

    fn name(&self) -> &'static str {
        INFO.name
    }

    fn scenarios(&self) -> Vec<Scenario<ElectionWorkload>> {
        vec![
            Scenario {
                id: "alone",
                title: "a lone candidate leads at once, resigns, and leads again",
                points: 1,
                case: case(
                    "alone",
                    Plan::calm(31, 1),
                    vec![vec![
                        Campaign { ttl_ms: TTL_MS },
                        Lead { ms: 200 },
                        Resign,
                        Campaign { ttl_ms: TTL_MS },
                        Lead { ms: 200 },
                        Resign,
                    ]],
                ),
            },
            Scenario {
                id: "queue",
                title: "three candidates take office in the order they joined, each woken alone",
                points: 2,
                case: case(
                    "queue",
                    Plan::calm(32, 3),
                    vec![candidate(0, TTL_MS, 300), candidate(100, TTL_MS, 300), candidate(200, TTL_MS, 300)],
                ),
            },
            Scenario {
                id: "join-order",
                title: "candidates who join in another order than their names",
                points: 2,
                case: case(
                    "join-order",
                    Plan::calm(33, 3),
                    vec![candidate(100, TTL_MS, 200), candidate(100, TTL_MS, 200), candidate(0, TTL_MS, 300)],
                ),
            },
            Scenario {
                id: "waiter-crashes",
                title: "a waiter in the middle of the queue crashes: the one behind it waits on, for the leader",
                points: 2,
                case: case(
                    "waiter-crashes",
                    Plan { faults: vec![Fault::Crash { process: 1, at_ms: 300 }], ..Plan::calm(34, 3) },
                    vec![
                        candidate(0, TTL_MS, 2_000),
                        candidate(100, CRASHING_TTL_MS, 200),
                        candidate(200, TTL_MS, 200),
                    ],
                ),
            },
            Scenario {
                id: "leader-crashes",
                title: "the leader crashes: its key expires and the queue moves on",
                points: 2,
                case: case(
                    "leader-crashes",
                    Plan { faults: vec![Fault::Crash { process: 0, at_ms: 300 }], ..Plan::calm(35, 3) },
                    vec![
                        candidate(0, CRASHING_TTL_MS, 3_000),
                        candidate(100, TTL_MS, 200),
                        candidate(200, TTL_MS, 200),
                    ],
                ),
            },
            Scenario {
                id: "deleted-before-watch",
                title: "the key ahead is deleted between the waiter's read and its watch",
                points: 2,
                case: case(
                    "deleted-before-watch",
                    // p2's fourth call (after a sleep, a create and a read: its first watch) reaches the store late, after p1 has resigned.
                    Plan {
                        faults: vec![Fault::DelayRequest { process: 1, call: 3, extra_ms: 600 }],
                        ..Plan::calm(36, 2)
                    },
                    vec![candidate(0, TTL_MS, 400), candidate(100, TTL_MS, 200)],
                ),
            },
            Scenario {
                id: "own-key-expires",
                title: "a waiter outwaits its own short TTL: it is out of the queue and joins again",
                points: 2,
                case: case(
                    "own-key-expires",
                    Plan::calm(38, 2),
                    vec![candidate(0, TTL_MS, 2_000), candidate(100, CRASHING_TTL_MS, 200)],
                ),
            },
            Scenario {
                id: "two-terms",
                title: "candidates resign and campaign again",
                points: 1,
                case: case(
                    "two-terms",
                    Plan::calm(37, 2),
                    (0..2)
                        .map(|index| {
                            let mut script = candidate(index * 50, TTL_MS, 150);
                            script.push(Sleep { ms: 20 });
                            script.extend([Campaign { ttl_ms: TTL_MS }, Lead { ms: 150 }, Resign]);
                            script
                        })
                        .collect(),
                ),
            },
        ]
    }

    fn random_case(&self, seed: u64) -> Case<ElectionWorkload> {
        let processes = 4;
        let plan = Plan::generate(seed, processes, &fault_profile());
        // The workload draws from its own stream so that it does not depend on the plan's.
        let mut rng = Rng::new(seed ^ 0x656C_6563);
        let scripts = (0..processes)
            .map(|process| {
                let crashes = plan
                    .faults
                    .iter()
                    .any(|fault| matches!(fault, Fault::Crash { process: crashing, .. } if *crashing == process));
                let ttl_ms = if crashes { CRASHING_TTL_MS } else { TTL_MS };
                let mut script = candidate(rng.range(0, 400), ttl_ms, rng.range(20, 300));
                if rng.chance(1, 3) {
                    script.push(Sleep { ms: rng.range(0, 200) });
                    script.extend([Campaign { ttl_ms }, Lead { ms: rng.range(20, 300) }, Resign]);
                }
                script
            })
            .collect();
        Case { scenario: "random".into(), plan, workload: ElectionWorkload { scripts }, limits: limits() }
    }

    fn random_points(&self) -> u32 {
        4
    }

    fn check(&self, case: &Case<ElectionWorkload>, execution: &Execution) -> Option<Violation> {
        check::check(case, execution)
    }

    fn shrink_workload(&self, workload: &ElectionWorkload) -> Vec<ElectionWorkload> {
        workload.smaller()
    }

    fn remove_process(&self, workload: &ElectionWorkload, index: u32) -> ElectionWorkload {
        workload.without_process(index as usize)
    }
}

impl crate::dynamic::Hosted for ElectionExercise {
    fn info(&self) -> &'static ExerciseInfo {
        &INFO
    }

    fn implementations(&self) -> Vec<crate::dynamic::Implementation<ElectionWorkload>> {
        crate::dynamic::Implementation::of(lease::ElectionVariant::Reference, &lease::ElectionVariant::BUGGY, run_rust)
    }

    fn lab_run(&self) -> Option<LabRun<ElectionWorkload>> {
        // Three candidates on etcd: the first leads, the other two queue behind it and take over in turn.
        // etcd's leases are whole seconds, at least 2; ten outlast the run.
        let scripts = vec![candidate(0, 10_000, 1_500), candidate(300, 10_000, 1_000), candidate(600, 10_000, 1_000)];
        Some(LabRun { processes: 3, workload: ElectionWorkload { scripts }, duration_ms: 15_000 })
    }

    fn execution_from_json(&self, _: &Case<ElectionWorkload>, json: &str) -> Result<Execution, String> {
        crate::dynamic::simulated_execution(json)
    }
}

/// The election exercise's registry entry.
pub static INFO: ExerciseInfo = ExerciseInfo {
    name: "election",
    file: "election.js",
    exports: &["campaign", "resign"],
    drive: Drive::Processes,
    key: Some(ELECTION_PREFIX),
    lab: Some("three candidates queue on your etcd: each waits on the key just ahead of it and takes over in turn"),
    rules: rules::RULES,
};

#[cfg(test)]
mod tests {
    use lease::ElectionVariant;

    use super::*;
    use crate::grade::{grade, GradeOptions};
    use crate::report::Status;

    fn options(seeds: u32) -> GradeOptions {
        GradeOptions { seeds, ..GradeOptions::default() }
    }

    #[test]
    fn the_reference_passes_every_scenario_and_1000_random_schedules() {
        let report = grade(&ElectionExercise, &mut |case| run_rust(ElectionVariant::Reference, case), &options(1_000));
        for test in &report.tests {
            assert_eq!(
                test.status,
                Status::Passed,
                "{}: {:?}",
                test.name,
                test.counterexample.as_ref().map(|c| (&c.violation, &c.replay_token))
            );
        }
    }

    /// Each classic mistake is caught, by the rule it breaks.
    #[test]
    fn every_buggy_variant_is_caught_by_its_rule() {
        let expected = [
            (ElectionVariant::Herd, "wake-one"),
            (ElectionVariant::WrongPredecessor, "no-stuck-waiter"),
            (ElectionVariant::MissesDeletion, "no-stuck-waiter"),
            (ElectionVariant::KeepsKeyOnResign, "resign-deletes"),
            (ElectionVariant::IgnoresOwnExpiry, "queue-order"),
        ];
        assert_eq!(expected.len(), ElectionVariant::BUGGY.len());
        for (variant, rule) in expected {
            let report = grade(&ElectionExercise, &mut |case| run_rust(variant, case), &options(50));
            let broken: Vec<&str> = report
                .tests
                .iter()
                .filter_map(|test| test.counterexample.as_ref())
                .map(|counterexample| counterexample.violation.invariant.as_str())
                .collect();
            assert!(!broken.is_empty(), "{variant:?} passed every test");
            assert!(broken.contains(&rule), "{variant:?} should break {rule}; it broke {broken:?}");
        }
    }

    /// The story names what happened and what to do, in one line.
    #[test]
    fn each_mistake_reads_as_a_one_line_story() {
        let message_of = |variant: ElectionVariant, scenario: &str| {
            let case = ElectionExercise.scenarios().into_iter().find(|found| found.id == scenario).unwrap().case;
            ElectionExercise.check(&case, &run_rust(variant, &case)).unwrap().message
        };
        let herd = message_of(ElectionVariant::Herd, "queue");
        assert!(herd.contains("delete of \"election/p1\"") && herd.contains("woke p3 and p2"), "{herd}");
        let stuck = message_of(ElectionVariant::MissesDeletion, "deleted-before-watch");
        assert!(stuck.contains("p2 was still waiting in campaign()"), "{stuck}");
        let kept = message_of(ElectionVariant::KeepsKeyOnResign, "alone");
        assert!(kept.contains("resign() returned to p1, but its key \"election/p1\""), "{kept}");
        for message in [herd, stuck, kept] {
            assert!(!message.contains('\n'), "{message}");
        }
    }

    #[test]
    fn every_rule_the_checker_names_is_in_the_table() {
        for rule in
            ["one-leader", "queue-order", "wake-one", "resign-deletes", "no-overwrite", "no-stuck-waiter", "no-errors"]
        {
            assert!(crate::rules::find(RULES, rule).is_some(), "{rule}");
        }
    }
}
