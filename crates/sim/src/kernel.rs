//! The kernel: virtual time, the store, pending calls and faults.
//!
//! The kernel is driven by a host that runs the processes' code (Rust
//! futures for the reference solutions, the learner's JavaScript in the
//! browser). The host loop is:
//!
//! 1. `next_step()` says what happens next: a call of some process completes
//!    (`Next::Resume`), a process crashed (`Next::Crashed`), or the run is
//!    over (`Next::Done`);
//! 2. on `Resume`, the host hands the reply to that process and runs it
//!    until it waits again, reporting its new calls with `call()`, its notes
//!    with `note()`, and `finish()` if its workload returned.
//!
//! Everything in between (network latency, when the store applies a call,
//! TTL expiry, watch wake-ups, pauses, crashes, clock drift) is decided here
//! from the plan, in store-time order; ties go in the order events were
//! scheduled. No real time, no other randomness: one plan, one run.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use serde::{Deserialize, Serialize};

use crate::call::{Call, Listed, Record, Reply, WatchEvent};
use crate::clock::LocalClock;
use crate::plan::{Fault, Plan, ProcessIndex, Scheduler};
use crate::rng::hash_range;
use crate::trace::{CallId, Happening, Note, TraceEvent};

/// Bounds on a run. Hitting one ends the run with [`Ending::Limit`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimLimits {
    /// Kernel steps (deliveries, store applications, faults).
    pub steps_max: u64,
    /// Store time.
    pub time_ms_max: u64,
    pub trace_events_max: usize,
    /// Calls over the whole run.
    pub calls_max: u32,
    pub processes_max: u32,
}

impl Default for SimLimits {
    fn default() -> Self {
        SimLimits {
            steps_max: 20_000,
            time_ms_max: 120_000,
            trace_events_max: 20_000,
            calls_max: 5_000,
            processes_max: 16,
        }
    }
}

/// Which limit ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Limit {
    Steps,
    Time,
    TraceEvents,
    Calls,
    /// The plan asks for no process, or for more than `processes_max`: the
    /// run ends before it starts rather than quietly running another number.
    Processes,
}

