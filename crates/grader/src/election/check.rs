//! The election exercise's rules, checked on a finished run's trace.
//!
//! One pass over the trace keeps the queue as the store holds it (every key
//! under the prefix, its create version and the process that created it,
//! from the store's own applications and expiries) beside what each process
//! was told and said, and reports the first rule broken:
//!
//! - `one-leader`: nobody takes office while another process leads; a
//!   leadership ends when its holder calls `resign`, crashes, or its key
//!   leaves the store;
//! - `queue-order`: `campaign` returns the caller's own key, and only when no
//!   older key is left in the queue (a key already gone only if the caller's
//!   last call was a read that showed it as the oldest, and it expired after,
//!   created with the ttlMs campaign() was given);
//! - `wake-one`: one cause wakes at most one waiter (of those in the queue,
//!   or in `campaign` and not yet joined; one whose own key ran out is
//!   excused until it joins again): one change of any key, in the queue or
//!   not; or every change a process makes from its `resign` until its next
//!   key joins the queue (its departure); or one process's writes of keys
//!   outside the queue between two departures (see [`Cause`]). And a waiter
//!   waits with `watch`:
//!   it does not sleep while an older key is ahead of its own, and the calls
//!   it makes while another's key is ahead stay proportional to the changes
//!   it could be waiting for (keys ahead of it leaving, its own place
//!   leaving; never its other keys), by `waiting.rs`, the measure the lock's
//!   `lock` is held to;
//! - `resign-deletes`: `resign` removes the caller's key by deleting it
//!   (never by writing it) and nobody else's, returns (a process still
//!   inside it when the run ends breaks the rule), and answers true exactly
//!   when its delete removed that key;
//! - `no-overwrite`: outside `resign`, nobody writes or deletes another
//!   candidate's key: a key in the queue that another process created, or
//!   one named `prefix + name` after another process;
//! - `no-stuck-waiter`: on a calm network the oldest candidate takes office
//!   within a few round trips of becoming the oldest; nobody waits in
//!   `campaign` when nothing more can happen;
//! - `no-errors`: the learner's functions did not throw.
//!
//! A story names what the trace shows: for a herd, which waiter watched what
//! (a key outside the queue, a key further ahead than the one just ahead of
//! it, from a list read before a newer key joined); for a waiter's calls, the
//! watches of its own key it kept making; for a stuck waiter, a watch on a
//! key that is not in the queue (the prefix itself, say).

use std::collections::{BTreeMap, HashMap};

use sim::{
    process_name, Call, CallId, Ending, Fault, Happening, Note, ProcessIndex, ProcessName, Reply, Scheduler,
    TraceEvent, WatchEvent,
};

use super::workload::{ElectionWorkload, ELECTION_PREFIX};
use crate::grade::{Case, Execution};
use crate::report::Violation;
use crate::waiting::{polls, times};

/// A key in the queue, as the store holds it.
#[derive(Clone, Debug)]
struct Queued {
    create_version: u64,
    owner: ProcessIndex,
    /// The TTL it was created with; `None`: it never expires.
    ttl_ms: Option<u64>,
}

/// A process inside `campaign`: its store calls and sleeps since it was called,
/// and the changes of the queue it could have been waiting for since then.
#[derive(Clone, Debug)]
struct Wait {
    started_ms: u64,
    calls: u64,
    changes: u64,
    /// Of those calls, watches of the waiter's own key, and the latest one.
    own_key_watches: u64,
    own_key_watch: Option<(String, u64)>,
    /// Wake-ups by changes of keys outside the queue, and the latest (its event and writer).
    outside_wakes: u64,
    outside_wake: Option<(WatchEvent, Option<ProcessIndex>)>,
}

/// A process inside `resign`.
#[derive(Clone, Copy, Debug)]
struct Resigning {
    since_ms: u64,
    deleted: bool,
}

/// A watch as it was made: what it watched, and where its caller stood then.
#[derive(Clone, Debug)]
struct WatchMade {
    key: String,
    /// The caller's own key then, and the key just ahead of it (with its create version).
    own: Option<String>,
    just_ahead: Option<(String, u64)>,
    /// The version of the caller's latest list reply then.
    listed_version: Option<u64>,
}

/// What made a change a waiter woke to: one change of a key; a process
/// leaving, whose every change from its `resign` until its next key joins
/// the queue counts as one departure (a leader that writes a key for each
/// waiter as it leaves, or as it campaigns again, wakes them all); or one
/// process's writes of keys outside the queue between two departures (a
/// new leader that writes a key for each waiter as it takes office).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Cause {
    Change { key: String, version: u64 },
    Departure { process: ProcessIndex, since_ms: u64 },
    Writes { process: ProcessIndex, departures: u64 },
}

/// The processes one cause woke, each with the change it saw and the watch that saw it.
type Woken = Vec<(ProcessIndex, WatchEvent, Option<WatchMade>)>;

/// A watch that answered with a change its caller had already read.
#[derive(Clone, Debug)]
struct StaleWake {
    key: String,
    after_version: u64,
    kind: String,
    version: u64,
}

/// The oldest candidate, waiting in `campaign`, must take office by `due_ms`.
#[derive(Clone, Debug)]
struct Due {
    process: ProcessIndex,
    key: String,
    since_ms: u64,
    trace_index: usize,
}

/// Why the last key to leave the queue left, for the stories.
#[derive(Clone, Debug)]
struct Departure {
    key: String,
    version: u64,
    at_ms: u64,
}

pub fn check(case: &Case<ElectionWorkload>, execution: &Execution) -> Option<Violation> {
    let mut checker = Checker::new(case);
    for (index, event) in execution.trace.iter().enumerate() {
        if let Some(violation) = checker.step(index, event) {
            return Some(violation);
        }
    }
    checker.at_end(execution)
}

