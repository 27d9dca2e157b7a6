//! The fencing exercise's rules, checked on a finished run's trace.
//!
//! One pass keeps the truth (the lock's record: owner, version, keyVersion,
//! from the store's own applications and expiries) beside the worker's
//! calls. A call of `handleRequest` starts when its delivery's sleep
//! completes (the worker's first calls are those sleeps, one per delivery,
//! in order: see `harness.rs`) and ends at its `Handled` note. The rules:
//!
//! - `fence-current`: an accepted request's owner and version were the
//!   lock's record at some moment during that call;
//! - `at-most-once`: each request id is accepted at most once;
//! - `accept-current`: a request is accepted if its owner and version were
//!   the lock's record throughout the call and its id had not been accepted
//!   (a rejection is forgiven while another delivery of the same id is
//!   still being handled: that one may accept it);
//! - `worker-reads-only`: the worker never writes or deletes the lock key
//!   (its own keys, such as a durable record of applied ids, are its own);
//! - `answers`: every call returns (the run does not end, stuck or at a
//!   limit, with a call still open);
//! - `no-errors`: `handleRequest` did not throw.
//!
//! Concurrent deliveries of one id share owner and version; when one of them
//! answers, the checker attributes an acceptance to the earliest-started
//! open call of that id and a rejection to the latest-started, so that its
//! verdicts are never stricter than the true pairing.

use std::collections::{BTreeMap, HashMap};

use sim::{process_name, Call, CallId, Ending, Happening, Note, ProcessIndex, Reply, TraceEvent};

use super::workload::{request_id, FencingWorkload, LOCK_KEY};
use crate::grade::{Case, Execution};
use crate::report::Violation;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Holder {
    owner: String,
    version: u64,
    key_version: u64,
    since_ms: u64,
}

/// An open call of `handleRequest`.
#[derive(Clone, Debug)]
struct Open {
    at_ms: u64,
    owner: String,
    version: u64,
    /// The lock showed owner@version at some moment since the call started.
    seen_current: bool,
    /// … and at every moment since.
    stayed_current: bool,
}

pub fn check(case: &Case<FencingWorkload>, execution: &Execution) -> Option<Violation> {
    let mut checker = Checker::new(case, &execution.trace);
    for (index, event) in execution.trace.iter().enumerate() {
        if let Some(violation) = checker.step(index, event) {
            return Some(violation);
        }
    }
    checker.at_end(execution)
}

struct Checker<'a> {
    /// The whole run, for stories that need what happened next.
    trace: &'a [TraceEvent],
    worker: ProcessIndex,
    /// "the worker (p3)", for messages.
    worker_named: String,
    /// Request number of each delivery, in the worker's order.
    deliveries: Vec<u32>,
    worker_invokes: usize,
    /// The worker's delivery sleeps: call → delivery index.
    delivery_calls: HashMap<CallId, usize>,
    /// The delivery whose sleep just completed, until its `Calling` note.
    woken: Option<usize>,
    sent: BTreeMap<String, (String, u64)>,
    requests: HashMap<CallId, Call>,
    holder: Option<Holder>,
    /// When each version stopped being the lock's record.
    ended_ms: BTreeMap<u64, u64>,
    open: BTreeMap<String, Vec<Open>>,
    /// Request id → store time it was accepted, and when that call started.
    /// Each accepted id: when it was accepted, when that call began, and
    /// how many calls had answered by then.
    accepted: BTreeMap<String, (u64, u64, u64)>,
    /// Request id → when deliveries of it were rejected while the id was
    /// taken (another delivery of it open, or it applied): a duplicate's
    /// rejection, after which a worker that forgets rejected ids forgets it.
    duplicate_rejected: BTreeMap<String, Vec<u64>>,
    /// Calls of `handleRequest` that have answered so far.
    answered: u64,
    worker_crashed: bool,
    limits: sim::SimLimits,
}

fn violation(
    invariant: &str,
    message: String,
    index: usize,
    at_ms: u64,
    process: Option<ProcessIndex>,
) -> Option<Violation> {
    Some(Violation::new(invariant, message, Some(index), at_ms, process))
}