impl Limit {
    pub fn describe(self, limits: &SimLimits) -> String {
        match self {
            Limit::Steps => format!("the run took more than {} simulation steps", limits.steps_max),
            Limit::Time => format!("the run went on past {} ms of simulated time", limits.time_ms_max),
            Limit::TraceEvents => format!("the run recorded more than {} events", limits.trace_events_max),
            Limit::Calls => format!("the processes made more than {} store calls", limits.calls_max),
            Limit::Processes => {
                format!("the plan asks for a number of processes outside 1 to {}", limits.processes_max)
            }
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ending", rename_all = "camelCase")]
pub enum Ending {
    /// Every process finished or crashed.
    AllFinished,
    /// Nothing more can happen, yet these processes wait for an answer.
    Stuck {
        waiting: Vec<ProcessIndex>,
    },
    Limit {
        limit: Limit,
    },
    /// The host stopped the run (a checker found a violation).
    Stopped,
}

/// What the host must do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Hand `reply` to the process waiting on `call`, and run it.
    Resume {
        process: ProcessIndex,
        call: CallId,
        reply: Reply,
    },
    /// The process crashed: drop its code, it never runs again.
    Crashed {
        process: ProcessIndex,
    },
    Done(Ending),
}

/// Misuse of the kernel by its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    UnknownProcess { process: ProcessIndex },
    NotRunning { process: ProcessIndex },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Running,
    Finished,
    Crashed,
}

#[derive(Clone, Debug)]
struct ProcessState {
    life: Life,
    clock: LocalClock,
    paused_until_ms: Option<u64>,
    calls_made: u32,
}

#[derive(Clone, Debug)]
struct CallState {
    process: ProcessIndex,
    /// Position among this process's calls (what faults target).
    index: u32,
    request: Call,
    reply: Option<Reply>,
    done: bool,
    /// A watch that reached the store and waits for a change.
    waiting: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    /// The request reaches the store.
    Arrive(CallId),
    /// The answer reaches the process.
    Deliver(CallId),
    PauseStart {
        process: ProcessIndex,
        until_ms: u64,
    },
    PauseEnd {
        process: ProcessIndex,
    },
    Crash {
        process: ProcessIndex,
    },
    Jump {
        process: ProcessIndex,
        forward_ms: u64,
    },
}

/// The store's own time limit, as a multiple of the run's: the run's limit
/// (`SimLimits::time_ms_max`) is what ends a run, with its own named ending;
/// the store's is only a backstop against arithmetic running away (a TTL of
/// a day added to a late clock), so it sits well above.
const STORE_TIME_HEADROOM: u64 = 4;

/// The simulation of one run.
#[derive(Clone, Debug)]
pub struct Sim {
    plan: Plan,
    limits: SimLimits,
    store: kv::Store,
    now_ms: u64,
    steps: u64,
    processes: Vec<ProcessState>,
    calls: Vec<CallState>,
    /// Min-heap on (time, sequence): ties keep scheduling order.
    queue: BinaryHeap<Reverse<(u64, u64, Pending)>>,
    sequence: u64,
    waiting_watches: BTreeMap<kv::WatchId, CallId>,
    /// Calls of finished processes not yet answered: the run goes on until
    /// their code is quiet (see `background_busy`).
    background: Vec<CallId>,
    trace: Vec<TraceEvent>,
    ended: Option<Ending>,
}

impl Sim {
    pub fn new(plan: Plan, limits: SimLimits) -> Sim {
        // The process table is sized within the limit whatever the plan says;
        // a plan outside it ends the run at once with `Limit::Processes`.
        let count = plan.processes.clamp(1, limits.processes_max);
        let processes_in_limit = (1..=limits.processes_max).contains(&plan.processes);
        let processes = (0..count)
            .map(|process| ProcessState {
                life: Life::Running,
                clock: LocalClock::for_process(&plan, process),
                paused_until_ms: None,
                calls_made: 0,
            })
            .collect();
        let store_limits =
            kv::Limits { time_ms_max: limits.time_ms_max.saturating_mul(STORE_TIME_HEADROOM), ..kv::Limits::default() };
        let mut sim = Sim {
            plan,
            limits,
            store: kv::Store::with_limits(store_limits),
            now_ms: 0,
            steps: 0,
            processes,
            calls: Vec::new(),
            queue: BinaryHeap::new(),
            sequence: 0,
            waiting_watches: BTreeMap::new(),
            background: Vec::new(),
            trace: Vec::new(),
            ended: None,
        };
        if !processes_in_limit {
            sim.ended = Some(Ending::Limit { limit: Limit::Processes });
            return sim;
        }
        for fault in sim.plan.faults.clone() {
            // A fault for a process the plan does not have targets nothing:
            // shrinking removes a process's faults with it, and replay tokens
            // are checked by `Plan::check` before they reach the kernel, so
            // only a hand-made plan gets here; its other faults still apply.
            if fault.process() >= count {
                continue;
            }
            match fault {
                Fault::Pause { process, at_ms, duration_ms } => {
                    sim.schedule(at_ms, Pending::PauseStart { process, until_ms: at_ms + duration_ms })
                }
                Fault::Crash { process, at_ms } => sim.schedule(at_ms, Pending::Crash { process }),
                Fault::ClockJump { process, at_ms, forward_ms } => {
                    sim.schedule(at_ms, Pending::Jump { process, forward_ms })
                }
                Fault::DelayRequest { .. } | Fault::DelayReply { .. } | Fault::ClockDrift { .. } => {}
            }
        }
        sim
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn limits(&self) -> &SimLimits {
        &self.limits
    }

    pub fn processes(&self) -> u32 {
        self.processes.len() as u32
    }

    /// The store, for checkers that compare a process's belief with the truth.
    pub fn store(&self) -> &kv::Store {
        &self.store
    }

    /// Store time.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The process's own clock now (what its `now()` returns).
    pub fn local_now_ms(&self, process: ProcessIndex) -> u64 {
        self.processes.get(process as usize).map_or(self.now_ms, |state| state.clock.local_at(self.now_ms))
    }

    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// The trace, by value, when the run is over (no copy).
    pub fn into_trace(self) -> Vec<TraceEvent> {
        self.trace
    }

    /// The trace, by value, leaving an empty one (for owners that cannot give up the `Sim`).
    pub fn take_trace(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.trace)
    }