struct Checker {
    requests: HashMap<CallId, Call>,
    queue: BTreeMap<String, Queued>,
    /// Who leads now: the process and its key.
    leading: BTreeMap<ProcessIndex, String>,
    /// Processes inside `campaign`, since when.
    campaigning: BTreeMap<ProcessIndex, u64>,
    /// Processes inside `resign`: since when, and whether a delete of their own key landed.
    resigning: BTreeMap<ProcessIndex, Resigning>,
    /// Crashed processes, and when.
    crashed: HashMap<ProcessIndex, u64>,
    /// Processes whose workload is done (their code may still run).
    finished: std::collections::HashSet<ProcessIndex>,
    /// Each process's TTL for its current `campaign` (the workload's), and how many campaigns it has begun.
    campaign_ttl: HashMap<ProcessIndex, u64>,
    campaigns_begun: HashMap<ProcessIndex, usize>,
    scripts: Vec<Vec<super::workload::ElectionStep>>,
    /// Processes in `campaign` whose own key expired and that have not created one since: out of the queue.
    rejoining: std::collections::HashSet<ProcessIndex>,
    /// Each process inside `campaign`: how it waits.
    waits: HashMap<ProcessIndex, Wait>,
    /// Each process's watch not yet answered: its key and the version it watches from.
    watching: HashMap<ProcessIndex, (String, u64)>,
    /// Every watch made, by its call.
    watches: HashMap<CallId, WatchMade>,
    /// The version of each process's latest list reply, and its latest watch answered with an old change.
    listed_version: HashMap<ProcessIndex, u64>,
    stale_wake: HashMap<ProcessIndex, StaleWake>,
    /// The version at which each key last left the store.
    departed_version: HashMap<String, u64>,
    /// Which processes each cause woke, and how each had watched.
    woken: HashMap<Cause, Woken>,
    /// The version of each change a departure made, to its process and resign's start.
    departures: HashMap<u64, (ProcessIndex, u64)>,
    /// The version of each change of a key outside the queue, to its writer and how many keys had left the
    /// queue by then; and that count now.
    outside_writes: HashMap<u64, (ProcessIndex, u64)>,
    keys_departed: u64,
    /// When each process last called `resign`.
    resigned_ms: HashMap<ProcessIndex, u64>,
    due: Option<Due>,
    /// Each process's own key and its create version, when the process's
    /// latest read (a list, or a get of that key, the call named here) was
    /// applied while that key was the oldest in the queue; any other reply
    /// that reaches the process after it clears it (a call made since and
    /// not yet answered told the process nothing).
    seen_oldest: HashMap<ProcessIndex, (String, u64, CallId)>,
    /// The processes the plan has (a key named `prefix + name` is that process's).
    processes: u32,
    /// Keys whose latest departure was an expiry: the create version, TTL and owner they had.
    expired: HashMap<String, (u64, Option<u64>, ProcessIndex)>,
    last_departure: Option<Departure>,
    /// The handover bound on a calm network, or None when faults make timing unbounded.
    handover_ms_max: Option<u64>,
    limits: sim::SimLimits,
}

fn violation(rule: &str, message: String, index: usize, at_ms: u64, process: ProcessIndex) -> Option<Violation> {
    Some(Violation::new(rule, message, Some(index), at_ms, Some(process)))
}

impl Checker {
    fn new(case: &Case<ElectionWorkload>) -> Checker {
        let calm =
            !case.plan.faults.iter().any(|fault| {
                matches!(fault, Fault::Pause { .. } | Fault::DelayRequest { .. } | Fault::DelayReply { .. })
            });
        let bias_ms = match &case.plan.scheduler {
            Scheduler::Random => 0,
            Scheduler::Priority { bias_ms, order, .. } => bias_ms * order.len() as u64,
        };
        let round_trip_ms = 2 * (case.plan.latency_max_ms + bias_ms);
        Checker {
            requests: HashMap::new(),
            queue: BTreeMap::new(),
            leading: BTreeMap::new(),
            campaigning: BTreeMap::new(),
            resigning: BTreeMap::new(),
            crashed: HashMap::new(),
            finished: std::collections::HashSet::new(),
            campaign_ttl: HashMap::new(),
            campaigns_begun: HashMap::new(),
            scripts: case.workload.scripts.clone(),
            rejoining: std::collections::HashSet::new(),
            waits: HashMap::new(),
            watching: HashMap::new(),
            watches: HashMap::new(),
            listed_version: HashMap::new(),
            stale_wake: HashMap::new(),
            departed_version: HashMap::new(),
            woken: HashMap::new(),
            departures: HashMap::new(),
            outside_writes: HashMap::new(),
            keys_departed: 0,
            resigned_ms: HashMap::new(),
            due: None,
            seen_oldest: HashMap::new(),
            processes: case.plan.processes,
            expired: HashMap::new(),
            last_departure: None,
            // Becoming the oldest, a waiter hears of it (half a round trip), reads the queue (one)
            // and returns; the first candidate creates its key, then reads. Three round trips cover both.
            handover_ms_max: calm.then_some(3 * round_trip_ms),
            limits: case.limits.clone(),
        }
    }

    /// The oldest key in the queue.
    fn head(&self) -> Option<(&String, &Queued)> {
        self.queue.iter().min_by_key(|(_, queued)| queued.create_version)
    }

    /// After any change: who must take office next, and since when.
    fn update_due(&mut self, at_ms: u64, index: usize) {
        let next = self.head().and_then(|(key, queued)| {
            let waiting = self.campaigning.contains_key(&queued.owner) && !self.crashed.contains_key(&queued.owner);
            waiting.then(|| (queued.owner, key.clone()))
        });
        match (next, &self.due) {
            (Some((process, key)), Some(due)) if due.process == process && due.key == key => {}
            (Some((process, key)), _) => self.due = Some(Due { process, key, since_ms: at_ms, trace_index: index }),
            (None, _) => self.due = None,
        }
    }

    /// The oldest key `process` has in the queue: its place in line.
    fn place_of(&self, process: ProcessIndex) -> Option<u64> {
        self.queue.values().filter(|queued| queued.owner == process).map(|queued| queued.create_version).min()
    }

    /// A key joined or left the queue: each waiter counts it if it is a change
    /// that waiter could be waiting for. A key of another process older than
    /// the waiter's place (or any other's key, while it has none), or the
    /// waiter's own place leaving; never keys it made for itself besides:
    /// otherwise a waiter could earn its polling with keys of its own.
    fn count_change(&mut self, key_owner: ProcessIndex, create_version: u64, own_place_left: bool) {
        let waiting: Vec<ProcessIndex> = self.waits.keys().copied().collect();
        for waiter in waiting {
            let counts = if waiter == key_owner {
                own_place_left
            } else {
                self.place_of(waiter).is_none_or(|place| create_version < place)
            };
            if counts {
                if let Some(wait) = self.waits.get_mut(&waiter) {
                    wait.changes += 1;
                }
            }
        }
    }

