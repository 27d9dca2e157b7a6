//! The failover simulator's engine: three replicas run the reference lease
//! protocol ([`LeaseVariant::Reference`], through
//! [`grader::lease::run_rust`]) on one key, while the visitor crashes and
//! freezes them.
//!
//! The design decision: the page keeps no simulation alive. A run is a pure
//! function of its plan, and the visitor only ever acts at "now", so the
//! page keeps the visitor's actions as faults with times and asks for a
//! whole new run from t = 0 whenever they change, or when its clock passes
//! the end of the last run. Each run goes a little past "now" (the page
//! chooses how far), so between actions the clock only reads further into
//! an answer it already has. A freeze that is still going on lasts past the
//! end of the run; when the visitor ends it, the next run ends it there.
//! Everything before the new action's time comes out the same in every run,
//! because the kernel decides each moment only from what was planned for it
//! and before it.
//!
//! What crosses to JavaScript is the story the widget draws (ownership in
//! the store, each replica's role, freezes, crashes, the store calls and the
//! events worth a line in the log), not the trace: a few hundred small
//! objects for minutes of simulated time instead of thousands of events.
//! Request and story cross as JSON text, like the grader's cases: serde_json
//! is in this module already, and a second way of converting would cost
//! more bytes of wasm than it saves time.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use grader::lease::{LeaseVariant, LeaseWorkload, LEASE_KEY};
use grader::{Case, Execution};
use sim::{process_name, Call, Ending, Fault, Happening, Limit, Note, Plan, Reply, SimLimits};

/// The replicas on stage; people see them as "replica 1" … "replica 3".
pub const REPLICAS: u32 = 3;
/// The lease's TTL: long enough to watch a lease run out, short enough that
/// a failover takes a few seconds.
pub const TTL_MS: u64 = 3_000;
/// One unit of leader work: a leader checks its window six times per
/// renewal period (every ttl/2).
pub const WORK_MS: u64 = 250;
/// Replica 1 starts first and so leads first, as in the lesson's diagram.
pub const STARTS_MS: [u64; REPLICAS as usize] = [0, 20, 40];
/// The network's seed. With it, when replica 1 is frozen at 4 s, replica 3
/// wins the race for the expired lease, as in the lesson's diagram (a test
/// checks this).
pub const SEED: u64 = 4;
/// The longest run: five minutes of simulated time. A run that long takes
/// a few milliseconds, and the page stops its clock there.
pub const UNTIL_MS_MAX: u64 = 300_000;
/// At most this many crashes and freezes in one run.
pub const FAULTS_MAX: usize = 200;

/// What the visitor did to a replica.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum VisitorFaultKind {
    /// Frozen (stop-the-world) from `atMs` to `endMs` (`null` while the visitor has not brought it back yet).
    Pause,
    /// Stopped at `atMs`, for good.
    Crash,
}

/// A visitor's action, as the page records it. Replicas count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VisitorFault {
    pub kind: VisitorFaultKind,
    pub replica: u32,
    pub at_ms: u64,
    #[serde(default)]
    pub end_ms: Option<u64>,
}

/// `failoverRun`'s argument: run from 0 to `untilMs` with these faults.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailoverRequest {
    pub until_ms: u64,
    #[serde(default)]
    pub faults: Vec<VisitorFault>,
}

/// The store's record of who owns the key: from the write that took it to
/// its expiry (`toMs: null` while it still holds at the end of the run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hold {
    pub replica: u32,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
    /// When each write of this holder landed: the acquire, then every
    /// renewal. The key expires `ttlMs` after the last one.
    pub writes_ms: Vec<u64>,
}

/// What a replica is doing, by its own account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Inside `campaign`: trying to take the key, or watching it.
    Campaigning,
    /// Inside `lead`: renewing and working.
    Leading,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleSpan {
    pub replica: u32,
    pub role: Role,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
}