    pub fn calls(&self) -> usize {
        self.calls.len()
    }

    /// The request of a call, for hosts and checkers.
    pub fn request(&self, call: CallId) -> Option<&Call> {
        self.calls.get(call as usize).map(|state| &state.request)
    }

    /// The process that made a call.
    pub fn caller(&self, call: CallId) -> Option<ProcessIndex> {
        self.calls.get(call as usize).map(|state| state.process)
    }

    pub fn is_crashed(&self, process: ProcessIndex) -> bool {
        self.processes.get(process as usize).is_some_and(|state| state.life == Life::Crashed)
    }

    fn schedule(&mut self, at_ms: u64, pending: Pending) {
        self.sequence += 1;
        self.queue.push(Reverse((at_ms, self.sequence, pending)));
    }

    fn record(&mut self, process: Option<ProcessIndex>, happening: Happening) {
        let local_ms = process.map(|process| self.local_now_ms(process));
        self.trace.push(TraceEvent { at_ms: self.now_ms, process, local_ms, happening });
    }

    fn running(&self, process: ProcessIndex) -> Result<(), HostError> {
        match self.alive(process)? {
            Life::Running => Ok(()),
            _ => Err(HostError::NotRunning { process }),
        }
    }

    /// The process's life, if it has not crashed: a crashed process's code never runs again.
    fn alive(&self, process: ProcessIndex) -> Result<Life, HostError> {
        match self.processes.get(process as usize) {
            None => Err(HostError::UnknownProcess { process }),
            Some(state) if state.life == Life::Crashed => Err(HostError::NotRunning { process }),
            Some(state) => Ok(state.life),
        }
    }

    /// Whether a finished process still has a call under way that will be
    /// answered whatever else happens (a sleep, a request or a reply on its
    /// way): its code is not quiet yet. A watch that waits for a change is
    /// not counted, since nothing may ever change its key.
    fn background_busy(&mut self) -> bool {
        let calls = &self.calls;
        self.background.retain(|&call| !calls[call as usize].done);
        self.background.iter().any(|&call| !calls[call as usize].waiting)
    }

    /// Latency bias of the PCT-like scheduler for `process` at this moment.
    fn priority_bias_ms(&self, process: ProcessIndex) -> u64 {
        let Scheduler::Priority { order, change_points_ms, bias_ms } = &self.plan.scheduler else { return 0 };
        let passed = change_points_ms.iter().filter(|at| **at <= self.now_ms).count();
        priority_rank(order, passed, process) as u64 * bias_ms
    }

    /// One-way latency for a call: `leg` 0 is the request, 1 the reply.
    fn latency_ms(&self, process: ProcessIndex, index: u32, leg: u64) -> u64 {
        let base = hash_range(
            &[self.plan.seed, u64::from(process), u64::from(index), leg],
            self.plan.latency_min_ms,
            self.plan.latency_max_ms,
        );
        let extra: u64 = self
            .plan
            .faults
            .iter()
            .map(|fault| match fault {
                Fault::DelayRequest { process: p, call, extra_ms } if leg == 0 && *p == process && *call == index => {
                    *extra_ms
                }
                Fault::DelayReply { process: p, call, extra_ms } if leg == 1 && *p == process && *call == index => {
                    *extra_ms
                }
                _ => 0,
            })
            .sum();
        base + extra + self.priority_bias_ms(process)
    }