    /// `key` left the store (deleted or expired) at `version`.
    fn remove_key(&mut self, key: &str, version: u64, at_ms: u64) -> Option<Queued> {
        let place = self.queue.get(key).and_then(|queued| self.place_of(queued.owner));
        let queued = self.queue.remove(key)?;
        self.keys_departed += 1;
        self.count_change(queued.owner, queued.create_version, place == Some(queued.create_version));
        self.expired.remove(key);
        self.departed_version.insert(key.to_string(), version);
        self.leading.retain(|_, leading_key| leading_key != key);
        self.last_departure = Some(Departure { key: key.to_string(), version, at_ms });
        Some(queued)
    }

    fn step(&mut self, index: usize, event: &TraceEvent) -> Option<Violation> {
        let at_ms = event.at_ms;
        if let (Some(due), Some(handover_ms_max)) = (&self.due, self.handover_ms_max) {
            if at_ms > due.since_ms + handover_ms_max {
                let why = match &self.last_departure {
                    Some(departure) if departure.at_ms <= due.since_ms => format!(
                        " ({:?} left the queue at t={} ms, version {})",
                        departure.key, departure.at_ms, departure.version
                    ),
                    _ => String::new(),
                };
                return violation(
                    "no-stuck-waiter",
                    format!(
                        "{}'s key {:?} was the oldest in the queue from t={} ms{why}, but at t={at_ms} ms {} was still waiting in campaign(){}, though on this calm network it could have taken office within {handover_ms_max} ms: when the key ahead of you goes, read the queue again and watch the newest key older than yours, from the version of your read",
                        process_name(due.process),
                        due.key,
                        due.since_ms,
                        process_name(due.process),
                        self.watching_story(due.process),
                    ),
                    due.trace_index,
                    due.since_ms,
                    due.process,
                );
            }
        }
        if let Happening::Expire { key, revision } = &event.happening {
            if let Some(queued) = self.remove_key(key, *revision, at_ms) {
                self.expired.insert(key.clone(), (queued.create_version, queued.ttl_ms, queued.owner));
                // Out of line through no doing of its own: its key ran out with the TTL campaign() gave it.
                // One that let a key of its own making run out (a shorter TTL) is still waiting as a herd would.
                let given_ttl = self.campaign_ttl.get(&queued.owner).copied();
                if self.campaigning.contains_key(&queued.owner)
                    && self.place_of(queued.owner).is_none()
                    && queued.ttl_ms.is_some()
                    && queued.ttl_ms == given_ttl
                {
                    self.rejoining.insert(queued.owner);
                }
                self.update_due(at_ms, index);
            }
            return None;
        }
        let process = event.process?;
        // A reply other than the read's own: the process has learned something since that read.
        if let Happening::Complete { call, .. } | Happening::Lost { call } = &event.happening {
            if self.seen_oldest.get(&process).is_some_and(|(_, _, read)| read != call) {
                self.seen_oldest.remove(&process);
            }
        }
        match &event.happening {
            Happening::Invoke { call, request } => {
                self.requests.insert(*call, request.clone());
                return self.invoked(index, at_ms, process, *call, request);
            }
            Happening::Complete { reply: Reply::List { version, .. }, .. } => {
                self.listed_version.insert(process, *version);
            }
            Happening::Apply { call, result, revision } => {
                return self.apply(index, at_ms, process, *call, result, *revision)
            }
            Happening::Complete { call, reply: Reply::Watch { event } } => {
                self.watching.remove(&process);
                let after_version = match self.requests.get(call) {
                    Some(Call::Watch { after_version, .. }) => *after_version,
                    _ => 0,
                };
                match self.listed_version.get(&process) {
                    Some(&listed) if event.version <= listed => {
                        let stale = StaleWake {
                            key: event.key.clone(),
                            after_version,
                            kind: event.kind.clone(),
                            version: event.version,
                        };
                        self.stale_wake.insert(process, stale);
                    }
                    _ => {
                        self.stale_wake.remove(&process);
                    }
                }
                // A waiter counts when it is in the queue, or in campaign() with no key yet: a candidate that
                // waits for the leader before joining is the herd all the same. Only one whose key ran out
                // (and that has not joined again) is excused: it is out of line, not waiting its turn.
                let in_queue = self.queue.values().any(|queued| queued.owner == process);
                let keyless_waiter = self.campaigning.contains_key(&process) && !self.rejoining.contains(&process);
                if !in_queue && !keyless_waiter {
                    return None;
                }
                // One process woken twice by the same change is not two waiters: its calls are judged in `invoked`.
                // Any key counts, in the queue or not: waiters that share one key outside it are a herd too.
                let made = self.watches.remove(call);
                if !self.is_queue_key(&event.key) && !event.key.starts_with(ELECTION_PREFIX) {
                    let writer = self.outside_writes.get(&event.version).map(|&(writer, _)| writer);
                    if let Some(wait) = self.waits.get_mut(&process) {
                        wait.outside_wakes += 1;
                        wait.outside_wake = Some((event.clone(), writer));
                    }
                }
                let cause = match (self.departures.get(&event.version), self.outside_writes.get(&event.version)) {
                    (Some(&(process, since_ms)), _) => Cause::Departure { process, since_ms },
                    (None, Some(&(process, departures))) => Cause::Writes { process, departures },
                    (None, None) => Cause::Change { key: event.key.clone(), version: event.version },
                };
                let woken = self.woken.entry(cause.clone()).or_default();
                if woken.iter().any(|(woken, ..)| *woken == process) {
                    return None;
                }
                woken.push((process, event.clone(), made));
                if woken.len() > 1 {
                    let woken = woken.clone();
                    let message = self.herd_story(&cause, &woken);
                    return violation("wake-one", message, index, at_ms, process);
                }
            }
            Happening::Lost { .. } => {
                self.watching.remove(&process);
            }
            Happening::Crash => {
                self.crashed.insert(process, at_ms);
                self.leading.remove(&process);
                self.update_due(at_ms, index);
            }
            Happening::Note { note } => return self.note(index, at_ms, process, note),
            Happening::Finish => {
                self.finished.insert(process);
            }
            _ => {}
        }
        None
    }