impl<'a> Checker<'a> {
    fn new(case: &Case<FencingWorkload>, trace: &'a [TraceEvent]) -> Checker<'a> {
        Checker {
            trace,
            worker: case.workload.worker(),
            worker_named: format!("the worker ({})", process_name(case.workload.worker())),
            deliveries: case.workload.deliveries.iter().map(|delivery| delivery.request).collect(),
            worker_invokes: 0,
            delivery_calls: HashMap::new(),
            woken: None,
            sent: BTreeMap::new(),
            requests: HashMap::new(),
            holder: None,
            ended_ms: BTreeMap::new(),
            open: BTreeMap::new(),
            accepted: BTreeMap::new(),
            duplicate_rejected: BTreeMap::new(),
            answered: 0,
            worker_crashed: false,
            limits: case.limits.clone(),
        }
    }

    fn is_current(&self, owner: &str, version: u64) -> bool {
        self.holder.as_ref().is_some_and(|holder| holder.owner == owner && holder.version == version)
    }

    fn set_holder(&mut self, holder: Option<Holder>, at_ms: u64) {
        if let Some(previous) = &self.holder {
            if holder.as_ref().is_none_or(|next| next.version != previous.version) {
                self.ended_ms.insert(previous.version, at_ms);
            }
        }
        self.holder = holder;
        let holder = self.holder.clone();
        for open in self.open.values_mut().flatten() {
            let current =
                holder.as_ref().is_some_and(|holder| holder.owner == open.owner && holder.version == open.version);
            open.seen_current |= current;
            open.stayed_current &= current;
        }
    }

    fn step(&mut self, index: usize, event: &TraceEvent) -> Option<Violation> {
        let at_ms = event.at_ms;
        let from_worker = event.process == Some(self.worker);
        match &event.happening {
            Happening::Invoke { call, request } => {
                self.requests.insert(*call, request.clone());
                if from_worker {
                    if self.worker_invokes < self.deliveries.len() {
                        self.delivery_calls.insert(*call, self.worker_invokes);
                    }
                    self.worker_invokes += 1;
                }
            }
            Happening::Complete { call, .. } if from_worker => self.woken = self.delivery_calls.get(call).copied(),
            // The worker judges the lock's record; if it could write it, it would judge a record of its own making.
            Happening::Apply { call, result, .. }
                if from_worker
                    && matches!(
                        (self.requests.get(call), result),
                        (Some(Call::Cas { key, .. }), Reply::Cas { ok: true, .. })
                            | (Some(Call::Delete { key, .. }), Reply::Delete { ok: true })
                            if key == LOCK_KEY
                    ) =>
            {
                let what = match self.requests.get(call) {
                    Some(Call::Delete { .. }) => "deleted",
                    _ => "wrote",
                };
                return violation(
                    "worker-reads-only",
                    format!(
                        "{} {what} the lock key {LOCK_KEY:?}: the worker only reads the lock's record (get) and decides; a write changes the lease it is judging, so the leader's renewals and its release fail",
                        self.worker_named
                    ),
                    index,
                    at_ms,
                    Some(self.worker),
                );
            }
            Happening::Apply { call, result, .. } => match (self.requests.get(call), result) {
                (Some(Call::Cas { key, next_value, .. }), Reply::Cas { ok: true, version: Some(version), .. })
                    if key == LOCK_KEY =>
                {
                    let key_version = self.holder.as_ref().map_or(1, |holder| holder.key_version + 1);
                    let since_ms = match &self.holder {
                        Some(holder) if holder.owner == *next_value => holder.since_ms,
                        _ => at_ms,
                    };
                    let holder = Holder { owner: next_value.clone(), version: *version, key_version, since_ms };
                    self.set_holder(Some(holder), at_ms);
                }
                (Some(Call::Delete { key, .. }), Reply::Delete { ok: true }) if key == LOCK_KEY => {
                    self.set_holder(None, at_ms)
                }
                _ => {}
            },
            Happening::Expire { key, .. } if key == LOCK_KEY => self.set_holder(None, at_ms),
            Happening::Crash if from_worker => self.worker_crashed = true,
            Happening::Note { note } => return self.note(index, at_ms, event.process, note),
            _ => {}
        }
        None
    }

    fn note(&mut self, index: usize, at_ms: u64, process: Option<ProcessIndex>, note: &Note) -> Option<Violation> {
        match note {
            Note::Sent { request_id, owner, version } => {
                self.sent.insert(request_id.clone(), (owner.clone(), *version));
            }
            Note::Calling { .. } if process == Some(self.worker) => {
                let delivery = self.woken.take()?;
                let id = request_id(self.deliveries[delivery]);
                let (owner, version) = self.sent.get(&id).cloned()?;
                let current = self.is_current(&owner, version);
                let open = Open { at_ms, owner, version, seen_current: current, stayed_current: current };
                self.open.entry(id).or_default().push(open);
            }
            Note::Handled { request_id, owner, version, accepted } if process == Some(self.worker) => {
                return self.handled(index, at_ms, request_id, owner, *version, *accepted);
            }
            Note::Failed { message } => return violation("no-errors", message.clone(), index, at_ms, process),
            _ => {}
        }
        None
    }

    /// When a delivery of `id` that began after the acceptance at trace
    /// `index`, once the `open` deliveries of it still being handled then had
    /// answered, was accepted once more.
    fn accepted_again(&self, index: usize, id: &str, open: usize) -> Option<u64> {
        let (mut open, mut began_after) = (open, false);
        for event in &self.trace[index + 1..] {
            if event.process != Some(self.worker) {
                continue;
            }
            match &event.happening {
                Happening::Complete { call, .. } => {
                    let of_id = self
                        .delivery_calls
                        .get(call)
                        .is_some_and(|&delivery| request_id(self.deliveries[delivery]) == id);
                    began_after |= of_id && open == 0;
                }
                Happening::Note { note: Note::Handled { request_id, accepted, .. } } if request_id == id => {
                    if open > 0 {
                        open -= 1;
                    } else if began_after && *accepted {
                        return Some(event.at_ms);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The lock's record, in words.
    fn lock_now(&self) -> String {
        match &self.holder {
            Some(holder) => format!(
                "the lock showed {} at version {} (keyVersion {})",
                holder.owner, holder.version, holder.key_version
            ),
            None => "the lock was free".into(),
        }
    }

    fn handled(
        &mut self,
        index: usize,
        at_ms: u64,
        id: &str,
        owner: &str,
        version: u64,
        accepted: bool,
    ) -> Option<Violation> {
        let worker = Some(self.worker);
        self.answered += 1;
        let opens = self.open.entry(id.to_string()).or_default();
        let call = if opens.is_empty() {
            None
        } else if accepted {
            Some(opens.remove(0))
        } else {
            opens.pop()
        };
        let others_open = !opens.is_empty();
        let opens_left = opens.len();
        let call = call.unwrap_or_else(|| {
            let current = self.is_current(owner, version);
            Open { at_ms, owner: owner.into(), version, seen_current: current, stayed_current: current }
        });
        let request = format!("{id} (from {owner}, version {version})");
        if accepted {
            if !call.seen_current {
                let ended = match self.ended_ms.get(&version) {
                    Some(ended_ms) => {
                        format!("{owner}'s tenure at version {version} had ended at t={ended_ms} ms, and ")
                    }
                    None => String::new(),
                };
                let hint = match &self.holder {
                    Some(holder) if holder.owner == owner && holder.key_version == version => format!(
                        "compare version, not keyVersion: keyVersion restarts at 1 with every tenure, so {owner}'s new tenure repeats it"
                    ),
                    Some(holder) if holder.owner == owner => {
                        format!("{owner} holds the lock again, in a later tenure: compare the version too, not only the owner")
                    }
                    _ => "accept only if the lock's current record has the request's owner as value and its version as version".into(),
                };
                return violation(
                    "fence-current",
                    format!(
                        "{} accepted {request} at t={at_ms} ms, but the lock never showed {owner} at version {version} during that call: {ended}{}: {hint}",
                        self.worker_named,
                        self.lock_now()
                    ),
                    index,
                    at_ms,
                    worker,
                );
            }
            if let Some((first_ms, first_call_ms, answered_then)) = self.accepted.get(id) {
                // A duplicate rejected between the two calls' starts points at an
                // id forgotten on that rejection; overlapping calls otherwise at a
                // claim made after an await; a later call at an id that had been
                // forgotten.
                let forgotten_on_rejection = self.duplicate_rejected.get(id).and_then(|rejections| {
                    rejections.iter().find(|&&rejected_ms| *first_call_ms <= rejected_ms && rejected_ms <= call.at_ms)
                });
                let cause = if let Some(rejected_ms) = forgotten_on_rejection {
                    format!(
                        ": at t={rejected_ms} ms, between the two, another delivery of {id} was rejected as a duplicate, and after that the worker no longer remembered {id}: a duplicate's rejection must leave the id recorded (only the delivery that recorded an id may forget it, when that delivery's own request is refused)"
                    )
                } else if call.at_ms <= *first_ms {
                    match self.accepted_again(index, id, opens_left) {
                        Some(again_ms) => format!(
                            " (both deliveries were being handled at the same time), and at t={again_ms} ms, once both had been answered, yet another delivery of {id} was accepted: the worker does not recognise {id} even once it was applied, so it does not record the id itself; record request.id (a duplicate delivery is a new object with the same id) before the first await, and reject an id that is already recorded"
                        ),
                        None => " (both deliveries were being handled at the same time): record the request's id, request.id, before the first await, and reject an id that is already recorded".to_string(),
                    }
                } else {
                    let between = self.answered - answered_then - 1;
                    if between == 0 {
                        format!(
                            ": the second delivery came after the first had been accepted, with no other call in between, and the worker did not recognise {id}: record the request's id, request.id (a duplicate delivery is a new object with the same id), and reject an id that is already recorded"
                        )
                    } else {
                        format!(
                            ": the second delivery arrived after the first had been accepted, with {between} other {} answered in between, so the worker no longer remembered {id}: keep every accepted id (never drop, overwrite or limit them), and reject an id that is already recorded",
                            if between == 1 { "call" } else { "calls" }
                        )
                    }
                };
                return violation(
                    "at-most-once",
                    format!(
                        "{} accepted {id} twice, at t={first_ms} ms and again at t={at_ms} ms{cause}",
                        self.worker_named
                    ),
                    index,
                    at_ms,
                    worker,
                );
            }
            self.accepted.insert(id.to_string(), (at_ms, call.at_ms, self.answered));
        } else if others_open || self.accepted.contains_key(id) {
            self.duplicate_rejected.entry(id.to_string()).or_default().push(at_ms);
        } else if call.stayed_current {
            return violation(
                "accept-current",
                format!(
                    "{} rejected {request} at t={at_ms} ms, though the lock showed {owner} at version {version} throughout the call (from t={} ms) and {id} had not been applied: accept a request whose owner and version match the lock's current record",
                    self.worker_named,
                    call.at_ms
                ),
                index,
                at_ms,
                worker,
            );
        }
        None
    }

    fn at_end(&self, execution: &Execution) -> Option<Violation> {
        let why = match &execution.ending {
            Ending::AllFinished | Ending::Stopped => return None,
            _ if self.worker_crashed => return None,
            Ending::Stuck { .. } => "nothing more could happen".to_string(),
            Ending::Limit { limit } => limit.describe(&self.limits),
        };
        let (id, open) = self.open.iter().find_map(|(id, opens)| opens.first().map(|open| (id, open)))?;
        let end_ms = execution.trace.last().map_or(0, |event| event.at_ms);
        violation(
            "answers",
            format!(
                "handleRequest for {id}, called at t={} ms, had not returned when the run ended at t={end_ms} ms ({why}): every call must resolve to true or false",
                open.at_ms
            ),
            execution.trace.len().saturating_sub(1),
            end_ms,
            Some(self.worker),
        )
    }
}