    /// A process makes a call; the answer comes through `next_step()`. A
    /// process whose workload finished may still call (code it left running,
    /// a task it started and did not wait for): what it does is part of the run.
    pub fn call(&mut self, process: ProcessIndex, request: Call) -> Result<CallId, HostError> {
        let finished = self.alive(process)? == Life::Finished;
        let id = self.calls.len() as CallId;
        if finished {
            self.background.push(id);
        }
        let index = self.processes[process as usize].calls_made;
        self.processes[process as usize].calls_made += 1;
        let sleep_ms = match request {
            Call::Sleep { ms } => Some(ms),
            _ => None,
        };
        self.record(Some(process), Happening::Invoke { call: id, request: request.clone() });
        self.calls.push(CallState { process, index, request, reply: None, done: false, waiting: false });
        match sleep_ms {
            Some(ms) => {
                let clock = &self.processes[process as usize].clock;
                let target = clock.local_at(self.now_ms).saturating_add(ms);
                let wake_ms = clock.store_time_reaching(self.now_ms, target);
                self.calls[id as usize].reply = Some(Reply::Slept);
                self.schedule(wake_ms, Pending::Deliver(id));
            }
            None => {
                let arrive_ms = self.now_ms + self.latency_ms(process, index, 0);
                self.schedule(arrive_ms, Pending::Arrive(id));
            }
        }
        Ok(id)
    }

    /// A process declares something about itself (see [`Note`]); after its
    /// workload finished too (what its code prints, say).
    pub fn note(&mut self, process: ProcessIndex, note: Note) -> Result<(), HostError> {
        self.alive(process)?;
        self.record(Some(process), Happening::Note { note });
        Ok(())
    }

    /// The process's workload returned. Its calls still under way, and any it
    /// makes from now on, go on as before: the run ends once every process
    /// has finished or crashed and their code is quiet.
    pub fn finish(&mut self, process: ProcessIndex) -> Result<(), HostError> {
        self.running(process)?;
        self.processes[process as usize].life = Life::Finished;
        let under_way = self.calls.iter().enumerate().filter(|(_, call)| call.process == process && !call.done);
        let under_way: Vec<CallId> = under_way.map(|(id, _)| id as CallId).collect();
        self.background.extend(under_way);
        self.record(Some(process), Happening::Finish);
        Ok(())
    }

    /// The process's code failed (it threw, or the host stopped it: a limit, a
    /// broken submission): records the failure and ends the run. Unlike
    /// [`Sim::note`], this records whatever the process's state, since code
    /// can misbehave after its workload finished (a loop started after the last
    /// call); a failure must never be dropped. An unknown process is recorded
    /// as the run's own.
    pub fn fail(&mut self, process: ProcessIndex, message: String) {
        let known = (process as usize) < self.processes.len();
        self.record(known.then_some(process), Happening::Note { note: Note::Failed { message } });
        self.stop(Ending::Stopped);
    }

    /// Ends the run early (a checker found a violation, or the host gave up).
    pub fn stop(&mut self, ending: Ending) {
        self.ended.get_or_insert(ending);
    }

    /// Advances the run to the next thing the host must act on.
    pub fn next_step(&mut self) -> Next {
        loop {
            if let Some(ending) = &self.ended {
                return Next::Done(ending.clone());
            }
            if let Some(limit) = self.limit_hit() {
                self.ended = Some(Ending::Limit { limit });
                continue;
            }
            let next_expiry_ms = self.next_expiry_ms();
            let next_event_ms = self.queue.peek().map(|Reverse((at, _, _))| *at);
            let all_done = self.processes.iter().all(|state| state.life != Life::Running);
            if all_done && !self.background_busy() {
                self.ended = Some(Ending::AllFinished);
                continue;
            }
            match (next_event_ms, next_expiry_ms) {
                (None, None) => {
                    let waiting = self.processes.iter().enumerate().filter(|(_, state)| state.life == Life::Running);
                    self.ended =
                        Some(Ending::Stuck { waiting: waiting.map(|(index, _)| index as ProcessIndex).collect() });
                }
                (event, Some(expiry_ms)) if event.is_none_or(|event_ms| expiry_ms < event_ms) => {
                    // Only TTLs are left to move time: let the next key expire.
                    self.steps += 1;
                    self.advance_store(expiry_ms);
                }
                _ => {
                    let Reverse((at_ms, _, pending)) = self.queue.pop().expect("peeked");
                    self.steps += 1;
                    self.advance_store(at_ms);
                    if let Some(next) = self.handle(pending) {
                        return next;
                    }
                }
            }
        }
    }