    fn apply(
        &mut self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        call: CallId,
        result: &Reply,
        revision: u64,
    ) -> Option<Violation> {
        let request = self.requests.get(&call)?.clone();
        if let Some(found) = self.changed_by_another(index, at_ms, process, &request, result) {
            return Some(found);
        }
        if let Some(found) = self.written_without_ttl(index, at_ms, process, &request, result) {
            return Some(found);
        }
        // A change a leaving process makes (in resign, or after it, until its next key joins the queue) is
        // part of its departure.
        if matches!(result, Reply::Cas { ok: true, .. } | Reply::Delete { ok: true }) {
            let left = self.place_of(process).is_none();
            let since = match self.resigning.get(&process) {
                Some(resigning) => Some(resigning.since_ms),
                None => self.resigned_ms.get(&process).copied().filter(|_| left),
            };
            let key = match &request {
                Call::Cas { key, .. } | Call::Delete { key, .. } => Some(key),
                _ => None,
            };
            if let Some(since_ms) = since {
                self.departures.insert(revision, (process, since_ms));
            } else if key.is_some_and(|key| !self.is_queue_key(key) && !key.starts_with(ELECTION_PREFIX)) {
                self.outside_writes.insert(revision, (process, self.keys_departed));
            }
        }
        match (&request, result) {
            // What a read showed this process: whether its own key was the oldest. A list shows it;
            // so does a get of that key, for a process that knows no older key can be left.
            (Call::List { .. }, Reply::List { .. }) | (Call::Get { .. }, Reply::Get { .. }) => {
                let read_key = match request {
                    Call::Get { key } => Some(key),
                    _ => None,
                };
                match self.head() {
                    Some((key, queued)) if queued.owner == process && read_key.is_none_or(|read| *read == *key) => {
                        let seen = (key.clone(), queued.create_version, call);
                        self.seen_oldest.insert(process, seen);
                    }
                    _ => {
                        self.seen_oldest.remove(&process);
                    }
                }
            }
            // A create (not a rewrite of a key already queued) joins the queue.
            (Call::Cas { key, .. }, Reply::Cas { ok: true, version: Some(version), .. })
                if key.starts_with(ELECTION_PREFIX) && !self.queue.contains_key(key) =>
            {
                let ttl_ms = match &request {
                    Call::Cas { ttl_ms, .. } => *ttl_ms,
                    _ => None,
                };
                self.count_change(process, *version, false);
                self.queue.insert(key.clone(), Queued { create_version: *version, owner: process, ttl_ms });
                self.rejoining.remove(&process);
                self.update_due(at_ms, index);
            }
            // A rewrite keeps the key's place in the queue; its TTL is the rewrite's (none if it gave none).
            (Call::Cas { key, ttl_ms, .. }, Reply::Cas { ok: true, .. }) if key.starts_with(ELECTION_PREFIX) => {
                if let Some(queued) = self.queue.get_mut(key) {
                    queued.ttl_ms = *ttl_ms;
                }
            }
            (Call::Delete { key, .. }, Reply::Delete { ok: true }) if key.starts_with(ELECTION_PREFIX) => {
                let key = key.clone();
                if self.remove_key(&key, revision, at_ms).is_some() {
                    if let Some(resigning) = self.resigning.get_mut(&process) {
                        resigning.deleted = true;
                    }
                }
                self.update_due(at_ms, index);
            }
            _ => {}
        }
        None
    }

    /// A candidate's key written with no TTL (`key-has-ttl`): if its owner
    /// crashes, it stays in the queue for ever and holds up everyone behind
    /// it; written after its owner's work is done, it holds up the next election.
    fn written_without_ttl(
        &self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        request: &Call,
        result: &Reply,
    ) -> Option<Violation> {
        let (Call::Cas { key, ttl_ms: None, .. }, Reply::Cas { ok: true, .. }) = (request, result) else { return None };
        if !key.starts_with(ELECTION_PREFIX) {
            return None;
        }
        let given = match self.campaign_ttl.get(&process) {
            Some(ttl_ms) => format!(" (campaign() was given ttlMs {ttl_ms})"),
            None => String::new(),
        };
        let when = if self.finished.contains(&process) { ", after its work was done," } else { "" };
        violation(
            "key-has-ttl",
            format!(
                "{} wrote {key:?}{when} with no TTL{given}: a key that never expires stays in the queue for ever if its owner crashes, and holds up every candidate behind it. Pass {{ ttlMs }} to every compareAndSwap of a candidate's key",
                ProcessName(process)
            ),
            index,
            at_ms,
            process,
        )
    }

    /// Whose key `key` is: the process that created it, while it is in the
    /// queue; otherwise the process it is named after (`prefix + name`).
    fn owner_of(&self, key: &str) -> Option<ProcessIndex> {
        if let Some(queued) = self.queue.get(key) {
            return Some(queued.owner);
        }
        let name = key.strip_prefix(ELECTION_PREFIX)?;
        (0..self.processes).find(|&process| ProcessName(process).to_string() == name)
    }

    /// A write or delete that landed on a key it had no business changing:
    /// another candidate's (`no-overwrite`; inside `resign`, `resign-deletes`),
    /// or, inside `resign`, its own key written instead of deleted.
    fn changed_by_another(
        &self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        request: &Call,
        result: &Reply,
    ) -> Option<Violation> {
        let (key, ttl_ms, deleting) = match (request, result) {
            (Call::Cas { key, ttl_ms, .. }, Reply::Cas { ok: true, .. }) => (key, *ttl_ms, false),
            (Call::Delete { key, .. }, Reply::Delete { ok: true }) => (key, None, true),
            _ => return None,
        };
        let name = ProcessName(process);
        let in_resign = self.resigning.contains_key(&process);
        let owner = self.owner_of(key);
        if owner == Some(process) {
            if in_resign && !deleting {
                let ttl = match ttl_ms {
                    Some(ttl_ms) => format!(" with ttlMs {ttl_ms}"),
                    None => " with no TTL".to_string(),
                };
                return violation(
                    "resign-deletes",
                    format!(
                        "resign() rewrote its key {key:?}{ttl} instead of deleting it: a rewritten key stays in the queue{}, and the next candidate waits for it; resign with delete(key, {{ version }}) and return its ok",
                        if ttl_ms.is_some() { " until its TTL runs out" } else { " for ever" }
                    ),
                    index,
                    at_ms,
                    process,
                );
            }
            return None;
        }
        let owner = owner?;
        let other = ProcessName(owner);
        if in_resign && deleting {
            return violation(
                "resign-deletes",
                format!("{name} deleted {key:?}, which is {other}'s key: resign must delete only your own key, with the version campaign() returned"),
                index,
                at_ms,
                process,
            );
        }
        let queued = self.queue.get(key);
        let what = match (deleting, queued) {
            (true, _) => "deleted".to_string(),
            (false, Some(_)) => match ttl_ms {
                Some(ttl_ms) => format!("rewrote (with ttlMs {ttl_ms})"),
                None => "rewrote (with no TTL)".to_string(),
            },
            (false, None) => "wrote".to_string(),
        };
        let whose = match queued {
            Some(queued) => format!("{other}'s key in the queue (created at version {})", queued.create_version),
            None => format!("the key of {other}, prefix + {:?}", other.to_string()),
        };
        let function = if self.campaigning.contains_key(&process) { " in campaign()" } else { "" };
        violation(
            "no-overwrite",
            format!(
                "{name} {what} {key:?}{function}, {whose}: a candidate changes only its own key, prefix + ctx.name; to wait for another candidate, watch its key, and let the store remove it when its TTL runs out"
            ),
            index,
            at_ms,
            process,
        )
    }

