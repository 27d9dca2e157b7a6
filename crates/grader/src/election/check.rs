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
//!   older key is left in the queue;
//! - `wake-one`: one change of a key wakes at most one waiter (of those
//!   whose own key is still in the queue);
//! - `resign-deletes`: `resign` removes the caller's key and nobody else's;
//! - `no-stuck-waiter`: on a calm network the oldest candidate takes office
//!   within a few round trips of becoming the oldest; nobody waits in
//!   `campaign` when nothing more can happen;
//! - `no-errors`: the learner's functions did not throw.

use std::collections::{BTreeMap, HashMap, HashSet};

use sim::{process_name, Call, CallId, Ending, Fault, Happening, Note, ProcessIndex, Reply, Scheduler, TraceEvent};

use super::workload::{ElectionWorkload, ELECTION_PREFIX};
use crate::grade::{Case, Execution};
use crate::report::Violation;

/// A key in the queue, as the store holds it.
#[derive(Clone, Debug)]
struct Queued {
    create_version: u64,
    owner: ProcessIndex,
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
    /// Processes inside `resign`: whether a delete of their own key landed.
    resigning: HashMap<ProcessIndex, bool>,
    crashed: HashSet<ProcessIndex>,
    /// Which processes a change (key, version) woke.
    woken: HashMap<(String, u64), Vec<ProcessIndex>>,
    due: Option<Due>,
    /// When each key last left the store (trace index), and each process's latest read of the queue.
    removed_at: HashMap<String, usize>,
    last_read: HashMap<ProcessIndex, usize>,
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
            resigning: HashMap::new(),
            crashed: HashSet::new(),
            woken: HashMap::new(),
            due: None,
            removed_at: HashMap::new(),
            last_read: HashMap::new(),
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
            let waiting = self.campaigning.contains_key(&queued.owner) && !self.crashed.contains(&queued.owner);
            waiting.then(|| (queued.owner, key.clone()))
        });
        match (next, &self.due) {
            (Some((process, key)), Some(due)) if due.process == process && due.key == key => {}
            (Some((process, key)), _) => self.due = Some(Due { process, key, since_ms: at_ms, trace_index: index }),
            (None, _) => self.due = None,
        }
    }

    /// `key` left the store (deleted or expired) at `version`.
    fn remove_key(&mut self, key: &str, version: u64, at_ms: u64, index: usize) -> Option<Queued> {
        let queued = self.queue.remove(key)?;
        self.removed_at.insert(key.to_string(), index);
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
                        " ({} left the queue at t={} ms, version {})",
                        departure.key, departure.at_ms, departure.version
                    ),
                    _ => String::new(),
                };
                return violation(
                    "no-stuck-waiter",
                    format!(
                        "{}'s key {} was the oldest in the queue from t={} ms{why}, but at t={at_ms} ms {} was still waiting in campaign(), though on this calm network it could have taken office within {handover_ms_max} ms: when the key ahead of you goes, read the queue again and watch the newest key older than yours, from the version of your read",
                        process_name(due.process),
                        due.key,
                        due.since_ms,
                        process_name(due.process),
                    ),
                    due.trace_index,
                    due.since_ms,
                    due.process,
                );
            }
        }
        if let Happening::Expire { key, revision } = &event.happening {
            if self.remove_key(key, *revision, at_ms, index).is_some() {
                self.update_due(at_ms, index);
            }
            return None;
        }
        let process = event.process?;
        match &event.happening {
            Happening::Invoke { call, request } => {
                self.requests.insert(*call, request.clone());
            }
            Happening::Apply { call, result, revision } => {
                return self.apply(index, at_ms, process, *call, result, *revision)
            }
            // Only a waiter still in the queue counts: one whose key ran out is no longer waiting its turn.
            Happening::Complete { reply: Reply::Watch { event }, .. }
                if self.queue.values().any(|queued| queued.owner == process) =>
            {
                let woken = self.woken.entry((event.key.clone(), event.version)).or_default();
                woken.push(process);
                if woken.len() > 1 && event.key.starts_with(ELECTION_PREFIX) {
                    let names: Vec<String> = woken.iter().map(|woken| process_name(*woken)).collect();
                    return violation(
                        "wake-one",
                        format!(
                            "one {} of {} (version {}) woke {}: each waiter should watch only the key just ahead of it in the queue (the newest key older than its own), so that a departure wakes one process, not all",
                            event.kind,
                            event.key,
                            event.version,
                            names.join(" and ")
                        ),
                        index,
                        at_ms,
                        process,
                    );
                }
            }
            Happening::Crash => {
                self.crashed.insert(process);
                self.leading.remove(&process);
                self.update_due(at_ms, index);
            }
            Happening::Note { note } => return self.note(index, at_ms, process, note),
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
        let request = self.requests.get(&call)?;
        match (request, result) {
            (Call::List { .. }, Reply::List { .. }) => {
                self.last_read.insert(process, index);
            }
            // A create (not a rewrite of a key already queued) joins the queue.
            (Call::Cas { key, .. }, Reply::Cas { ok: true, version: Some(version), .. })
                if key.starts_with(ELECTION_PREFIX) && !self.queue.contains_key(key) =>
            {
                self.queue.insert(key.clone(), Queued { create_version: *version, owner: process });
                self.update_due(at_ms, index);
            }
            (Call::Delete { key, .. }, Reply::Delete { ok: true }) if key.starts_with(ELECTION_PREFIX) => {
                let key = key.clone();
                let removed = self.remove_key(&key, revision, at_ms, index);
                if let Some(queued) = removed {
                    if queued.owner != process {
                        return violation(
                            "resign-deletes",
                            format!(
                                "{} deleted {key}, which is {}'s key: resign must delete only your own key, with the version campaign() returned",
                                process_name(process),
                                process_name(queued.owner)
                            ),
                            index,
                            at_ms,
                            process,
                        );
                    }
                    if let Some(deleted) = self.resigning.get_mut(&process) {
                        *deleted = true;
                    }
                }
                self.update_due(at_ms, index);
            }
            _ => {}
        }
        None
    }

    fn note(&mut self, index: usize, at_ms: u64, process: ProcessIndex, note: &Note) -> Option<Violation> {
        let name = process_name(process);
        match note {
            Note::Calling { function } if function == "campaign" => {
                self.campaigning.insert(process, at_ms);
                self.update_due(at_ms, index);
            }
            Note::Calling { function } if function == "resign" => {
                // Once it has decided to resign, a process no longer counts as leading.
                self.leading.remove(&process);
                self.resigning.insert(process, false);
            }
            Note::Elected { key, version } => {
                self.campaigning.remove(&process);
                if !self.queue.contains_key(key) {
                    // A key that left the store after the caller's last read ended the term before it
                    // began, and the caller could not have known; one that left before, it could have.
                    let read_after_removal = match (self.removed_at.get(key), self.last_read.get(&process)) {
                        (Some(removed), Some(read)) => read > removed,
                        (None, _) => true,
                        (Some(_), None) => false,
                    };
                    if read_after_removal {
                        return violation(
                            "queue-order",
                            format!("campaign() returned {{ key: {key:?}, version: {version} }} to {name}, but that key was no longer in the store when {name} last read the queue: if your key is gone (its TTL ran out), create it again and wait your turn"),
                            index,
                            at_ms,
                            process,
                        );
                    }
                    self.update_due(at_ms, index);
                    return None;
                }
                if let Some((other, other_key)) = self.leading.iter().next() {
                    return violation(
                        "one-leader",
                        format!(
                            "campaign() returned to {name} while {} led (its key {other_key} was still in the store): a process leads only when its key is the oldest under the prefix",
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
                                    "campaign() returned to {name} while {older_key} (created at version {}, by {}) was still ahead of its key {key} (version {version}): wait until no older key is left",
                                    older.create_version,
                                    process_name(older.owner)
                                ),
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
            Note::Resigned { key, version, .. } => {
                let deleted = self.resigning.remove(&process).unwrap_or(false);
                let still_there = self
                    .queue
                    .get(key)
                    .is_some_and(|queued| queued.owner == process && queued.create_version == *version);
                if still_there && !deleted {
                    return violation(
                        "resign-deletes",
                        format!(
                            "resign() returned to {name}, but its key {key} (version {version}) is still in the queue, so the next candidate waits for its TTL: delete it with delete(key, {{ version }})"
                        ),
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

    fn at_end(&self, execution: &Execution) -> Option<Violation> {
        let end_ms = execution.trace.last().map_or(0, |event| event.at_ms);
        let index = execution.trace.len().saturating_sub(1);
        let why = match &execution.ending {
            Ending::Stuck { .. } => "nothing more could happen".to_string(),
            Ending::Limit { limit } => limit.describe(&self.limits),
            Ending::AllFinished | Ending::Stopped => return None,
        };
        let (&process, since_ms) = self.campaigning.iter().find(|(process, _)| !self.crashed.contains(process))?;
        let queue: Vec<String> = {
            let mut keys: Vec<(&String, &Queued)> = self.queue.iter().collect();
            keys.sort_by_key(|(_, queued)| queued.create_version);
            keys.iter().map(|(key, queued)| format!("{key} ({})", queued.create_version)).collect()
        };
        let queue = if queue.is_empty() { "empty".to_string() } else { queue.join(", ") };
        violation(
            "no-stuck-waiter",
            format!(
                "{} was still waiting in campaign() (since t={since_ms} ms) when the run ended at t={end_ms} ms ({why}); the queue then: {queue}. A watch only wakes you for a change after the version you give it: watch from the version of your read, and read the queue again whenever you wake",
                process_name(process)
            ),
            index,
            end_ms,
            process,
        )
    }
}