    fn limit_hit(&self) -> Option<Limit> {
        if self.steps >= self.limits.steps_max {
            Some(Limit::Steps)
        } else if self.now_ms > self.limits.time_ms_max {
            Some(Limit::Time)
        } else if self.trace.len() > self.limits.trace_events_max {
            Some(Limit::TraceEvents)
        } else if self.calls.len() > self.limits.calls_max as usize {
            Some(Limit::Calls)
        } else {
            None
        }
    }

    fn next_expiry_ms(&self) -> Option<u64> {
        self.store.leases().iter().map(|lease| self.store.now_ms() + lease.remaining_ms).min()
    }

    /// Moves store time forward, recording expiries and waking watchers.
    fn advance_store(&mut self, to_ms: u64) {
        let to_ms = to_ms.max(self.now_ms);
        match self.store.advance_to(to_ms) {
            Ok(events) => {
                self.now_ms = to_ms;
                for event in events {
                    self.record(None, Happening::Expire { key: event.key.clone(), revision: event.revision });
                }
            }
            Err(_) => {
                // Past the store's largest time: treat as the time limit.
                self.now_ms = to_ms;
                self.ended.get_or_insert(Ending::Limit { limit: Limit::Time });
            }
        }
        self.wake_watchers();
    }

    fn wake_watchers(&mut self) {
        for (watch, event) in self.store.take_fired() {
            let Some(call) = self.waiting_watches.remove(&watch) else { continue };
            self.calls[call as usize].waiting = false;
            let reply = Reply::Watch { event: WatchEvent::from_kv(&event) };
            self.answer(call, reply);
        }
    }

    /// The store has an answer for `call`: record it and send it back.
    fn answer(&mut self, call: CallId, result: Reply) {
        let state = &self.calls[call as usize];
        let (process, index) = (state.process, state.index);
        self.record(Some(process), Happening::Apply { call, result: result.clone(), revision: self.store.revision() });
        self.calls[call as usize].reply = Some(result);
        let deliver_ms = self.now_ms + self.latency_ms(process, index, 1);
        self.schedule(deliver_ms, Pending::Deliver(call));
    }

    fn handle(&mut self, pending: Pending) -> Option<Next> {
        match pending {
            Pending::Arrive(call) => {
                self.apply(call);
                None
            }
            Pending::Deliver(call) => self.deliver(call),
            Pending::PauseStart { process, until_ms } => {
                let state = &mut self.processes[process as usize];
                if state.life == Life::Crashed {
                    return None;
                }
                let until_ms = state.paused_until_ms.map_or(until_ms, |current| current.max(until_ms));
                state.paused_until_ms = Some(until_ms);
                self.record(Some(process), Happening::PauseStart { until_ms });
                self.schedule(until_ms, Pending::PauseEnd { process });
                None
            }
            Pending::PauseEnd { process } => {
                let state = &mut self.processes[process as usize];
                if state.paused_until_ms.is_some_and(|until| until <= self.now_ms) && state.life != Life::Crashed {
                    state.paused_until_ms = None;
                    self.record(Some(process), Happening::PauseEnd);
                }
                None
            }
            Pending::Crash { process } => {
                let state = &mut self.processes[process as usize];
                if state.life != Life::Running {
                    return None;
                }
                state.life = Life::Crashed;
                state.paused_until_ms = None;
                self.record(Some(process), Happening::Crash);
                Some(Next::Crashed { process })
            }
            Pending::Jump { process, forward_ms } => {
                if self.processes[process as usize].life != Life::Crashed {
                    self.record(Some(process), Happening::ClockJump { forward_ms });
                }
                None
            }
        }
    }