    fn note(&mut self, index: usize, at_ms: u64, process: ProcessIndex, note: &Note) -> Option<Violation> {
        let name = process_name(process);
        match note {
            Note::Calling { function } if function == "campaign" => {
                self.campaigning.insert(process, at_ms);
                let wait = Wait {
                    started_ms: at_ms,
                    calls: 0,
                    changes: 0,
                    own_key_watches: 0,
                    own_key_watch: None,
                    outside_wakes: 0,
                    outside_wake: None,
                };
                self.waits.insert(process, wait);
                let begun = self.campaigns_begun.entry(process).or_insert(0);
                let ttl_ms = self
                    .scripts
                    .get(process as usize)
                    .into_iter()
                    .flatten()
                    .filter_map(|step| match step {
                        super::workload::ElectionStep::Campaign { ttl_ms } => Some(*ttl_ms),
                        _ => None,
                    })
                    .nth(*begun);
                *begun += 1;
                if let Some(ttl_ms) = ttl_ms {
                    self.campaign_ttl.insert(process, ttl_ms);
                }
                self.update_due(at_ms, index);
            }
            Note::Calling { function } if function == "resign" => {
                // Once it has decided to resign, a process no longer counts as leading.
                self.leading.remove(&process);
                self.resigning.insert(process, Resigning { since_ms: at_ms, deleted: false });
                self.resigned_ms.insert(process, at_ms);
            }
            Note::Elected { key, version } => {
                self.campaigning.remove(&process);
                self.rejoining.remove(&process);
                self.waits.remove(&process);
                if !self.queue.contains_key(key) {
                    // The one honest way to name a key that is gone: the process's last call was a read that
                    // showed its key as the oldest (a list, or a get of that key), and the key, created with
                    // the ttlMs campaign() was given, expired after that read while the reply was on its way.
                    // Its term ended before it began, and the process could not have known. Anything else (a
                    // key it deleted itself, or gave a TTL of its own, or waited on after the read, one no read
                    // showed as the oldest, another's, one that never existed) is a claim.
                    let ttl_ms = self.campaign_ttl.get(&process).copied();
                    let seen = self.seen_oldest.get(&process).is_some_and(|(seen_key, seen_version, _)| {
                        seen_key == key
                            && seen_version == version
                            && self.expired.get(key) == Some(&(*version, ttl_ms, process))
                    });
                    if seen {
                        self.update_due(at_ms, index);
                        return None;
                    }
                    let what = match (
                        self.expired.get(key).map(|&(_, ttl, owner)| (ttl, owner)),
                        self.departed_version.get(key),
                    ) {
                        (Some((_, owner)), _) if owner != process => {
                            format!("it was {}'s key, and it expired", process_name(owner))
                        }
                        (Some((ttl, _)), _) if ttl != ttl_ms => {
                            "it expired, created with a TTL other than the ttlMs campaign() was given".to_string()
                        }
                        (Some(_), _) => "its TTL ran out".to_string(),
                        (None, Some(_)) => "it was deleted".to_string(),
                        (None, None) => "it was never created".to_string(),
                    };
                    return violation(
                        "queue-order",
                        format!("campaign() returned {{ key: {key:?}, version: {version} }} to {name}, but that key is not in the store ({what}), and no list {name} read showed it as the oldest in the queue: return only once a list shows your own key as the oldest, and if your key is gone, create it again and wait your turn"),
                        index,
                        at_ms,
                        process,
                    );
                }
                if let Some((other, other_key)) = self.leading.iter().next() {
                    return violation(
                        "one-leader",
                        format!(
                            "campaign() returned to {name} while {} led (its key {other_key:?} was still in the store): a process leads only when its key is the oldest under the prefix",
                            process_name(*other)
                        ),
                        index,
                        at_ms,
                        process,
                    );
                }
                match self.queue.get(key) {
                    Some(queued) if queued.owner == process && queued.create_version == *version => {
                        if let Some((older_key, older)) = self.head().filter(|(_, head)| head.create_version < *version)
                        {
                            return violation(
                                "queue-order",
                                format!(
                                    "campaign() returned to {name} while {older_key:?} (created at version {}, by {}) was still ahead of its key {key:?} (version {version}): wait until no older key is left",
                                    older.create_version,
                                    process_name(older.owner)
                                ),
                                index,
                                at_ms,
                                process,
                            );
                        }
                        // Everyone finds a candidate's key by its name: prefix + ctx.name.
                        let own_key = format!("{ELECTION_PREFIX}{name}");
                        if *key != own_key {
                            return violation(
                                "queue-order",
                                format!("campaign() returned {{ key: {key:?}, version: {version} }} to {name}, but a candidate's key is prefix + ctx.name, {own_key:?}: create and return exactly that key"),
                                index,
                                at_ms,
                                process,
                            );
                        }
                        self.leading.insert(process, key.clone());
                    }
                    Some(queued) if queued.owner != process => {
                        return violation(
                            "queue-order",
                            format!("campaign() returned {{ key: {key:?}, version: {version} }} to {name}, but that key belongs to {}: return your own key and the version that created it", process_name(queued.owner)),
                            index,
                            at_ms,
                            process,
                        );
                    }
                    Some(queued) => {
                        return violation(
                            "queue-order",
                            format!("campaign() returned {{ key: {key:?}, version: {version} }} to {name}, but that key was created at version {}: return the version of the compareAndSwap that created your key", queued.create_version),
                            index,
                            at_ms,
                            process,
                        );
                    }
                    None => unreachable!("checked above"),
                }
                self.update_due(at_ms, index);
            }
            Note::Resigned { key, version, ok } => {
                let deleted = self.resigning.remove(&process).is_some_and(|resigning| resigning.deleted);
                let still_there = self
                    .queue
                    .get(key)
                    .is_some_and(|queued| queued.owner == process && queued.create_version == *version);
                if still_there && !deleted {
                    return violation(
                        "resign-deletes",
                        format!(
                            "resign() returned to {name}, but its key {key:?} (version {version}) is still in the queue, so the next candidate waits for its TTL: delete it with delete(key, {{ version }})"
                        ),
                        index,
                        at_ms,
                        process,
                    );
                }
                if *ok != deleted {
                    let what = if deleted {
                        format!("false, though its delete removed its key {key:?}")
                    } else {
                        format!("true, though no delete of its key {key:?} landed (the key was already gone)")
                    };
                    return violation(
                        "resign-deletes",
                        format!("resign() returned {what}: return the ok of your delete(key, {{ version }}), true only when it removed your key"),
                        index,
                        at_ms,
                        process,
                    );
                }
            }
            Note::Failed { message } => {
                return violation(crate::grade::NO_ERRORS, message.clone(), index, at_ms, process)
            }
            _ => {}
        }
        None
    }