/// A freeze (`toMs: null` while it lasts past the end of the run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseSpan {
    pub replica: u32,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
}

/// Which compare-and-swap a replica sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    /// Take the key if it is absent (`campaign`).
    Acquire,
    /// Rewrite the key at the version it holds (`lead`).
    Renew,
}

/// One compare-and-swap: sent, applied by the store, answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreCall {
    pub replica: u32,
    pub kind: CallKind,
    pub invoke_ms: u64,
    pub apply_ms: Option<u64>,
    pub complete_ms: Option<u64>,
    /// The store's answer, once applied.
    pub ok: Option<bool>,
}

/// Why a replica stopped leading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StepDownReason {
    /// Its own clock said the validity window had passed (after a freeze).
    WindowPassed,
    /// The store refused its renewal: someone else holds the key.
    RenewalFailed,
}

/// The moments worth a line in the widget's log, in time order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum StoryEvent {
    /// The store gave the key to `replica`; `after` held it last, until it expired.
    #[serde(rename_all = "camelCase")]
    Acquired { at_ms: u64, replica: u32, version: u64, after: Option<u32> },
    /// `replica`'s lease ran out and the store deleted the key.
    #[serde(rename_all = "camelCase")]
    Expired { at_ms: u64, replica: u32 },
    #[serde(rename_all = "camelCase")]
    SteppedDown { at_ms: u64, replica: u32, reason: StepDownReason },
    /// `replica` tried to take the key and found `holder` holding it.
    #[serde(rename_all = "camelCase")]
    Following { at_ms: u64, replica: u32, holder: u32 },
    #[serde(rename_all = "camelCase")]
    Frozen { at_ms: u64, replica: u32 },
    #[serde(rename_all = "camelCase")]
    Resumed { at_ms: u64, replica: u32 },
    #[serde(rename_all = "camelCase")]
    Crashed { at_ms: u64, replica: u32 },
}

/// `failoverRun`'s answer: everything that happened from 0 to `untilMs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailoverStory {
    pub until_ms: u64,
    pub replicas: u32,
    pub ttl_ms: u64,
    pub work_ms: u64,
    pub holds: Vec<Hold>,
    pub roles: Vec<RoleSpan>,
    pub pauses: Vec<PauseSpan>,
    pub calls: Vec<StoreCall>,
    pub events: Vec<StoryEvent>,
}

/// Runs the replicas from 0 to `untilMs` with the visitor's faults, and tells
/// the story. `requestJson`: `{ "untilMs": 12000, "faults": [{ "kind":
/// "pause", "replica": 1, "atMs": 4000, "endMs": null }, { "kind": "crash",
/// "replica": 2, "atMs": 9000 }] }`, whole milliseconds, replicas from 1.
/// Returns the story ([`FailoverStory`]) as JSON.
#[wasm_bindgen(js_name = failoverRun)]
pub fn failover_run(request_json: &str) -> Result<String, JsError> {
    let request: FailoverRequest = serde_json::from_str(request_json).map_err(|error| {
        JsError::new(&format!(
            "failoverRun: {error}; pass {{ untilMs, faults: [{{ kind: \"pause\", replica, atMs, endMs }} or {{ kind: \"crash\", replica, atMs }}] }} with whole milliseconds"
        ))
    })?;
    let story = run(&request).map_err(|message| JsError::new(&message))?;
    Ok(serde_json::to_string(&story).expect("stories serialize"))
}

/// The whole run, natively: checks the request, builds the case, runs the
/// reference protocol and reads the story out of the trace.
pub fn run(request: &FailoverRequest) -> Result<FailoverStory, String> {
    let case = case_for(request)?;
    let execution = grader::lease::run_rust(LeaseVariant::Reference, &case);
    match execution.ending {
        Ending::Limit { limit: Limit::Time } | Ending::AllFinished => {}
        _ => {
            return Err(
                "failoverRun: the run ended before its horizon; this is a bug in the simulator, please report it"
                    .into(),
            )
        }
    }
    let story = tell(&execution, request.until_ms);
    debug_assert!(story.events.windows(2).all(|pair| event_at(&pair[0]) <= event_at(&pair[1])));
    debug_assert!(story.holds.windows(2).all(|pair| pair[0].to_ms.is_some_and(|to_ms| to_ms <= pair[1].from_ms)));
    Ok(story)
}