    fn apply(&mut self, call: CallId) {
        // Borrowed field by field (the request is read while the store changes), not cloned.
        let Sim { calls, store, waiting_watches, .. } = self;
        let refused = |error: kv::StoreError| Reply::Refused { message: error.to_string() };
        let result = match &calls[call as usize].request {
            Call::Get { key } => Reply::Get { record: store.get(key).map(Record::from_kv) },
            Call::Cas { key, next_value, current_value, version, ttl_ms } => {
                let mut expect = match current_value {
                    None => kv::Expect::absent(),
                    Some(value) => kv::Expect::value(value.clone()),
                };
                if let Some(version) = *version {
                    expect = expect.with_mod_revision(version);
                }
                let lease = ttl_ms.map_or(kv::LeaseChoice::None, kv::LeaseChoice::Ttl);
                match store.compare_and_swap(key, next_value, &expect, lease) {
                    Ok(kv::CasOutcome::Swapped { kv }) => {
                        Reply::Cas { ok: true, version: Some(kv.mod_revision), current: None }
                    }
                    Ok(kv::CasOutcome::Mismatch { current }) => {
                        Reply::Cas { ok: false, version: None, current: current.as_ref().map(Record::from_kv) }
                    }
                    Err(error) => refused(error),
                }
            }
            Call::Delete { key, version } => match store.delete_if(key, *version) {
                Ok(previous) => Reply::Delete { ok: previous.is_some() },
                Err(error) => refused(error),
            },
            Call::Watch { key, after_version } => match store.watch(key, *after_version) {
                Ok(kv::WatchStart::Ready { event }) => Reply::Watch { event: WatchEvent::from_kv(&event) },
                Ok(kv::WatchStart::Waiting { watch }) => {
                    waiting_watches.insert(watch, call);
                    calls[call as usize].waiting = true;
                    return;
                }
                Err(error) => refused(error),
            },
            Call::List { prefix } => match store.range_prefix(prefix) {
                Ok(found) => {
                    Reply::List { version: store.revision(), records: found.iter().map(Listed::from_kv).collect() }
                }
                Err(error) => refused(error),
            },
            Call::Sleep { .. } => unreachable!("sleeps never travel to the store"),
        };
        self.answer(call, result);
        // A write may wake watchers of its key.
        self.wake_watchers();
    }

    fn deliver(&mut self, call: CallId) -> Option<Next> {
        let process = self.calls[call as usize].process;
        let state = &self.processes[process as usize];
        match state.life {
            Life::Crashed => {
                if !self.calls[call as usize].done {
                    self.calls[call as usize].done = true;
                    self.record(Some(process), Happening::Lost { call });
                }
                return None;
            }
            Life::Finished | Life::Running => {}
        }
        if let Some(until_ms) = state.paused_until_ms {
            if until_ms > self.now_ms {
                // Stop-the-world: the answer waits until the pause ends.
                self.schedule(until_ms, Pending::Deliver(call));
                return None;
            }
        }
        // Taken, not cloned: a call is delivered once, and the trace keeps its own copy.
        let reply = self.calls[call as usize].reply.take().expect("delivered calls have replies");
        self.calls[call as usize].done = true;
        self.record(Some(process), Happening::Complete { call, reply: reply.clone() });
        Some(Next::Resume { process, call, reply })
    }
}

/// `process`'s rank in `order` after `passed` change points, each of which
/// moves the first process to the back: the process at position i ranks
/// (i - passed) mod n. A process not in `order` ranks last.
fn priority_rank(order: &[ProcessIndex], passed: usize, process: ProcessIndex) -> usize {
    let Some(position) = order.iter().position(|candidate| *candidate == process) else { return order.len() };
    let len = order.len();
    (position + len - passed % len) % len
}

#[cfg(test)]
mod tests {
    use super::priority_rank;

    #[test]
    fn priority_rank_is_the_rank_after_rotating_once_per_change_point() {
        let order = vec![2, 0, 3, 1];
        for passed in 0..10 {
            let mut rotated = order.clone();
            rotated.rotate_left(passed % order.len());
            for process in 0..5 {
                let expected = rotated.iter().position(|candidate| *candidate == process).unwrap_or(order.len());
                assert_eq!(priority_rank(&order, passed, process), expected, "passed {passed}, process {process}");
            }
        }
        assert_eq!(priority_rank(&[], 3, 0), 0);
    }
}