    /// A store call or sleep: inside `campaign`, judged by the measure of waiting with `watch`.
    fn invoked(
        &mut self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        call: CallId,
        request: &Call,
    ) -> Option<Violation> {
        let place = self.place_of(process);
        let mut own_key_watch = None;
        if let Call::Watch { key, after_version } = request {
            self.watching.insert(process, (key.clone(), *after_version));
            let own = self
                .queue
                .iter()
                .find(|(_, queued)| Some(queued.create_version) == place && queued.owner == process)
                .map(|(own, _)| own.clone());
            let just_ahead = place.and_then(|place| {
                self.queue
                    .iter()
                    .filter(|(_, queued)| queued.create_version < place)
                    .max_by_key(|(_, queued)| queued.create_version)
                    .map(|(ahead, queued)| (ahead.clone(), queued.create_version))
            });
            if self.queue.get(key).is_some_and(|queued| queued.owner == process) {
                own_key_watch = Some((key.clone(), *after_version));
            }
            let made = WatchMade {
                key: key.clone(),
                own,
                just_ahead,
                listed_version: self.listed_version.get(&process).copied(),
            };
            self.watches.insert(call, made);
        }
        // Only a call made while another's key is ahead (or, before joining, while others are queued)
        // is made waiting: a candidate with nobody ahead may take as many steps as it likes to lead.
        let waiting_its_turn = self
            .queue
            .values()
            .any(|queued| queued.owner != process && place.is_none_or(|place| queued.create_version < place));
        let wait = self.waits.get_mut(&process)?;
        if waiting_its_turn {
            wait.calls += 1;
            if let Some(watched) = own_key_watch {
                wait.own_key_watches += 1;
                wait.own_key_watch = Some(watched);
            }
        }
        let (calls, started_ms, changes) = (wait.calls, wait.started_ms, wait.changes);
        let name = process_name(process);
        if let Call::Sleep { ms } = request {
            if let Some((own_key, own)) = self.queue.iter().find(|(_, queued)| queued.owner == process) {
                let ahead = self
                    .queue
                    .iter()
                    .filter(|(_, queued)| queued.create_version < own.create_version)
                    .max_by_key(|(_, queued)| queued.create_version);
                if let Some((ahead_key, _)) = ahead {
                    return violation(
                        "wake-one",
                        format!(
                            "{name} slept {ms} ms in campaign() while {ahead_key:?} was ahead of its key {own_key:?}: sleeping and reading the queue again is polling, which reads the store over and over; watch the key just ahead of yours, from the version of your read, so that only its departure wakes you"
                        ),
                        index,
                        at_ms,
                        process,
                    );
                }
            }
        }
        if polls(calls, changes) {
            let (own_key_watches, own_key_watch) = (wait.own_key_watches, wait.own_key_watch.clone());
            let (outside_wakes, outside_wake) = (wait.outside_wakes, wait.outside_wake.clone());
            let cause = match (self.stale_wake.get(&process), own_key_watch) {
                (None, None) if outside_wakes > 0 => {
                    let (event, writer) = outside_wake.unwrap_or_else(|| unreachable!("counted with it"));
                    let by = writer.map_or(String::new(), |writer| format!(" by {}", ProcessName(writer)));
                    format!(
                        "it was woken {} by changes of keys outside the queue, the latest the {} of {:?}{by}: a waiter should wake only when the key just ahead of it changes; watch only that key",
                        times(outside_wakes),
                        event.kind,
                        event.key
                    )
                }
                (Some(stale), _) => format!(
                    "its watch({:?}, {}) answered at once with the {} at version {}, which its last list had already shown: watch from the version of your list reply, so that only a newer change wakes you",
                    stale.key, stale.after_version, stale.kind, stale.version
                ),
                (None, Some((own_key, after_version))) => format!(
                    "{own_key_watches} of those calls {} watches of its own key, the latest watch({own_key:?}, {after_version}): your own key changes only when you leave, so each such watch is one more call and one more watch left waiting; watch only the key just ahead of yours",
                    if own_key_watches == 1 { "was one of the" } else { "were" }
                ),
                _ => "wait with watch on the key just ahead of yours instead of reading the queue again and again".to_string(),
            };
            return violation(
                "wake-one",
                format!(
                    "{name} made {calls} calls while waiting in campaign() for {} ms, though the queue changed {}: {cause}",
                    at_ms - started_ms,
                    times(changes)
                ),
                index,
                at_ms,
                process,
            );
        }
        None
    }

    /// Whether `key` is, or was, a key in the queue.
    fn is_queue_key(&self, key: &str) -> bool {
        self.queue.contains_key(key) || self.departed_version.contains_key(key)
    }