/// The grader case for a request: a calm network, the workload above, the
/// visitor's faults, and the horizon at `untilMs`.
pub fn case_for(request: &FailoverRequest) -> Result<Case<LeaseWorkload>, String> {
    let until_ms = request.until_ms;
    if until_ms > UNTIL_MS_MAX {
        return Err(format!("failoverRun: untilMs is {until_ms}, above the simulator's limit of {UNTIL_MS_MAX} ms; reset the simulation"));
    }
    if request.faults.len() > FAULTS_MAX {
        return Err(format!(
            "failoverRun: {} faults, at most {FAULTS_MAX} fit in one run; reset the simulation",
            request.faults.len()
        ));
    }
    let mut faults = Vec::with_capacity(request.faults.len());
    for &VisitorFault { kind, replica, at_ms, end_ms } in &request.faults {
        if !(1..=REPLICAS).contains(&replica) {
            return Err(format!(
                "failoverRun: replica {replica} does not exist; replicas are numbered 1 to {REPLICAS}"
            ));
        }
        if at_ms > until_ms {
            return Err(format!(
                "failoverRun: a fault at {at_ms} ms is after untilMs ({until_ms} ms); faults happen at or before the time run to"
            ));
        }
        let process = replica - 1;
        faults.push(match (kind, end_ms) {
            (VisitorFaultKind::Crash, _) => Fault::Crash { process, at_ms },
            (VisitorFaultKind::Pause, Some(end_ms)) if end_ms < at_ms => {
                return Err(format!(
                    "failoverRun: a freeze of replica {replica} ends at {end_ms} ms, before it starts at {at_ms} ms"
                ));
            }
            // A freeze that is still going on outlasts the run by a millisecond.
            (VisitorFaultKind::Pause, end_ms) => {
                Fault::Pause { process, at_ms, duration_ms: end_ms.unwrap_or(until_ms + 1) - at_ms }
            }
        });
    }
    let plan = Plan { faults, ..Plan::calm(SEED, REPLICAS) };
    // The replicas loop forever: the horizon ends every run. The other limits
    // sit far above what five minutes take (about 40 trace events and 10
    // calls per simulated second), so only the horizon is ever reached.
    let limits = SimLimits {
        time_ms_max: until_ms,
        steps_max: 1_000_000,
        trace_events_max: 1_000_000,
        calls_max: 200_000,
        processes_max: REPLICAS,
    };
    let workload = LeaseWorkload { ttl_ms: TTL_MS, work_ms: WORK_MS, starts_ms: STARTS_MS.to_vec() };
    Ok(Case { scenario: "failover-simulator".into(), plan, workload, limits })
}

fn event_at(event: &StoryEvent) -> u64 {
    match *event {
        StoryEvent::Acquired { at_ms, .. }
        | StoryEvent::Expired { at_ms, .. }
        | StoryEvent::SteppedDown { at_ms, .. }
        | StoryEvent::Following { at_ms, .. }
        | StoryEvent::Frozen { at_ms, .. }
        | StoryEvent::Resumed { at_ms, .. }
        | StoryEvent::Crashed { at_ms, .. } => at_ms,
    }
}

/// The replica whose name a key's value is ("p3" → 3; names are `sim::process_name`'s).
fn replica_named(value: &str) -> Option<u32> {
    (0..REPLICAS).find(|process| process_name(*process) == value).map(|process| process + 1)
}