    /// One change, or one departure, woke several waiters: which, and what
    /// each was watching when that was not the key just ahead of its own.
    fn herd_story(&self, cause: &Cause, woken: &[(ProcessIndex, WatchEvent, Option<WatchMade>)]) -> String {
        let names: Vec<String> = woken.iter().map(|(woken, ..)| process_name(*woken)).collect();
        let first = &woken[0].1;
        let one_change = woken.iter().all(|(_, event, _)| event.key == first.key && event.version == first.version);
        let what = match cause {
            Cause::Writes { process, .. } if !one_change => {
                let changes: Vec<String> = woken
                    .iter()
                    .map(|(woken, event, _)| {
                        format!(
                            "{} by the {} of {:?} (version {})",
                            ProcessName(*woken),
                            event.kind,
                            event.key,
                            event.version
                        )
                    })
                    .collect();
                format!(
                    "{}'s writes of keys outside the queue, one for each waiter ({}),",
                    ProcessName(*process),
                    changes.join(", ")
                )
            }
            Cause::Departure { process, since_ms } if !one_change => {
                let changes: Vec<String> = woken
                    .iter()
                    .map(|(woken, event, _)| {
                        format!(
                            "{} by the {} of {:?} (version {})",
                            ProcessName(*woken),
                            event.kind,
                            event.key,
                            event.version
                        )
                    })
                    .collect();
                format!(
                    "one departure, {}'s resign() from t={since_ms} ms, with a change for each waiter ({}),",
                    ProcessName(*process),
                    changes.join(", ")
                )
            }
            _ => {
                let outside = if self.is_queue_key(&first.key) { "" } else { ", which is not a key in the queue," };
                format!("one {} of {:?} (version {}){outside}", first.kind, first.key, first.version)
            }
        };
        let mut causes = Vec::new();
        for (woken, _, made) in woken {
            let Some(made) = made else { continue };
            let Some(own) = &made.own else { continue };
            let name = ProcessName(*woken);
            let key = &made.key;
            match &made.just_ahead {
                _ if key == own => causes.push(format!("{name} was watching its own key {own:?}")),
                Some((ahead, _)) if ahead == key => {}
                Some((ahead, created)) => {
                    let stale = match made.listed_version {
                        Some(listed) if listed < *created => format!(
                            " (created at version {created}, after the list {name} read at version {listed}: read the queue again after creating your key)"
                        ),
                        _ => String::new(),
                    };
                    causes.push(format!(
                        "{name} was watching {key:?}, which was not the key just ahead of its own: {ahead:?} was{stale}"
                    ));
                }
                None => causes.push(format!("{name} was watching {key:?}, though no key was ahead of its own")),
            }
        }
        let causes = if causes.is_empty() { String::new() } else { format!("; {}", causes.join("; ")) };
        format!(
            "{what} woke {}: each waiter should watch only the key just ahead of it in the queue (the newest key older than its own), so that a departure wakes one process, not all{causes}",
            names.join(" and ")
        )
    }

    /// What a stuck waiter is watching, when that is why it waits: " (p2 is watching its own key …)".
    fn watching_story(&self, process: ProcessIndex) -> String {
        let name = process_name(process);
        let Some((key, after_version)) = self.watching.get(&process) else { return String::new() };
        if self.queue.get(key).is_some_and(|queued| queued.owner == process) {
            return format!(" (it is watching its own key {key:?}, which changes only when {name} leaves)");
        }
        if !self.is_queue_key(key) {
            let what = if key == ELECTION_PREFIX { format!("{key:?}, the prefix itself") } else { format!("{key:?}") };
            return format!(
                " (it is watching {what}, which is not a key in the queue: watch(key) follows that one key, not the keys under it, so no departure wakes it)"
            );
        }
        match (self.queue.contains_key(key), self.departed_version.get(key)) {
            (false, Some(departed)) if departed <= after_version => format!(
                " (it is watching {key:?} from version {after_version}, but that key left the queue at version {departed}, so the watch will never see it)"
            ),
            _ => String::new(),
        }
    }

    /// A process still inside `resign` when the run ended: its caller never hears whether it left.
    fn stuck_in_resign(&self, index: usize, end_ms: u64, why: &str) -> Option<Violation> {
        let (&process, &Resigning { since_ms, deleted }) =
            self.resigning.iter().find(|(process, _)| !self.crashed.contains_key(process))?;
        let deleted = if deleted { ", after its key was deleted" } else { "" };
        violation(
            "resign-deletes",
            format!(
                "{} was still inside resign() (since t={since_ms} ms{deleted}) when the run ended at t={end_ms} ms ({why}): resign must return once the store has answered its delete, with that answer's ok",
                process_name(process)
            ),
            index,
            end_ms,
            process,
        )
    }

    fn at_end(&self, execution: &Execution) -> Option<Violation> {
        let end_ms = execution.trace.last().map_or(0, |event| event.at_ms);
        let index = execution.trace.len().saturating_sub(1);
        let why = match &execution.ending {
            Ending::Stuck { .. } => "nothing more could happen".to_string(),
            Ending::Limit { limit } => limit.describe(&self.limits),
            Ending::AllFinished | Ending::Stopped => return None,
        };
        let Some((&process, since_ms)) =
            self.campaigning.iter().find(|(process, _)| !self.crashed.contains_key(process))
        else {
            return self.stuck_in_resign(index, end_ms, &why);
        };
        let queue: Vec<String> = {
            let mut keys: Vec<(&String, &Queued)> = self.queue.iter().collect();
            keys.sort_by_key(|(_, queued)| queued.create_version);
            keys.iter().map(|(key, queued)| format!("{key:?} ({})", queued.create_version)).collect()
        };
        let queue = if queue.is_empty() { "empty".to_string() } else { queue.join(", ") };
        // A crashed candidate's key with no TTL never leaves the queue: that, not the watch, is the story.
        let abandoned = self
            .queue
            .iter()
            .filter(|(_, queued)| queued.ttl_ms.is_none() && queued.owner != process)
            .filter_map(|(key, queued)| self.crashed.get(&queued.owner).map(|crashed_ms| (key, queued, crashed_ms)))
            .min_by_key(|(_, queued, _)| queued.create_version);
        let advice = match abandoned {
            Some((key, queued, crashed_ms)) => format!(
                "{key:?} is {}'s key, created with no TTL, and {} crashed at t={crashed_ms} ms, so that key never leaves the queue: create your key with a TTL, compareAndSwap(key, ctx.name, null, {{ ttlMs }}), so that the store removes it if you crash",
                process_name(queued.owner),
                process_name(queued.owner)
            ),
            None => "A watch only wakes you for a change after the version you give it: watch from the version of your read, and read the queue again whenever you wake".to_string(),
        };
        violation(
            "no-stuck-waiter",
            format!(
                "{} was still waiting in campaign() (since t={since_ms} ms){} when the run ended at t={end_ms} ms ({why}); the queue then: {queue}. {advice}",
                process_name(process),
                self.watching_story(process),
            ),
            index,
            end_ms,
            process,
        )
    }
}

#[cfg(test)]
mod tests {
    //! Mistakes the Rust variants do not make, written here as small Rust
    //! candidates, each held to the rule it breaks and a story naming its cause.

    use lease::Leadership;
    use sim::Ctx;

    use super::super::harness::{run_candidates, Candidate};
    use super::super::ElectionExercise;
    use super::*;
    use crate::grade::Exercise;

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Mistake {
        /// Sleeps and reads the queue again instead of watching.
        Polls,
        /// Watches the key ahead from its keyVersion (1), older than its creation: every watch answers at once.
        WatchesFromKeyVersion,
        /// Creates its key with no TTL.
        NoTtl,
        /// Counts its own key as older than itself (`<=`), and so watches itself.
        WatchesItself,
        /// Watches the prefix, as if that watched every key under it.
        WatchesPrefix,
        /// Deletes the key ahead of it instead of waiting for it.
        DeletesAhead,
        /// Resigns by rewriting its key with a 1 ms TTL.
        ResignsByRewrite,
    }

    impl Candidate for Mistake {
        async fn campaign(self, ctx: &Ctx, prefix: &str, ttl_ms: u64) -> Result<Leadership, String> {
            let key = format!("{prefix}{}", ctx.name());
            let ttl_ms = (self != Mistake::NoTtl).then_some(ttl_ms);
            let create = || async { ctx.compare_and_swap(&key, &ctx.name(), None, None, ttl_ms).await };
            let mut mine = create().await?.map_err(|_| "exists".to_string())?;
            loop {
                let (version, records) = ctx.list(prefix).await?;
                if !records.iter().any(|record| record.key == key) {
                    mine = create().await?.map_err(|_| "exists".to_string())?;
                    continue;
                }
                let older: Vec<_> = records
                    .iter()
                    .filter(|record| {
                        record.create_version < mine
                            || (self == Mistake::WatchesItself && record.create_version == mine)
                    })
                    .collect();
                let Some(ahead) = older.last() else { return Ok(Leadership { key, version: mine }) };
                match self {
                    Mistake::Polls => ctx.sleep(20).await,
                    Mistake::WatchesFromKeyVersion => drop(ctx.watch(&ahead.key, ahead.key_version).await?),
                    Mistake::WatchesPrefix => drop(ctx.watch(prefix, version).await?),
                    Mistake::DeletesAhead => drop(ctx.delete(&ahead.key, None).await?),
                    Mistake::NoTtl | Mistake::WatchesItself | Mistake::ResignsByRewrite => {
                        drop(ctx.watch(&ahead.key, version).await?)
                    }
                }
            }
        }

        async fn resign(self, ctx: &Ctx, leadership: &Leadership) -> Result<bool, String> {
            if self == Mistake::ResignsByRewrite {
                let name = ctx.name();
                let rewritten = ctx.compare_and_swap(&leadership.key, &name, Some(&name), None, Some(1)).await?;
                return Ok(rewritten.is_ok());
            }
            Ok(ctx.delete(&leadership.key, Some(leadership.version)).await.unwrap_or(false))
        }
    }

    fn story(mistake: Mistake, scenario: &str) -> (String, String) {
        let case = ElectionExercise.scenarios().into_iter().find(|found| found.id == scenario).unwrap().case;
        let execution = run_candidates(mistake, &case);
        let violation = check(&case, &execution).expect("the mistake is caught");
        (violation.invariant, violation.message)
    }

    #[test]
    fn a_waiter_that_sleeps_and_reads_again_is_polling() {
        let (rule, message) = story(Mistake::Polls, "queue");
        assert_eq!(rule, "wake-one", "{message}");
        assert!(
            message.contains("p2 slept 20 ms in campaign() while \"election/p1\" was ahead of its key \"election/p2\""),
            "{message}"
        );
    }

    #[test]
    fn a_watch_from_the_key_version_answers_at_once_and_is_told_so() {
        let (rule, message) = story(Mistake::WatchesFromKeyVersion, "queue");
        assert_eq!(rule, "wake-one", "{message}");
        assert!(message.contains("calls while waiting in campaign()"), "{message}");
        assert!(
            message.contains(r#"its watch("election/p1", 1) answered at once with the put at version 2"#),
            "{message}"
        );
        assert!(!message.contains("p2 and p2"), "{message}");
    }

    #[test]
    fn a_key_with_no_ttl_is_the_story() {
        let (rule, message) = story(Mistake::NoTtl, "leader-crashes");
        assert_eq!(rule, "key-has-ttl", "{message}");
        assert!(message.contains("p1 wrote \"election/p1\" with no TTL (campaign() was given ttlMs 300)"), "{message}");
        assert!(!message.contains("A watch only wakes you"), "{message}");
    }

    #[test]
    fn a_waiter_watching_the_prefix_is_told_it_is_not_a_queue_key() {
        let (rule, message) = story(Mistake::WatchesPrefix, "queue");
        assert_eq!(rule, "no-stuck-waiter", "{message}");
        assert!(
            message.contains("it is watching \"election/\", the prefix itself, which is not a key in the queue"),
            "{message}"
        );
    }

    #[test]
    fn a_waiter_that_deletes_the_key_ahead_breaks_no_overwrite() {
        let (rule, message) = story(Mistake::DeletesAhead, "queue");
        assert_eq!(rule, "no-overwrite", "{message}");
        assert!(message.contains("p2 deleted \"election/p1\" in campaign(), p1's key in the queue"), "{message}");
    }

    #[test]
    fn a_resign_that_rewrites_its_key_is_told_so() {
        let (rule, message) = story(Mistake::ResignsByRewrite, "alone");
        assert_eq!(rule, "resign-deletes", "{message}");
        assert!(
            message.contains("resign() rewrote its key \"election/p1\" with ttlMs 1 instead of deleting it"),
            "{message}"
        );
    }

    #[test]
    fn a_waiter_watching_its_own_key_is_told_so() {
        let (rule, message) = story(Mistake::WatchesItself, "alone");
        assert_eq!(rule, "no-stuck-waiter", "{message}");
        assert!(message.contains("it is watching its own key \"election/p1\""), "{message}");
    }
}