/// Reads the story out of a run's trace, up to `until_ms`.
fn tell(execution: &Execution, until_ms: u64) -> FailoverStory {
    let mut story = FailoverStory {
        until_ms,
        replicas: REPLICAS,
        ttl_ms: TTL_MS,
        work_ms: WORK_MS,
        holds: Vec::new(),
        roles: Vec::new(),
        pauses: Vec::new(),
        calls: Vec::new(),
        events: Vec::new(),
    };
    // Trace call id → index into `story.calls` (store CASes only).
    let mut call_index: Vec<Option<usize>> = Vec::new();
    let mut open_role: [Option<usize>; REPLICAS as usize] = [None; REPLICAS as usize];
    let mut open_pause: [Option<usize>; REPLICAS as usize] = [None; REPLICAS as usize];
    // Whether the replica's latest renewal was refused (why it steps down).
    let mut renewal_refused = [false; REPLICAS as usize];
    // Whom each replica last found holding the key (to log each change once).
    let mut following: [Option<u32>; REPLICAS as usize] = [None; REPLICAS as usize];
    let mut open_hold: Option<usize> = None;
    let mut crashed = [false; REPLICAS as usize];

    // The kernel may take one step past the horizon before it notices; that
    // step belongs to the next run.
    for event in execution.trace.iter().take_while(|event| event.at_ms <= until_ms) {
        let at_ms = event.at_ms;
        let process = event.process.map(|process| process as usize);
        let replica = event.process.map(|process| process + 1);
        match (&event.happening, process, replica) {
            (Happening::Invoke { call, request }, Some(_), Some(replica)) => {
                let id = *call as usize;
                if call_index.len() <= id {
                    call_index.resize(id + 1, None);
                }
                if let Call::Cas { current_value, .. } = request {
                    let kind = if current_value.is_none() { CallKind::Acquire } else { CallKind::Renew };
                    call_index[id] = Some(story.calls.len());
                    story.calls.push(StoreCall {
                        replica,
                        kind,
                        invoke_ms: at_ms,
                        apply_ms: None,
                        complete_ms: None,
                        ok: None,
                    });
                }
            }
            (Happening::Apply { call, result, .. }, _, _) => {
                let Some(index) = call_index.get(*call as usize).copied().flatten() else { continue };
                let Reply::Cas { ok, version, .. } = result else { continue };
                let store_call = &mut story.calls[index];
                store_call.apply_ms = Some(at_ms);
                store_call.ok = Some(*ok);
                if !ok {
                    continue;
                }
                let holder = store_call.replica;
                match open_hold {
                    Some(open) if story.holds[open].replica == holder => story.holds[open].writes_ms.push(at_ms),
                    _ => {
                        // A CAS that expects an absent key wins only once the
                        // last holder's key is gone, so there is no open hold.
                        debug_assert!(open_hold.is_none(), "the key changed hands without expiring");
                        let after = story.holds.last().map(|hold| hold.replica);
                        open_hold = Some(story.holds.len());
                        story.holds.push(Hold { replica: holder, from_ms: at_ms, to_ms: None, writes_ms: vec![at_ms] });
                        story.events.push(StoryEvent::Acquired {
                            at_ms,
                            replica: holder,
                            version: version.unwrap_or(0),
                            after,
                        });
                    }
                }
            }
            (Happening::Complete { call, reply }, Some(process), Some(replica)) => {
                let Some(index) = call_index.get(*call as usize).copied().flatten() else { continue };
                story.calls[index].complete_ms = Some(at_ms);
                let Reply::Cas { ok, current, .. } = reply else { continue };
                match story.calls[index].kind {
                    CallKind::Renew => renewal_refused[process] = !ok,
                    CallKind::Acquire if !ok => {
                        let holder = current.as_ref().and_then(|record| replica_named(&record.value));
                        if let Some(holder) =
                            holder.filter(|holder| *holder != replica && following[process] != Some(*holder))
                        {
                            following[process] = Some(holder);
                            story.events.push(StoryEvent::Following { at_ms, replica, holder });
                        }
                    }
                    CallKind::Acquire => following[process] = None,
                }
            }
            (Happening::Expire { key, .. }, _, _) if key == LEASE_KEY => {
                if let Some(open) = open_hold.take() {
                    story.holds[open].to_ms = Some(at_ms);
                    story.events.push(StoryEvent::Expired { at_ms, replica: story.holds[open].replica });
                }
            }
            (Happening::Note { note }, Some(process), Some(replica)) => {
                let role = match note {
                    Note::Calling { function } if function == "campaign" => Some(Role::Campaigning),
                    Note::Calling { function } if function == "lead" => Some(Role::Leading),
                    Note::Stepped { .. } => {
                        let reason = if renewal_refused[process] {
                            StepDownReason::RenewalFailed
                        } else {
                            StepDownReason::WindowPassed
                        };
                        story.events.push(StoryEvent::SteppedDown { at_ms, replica, reason });
                        None
                    }
                    _ => continue,
                };
                if let Some(open) = open_role[process].take() {
                    story.roles[open].to_ms = Some(at_ms);
                }
                if let Some(role) = role {
                    renewal_refused[process] = false;
                    open_role[process] = Some(story.roles.len());
                    story.roles.push(RoleSpan { replica, role, from_ms: at_ms, to_ms: None });
                }
            }
            (Happening::PauseStart { .. }, Some(process), Some(replica)) => {
                open_pause[process] = Some(story.pauses.len());
                story.pauses.push(PauseSpan { replica, from_ms: at_ms, to_ms: None });
                story.events.push(StoryEvent::Frozen { at_ms, replica });
            }
            (Happening::PauseEnd, Some(process), Some(replica)) => {
                if let Some(open) = open_pause[process].take() {
                    story.pauses[open].to_ms = Some(at_ms);
                    story.events.push(StoryEvent::Resumed { at_ms, replica });
                }
            }
            (Happening::Crash, Some(process), Some(replica)) => {
                crashed[process] = true;
                // A crash ends whatever the replica was doing, a freeze included.
                if let Some(open) = open_role[process].take() {
                    story.roles[open].to_ms = Some(at_ms);
                }
                if let Some(open) = open_pause[process].take() {
                    story.pauses[open].to_ms = Some(at_ms);
                }
                story.events.push(StoryEvent::Crashed { at_ms, replica });
            }
            _ => {}
        }
    }

    // Once every replica has crashed the kernel has nothing left to run and
    // stops, but the store would still let the key expire at its deadline.
    if crashed.iter().all(|crashed| *crashed) {
        if let Some(open) = open_hold.take() {
            let deadline_ms = story.holds[open].writes_ms.last().copied().unwrap_or(0) + TTL_MS;
            if deadline_ms <= until_ms {
                story.holds[open].to_ms = Some(deadline_ms);
                story.events.push(StoryEvent::Expired { at_ms: deadline_ms, replica: story.holds[open].replica });
            }
        }
    }
    story
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(replica: u32, at_ms: u64, end_ms: Option<u64>) -> VisitorFault {
        VisitorFault { kind: VisitorFaultKind::Pause, replica, at_ms, end_ms }
    }

    fn leader_at(story: &FailoverStory, at_ms: u64) -> Option<u32> {
        story
            .holds
            .iter()
            .find(|hold| hold.from_ms <= at_ms && hold.to_ms.is_none_or(|to_ms| at_ms < to_ms))
            .map(|hold| hold.replica)
    }

    #[test]
    fn calm_replica_one_leads_throughout() {
        let story = run(&FailoverRequest { until_ms: 20_000, faults: vec![] }).unwrap();
        assert_eq!(story.holds.len(), 1);
        assert_eq!(story.holds[0].replica, 1);
        assert!(story.holds[0].to_ms.is_none());
        // A renewal every ttl/2.
        assert!(story.holds[0].writes_ms.len() >= 13, "{:?}", story.holds[0].writes_ms);
        let mut followers: Vec<u32> = story
            .events
            .iter()
            .filter_map(|event| match event {
                StoryEvent::Following { replica, holder: 1, .. } => Some(*replica),
                _ => None,
            })
            .collect();
        followers.sort_unstable();
        assert_eq!(followers, vec![2, 3]);
    }

    #[test]
    fn the_lessons_diagram_replica_three_takes_over_and_replica_one_returns_as_a_follower() {
        let story = run(&FailoverRequest { until_ms: 15_000, faults: vec![pause(1, 4_000, Some(9_000))] }).unwrap();
        assert_eq!(leader_at(&story, 3_900), Some(1));
        let takeover = story.holds.iter().find(|hold| hold.replica != 1).expect("someone takes over");
        assert_eq!(takeover.replica, 3, "seed {SEED}: the diagram has replica 3 take over; holds {:?}", story.holds);
        // Within the TTL (counted from the last renewal before the freeze) and a few round trips.
        assert!(takeover.from_ms <= 4_000 + TTL_MS + 200, "took over at {}", takeover.from_ms);
        assert_eq!(leader_at(&story, 15_000), Some(3));
        assert!(story.events.contains(&StoryEvent::SteppedDown {
            at_ms: 9_000,
            replica: 1,
            reason: StepDownReason::WindowPassed
        }));
        assert!(story
            .events
            .iter()
            .any(|event| matches!(event, StoryEvent::Following { replica: 1, holder: 3, at_ms } if *at_ms >= 9_000)));
    }

    #[test]
    fn the_past_does_not_change_when_the_run_goes_further() {
        let short = run(&FailoverRequest { until_ms: 6_000, faults: vec![pause(1, 4_000, None)] }).unwrap();
        let long = run(&FailoverRequest { until_ms: 12_000, faults: vec![pause(1, 4_000, Some(10_000))] }).unwrap();
        let before = |story: &FailoverStory| {
            story.events.iter().filter(|event| event_at(event) <= 6_000).cloned().collect::<Vec<_>>()
        };
        assert_eq!(before(&short), before(&long));
        assert_eq!(short.pauses, vec![PauseSpan { replica: 1, from_ms: 4_000, to_ms: None }]);
    }

    #[test]
    fn crashing_everyone_still_lets_the_lease_expire() {
        let crashes = (1..=3)
            .map(|replica| VisitorFault { kind: VisitorFaultKind::Crash, replica, at_ms: 2_000, end_ms: None })
            .collect();
        let story = run(&FailoverRequest { until_ms: 10_000, faults: crashes }).unwrap();
        assert_eq!(story.holds.len(), 1);
        let hold = &story.holds[0];
        assert_eq!(hold.to_ms, Some(hold.writes_ms.last().unwrap() + TTL_MS));
        assert!(story.roles.iter().all(|span| span.to_ms.is_some_and(|to_ms| to_ms <= 2_000)));
        for replica in 1..=REPLICAS {
            let last = story.roles.iter().rfind(|span| span.replica == replica).unwrap();
            assert_eq!(last.to_ms, Some(2_000), "replica {replica}'s role ends with its crash");
        }
    }

    #[test]
    fn bad_requests_say_what_to_do() {
        let error = run(&FailoverRequest { until_ms: 1_000, faults: vec![pause(4, 0, None)] }).unwrap_err();
        assert!(error.contains("numbered 1 to 3"), "{error}");
        let error = run(&FailoverRequest { until_ms: 1_000, faults: vec![pause(1, 2_000, None)] }).unwrap_err();
        assert!(error.contains("after untilMs"), "{error}");
        let error = run(&FailoverRequest { until_ms: UNTIL_MS_MAX + 1, faults: vec![] }).unwrap_err();
        assert!(error.contains("reset"), "{error}");
    }
}
