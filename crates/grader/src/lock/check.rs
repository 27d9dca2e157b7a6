//! The lock exercise's rules, checked on a finished run's trace.
//!
//! One pass over the trace keeps the truth (who holds the key in the store,
//! from the store's own applications and expiries) beside what each process
//! was told and said (its notes), and reports the first rule broken:
//!
//! - `value-is-name`: `lock` and `tryLock` write the process's name as the
//!   lock's value;
//! - `try-lock-once`: `tryLock` makes one attempt (one compare-and-swap of
//!   the key) and never waits (no `sleep`, no `watch`, at most
//!   TRY_LOCK_CALLS_MAX store calls); once the call has taken the lock, a
//!   sleep or watch it starts (a keep-alive of its own, say) is waiting only
//!   if its answer comes before `tryLock` returns;
//! - `unlock-deletes`: `unlock` releases by deleting, never by writing the key;
//! - `lock-has-ttl`: every lock write carries the TTL the caller passed
//!   (between calls, the latest one), and carries the process's name;
//! - `no-overwrite`: nobody writes the key while someone else holds it;
//! - `unlock-only-own`: a delete only ever removes the deleter's own lock;
//! - `acquire-is-real`: `lock`/`tryLock` return a version this process took
//!   in this call or still holds,
//!   and `tryLock` does not return null after taking the lock;
//! - `unlock-answer`: `unlock` answers true exactly when it released the lock,
//!   and never leaves its own live lock behind;
//! - `wait-by-watch`: while blocked in `lock`, store calls stay proportional
//!   to the changes of the key (no polling, no busy loop), and it never
//!   sleeps while the key is held by someone else or by an earlier lock of
//!   its own (see `crate::waiting`); once the call has taken the lock, it is
//!   no longer blocked;
//! - `prompt-wakeup`: on a calm network, a freed lock is taken again within a
//!   few round trips by a waiting process;
//! - `liveness`: nobody is left waiting when nothing more can happen;
//! - `no-errors`: the learner's functions did not throw.

use std::collections::HashMap;

use sim::{process_name, Call, CallId, Ending, Fault, Happening, Note, ProcessIndex, ProcessName, Reply, Scheduler};

use super::workload::{LockStep, LockWorkload, LOCK_KEY};
use crate::grade::{Case, Execution};
use crate::report::Violation;
use crate::waiting::{polls, times};

/// The most store calls one tryLock() makes: its attempt, a read before it
/// and one after (no correct style needs more); more is waiting by reading.
const TRY_LOCK_CALLS_MAX: u64 = 3;

#[derive(Clone, Debug)]
struct Holding {
    process: ProcessIndex,
    version: u64,
    since_ms: u64,
    /// The TTL of the write that holds the key, and when it would expire.
    ttl_ms: Option<u64>,
    written_ms: u64,
}

#[derive(Clone, Debug)]
struct InCall {
    function: String,
    started_ms: u64,
    calls: u64,
    changes_at_start: u64,
    /// The TTL the harness passed (for `lock` and `tryLock`).
    ttl_ms: Option<u64>,
    /// Compare-and-swaps of the lock key made during the call.
    attempts: u32,
    /// A successful lock write by this process during the call.
    acquired: Option<u64>,
    /// A successful delete by this process during the call.
    deleted: bool,
    /// Sleeps and watches started after the call took the lock, and who held the key then.
    started_after_acquiring: Vec<(CallId, Call, Option<Holding>)>,
}

/// When the key came free while processes waited, for `prompt-wakeup`.
#[derive(Clone, Debug)]
struct Freed {
    at_ms: u64,
    trace_index: usize,
    waiting: Vec<ProcessIndex>,
}

pub fn check(case: &Case<LockWorkload>, execution: &Execution) -> Option<Violation> {
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
    holder: Option<Holding>,
    written_by: HashMap<u64, ProcessIndex>,
    /// The TTL each process's latest lock() or tryLock() was given: a write it makes between
    /// calls (a keep-alive of its own) must carry it too.
    last_ttl: HashMap<ProcessIndex, (String, u64)>,
    in_call: HashMap<ProcessIndex, InCall>,
    changes: u64,
    crashed_at: HashMap<ProcessIndex, u64>,
    paused_until: HashMap<ProcessIndex, u64>,
    expired: HashMap<ProcessIndex, u64>,
    freed: Option<Freed>,
    /// A bound on one round trip, or None when faults make timing unbounded.
    round_trip_ms: Option<u64>,
    limits: sim::SimLimits,
    /// Each process's script, and how many `lock`/`tryLock` calls it began.
    scripts: Vec<Vec<LockStep>>,
    acquires_begun: HashMap<ProcessIndex, usize>,
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

impl Checker {
    fn new(case: &Case<LockWorkload>) -> Checker {
        let calm =
            !case.plan.faults.iter().any(|fault| {
                matches!(fault, Fault::Pause { .. } | Fault::DelayRequest { .. } | Fault::DelayReply { .. })
            });
        let bias_ms = match &case.plan.scheduler {
            Scheduler::Random => 0,
            Scheduler::Priority { bias_ms, order, .. } => bias_ms * order.len() as u64,
        };
        Checker {
            requests: HashMap::new(),
            holder: None,
            written_by: HashMap::new(),
            last_ttl: HashMap::new(),
            in_call: HashMap::new(),
            changes: 0,
            crashed_at: HashMap::new(),
            paused_until: HashMap::new(),
            expired: HashMap::new(),
            freed: None,
            round_trip_ms: calm.then_some(2 * (case.plan.latency_max_ms + bias_ms)),
            limits: case.limits.clone(),
            scripts: case.workload.scripts.clone(),
            acquires_begun: HashMap::new(),
        }
    }

    fn waiting_in_lock(&self, at_ms: u64) -> Vec<ProcessIndex> {
        let mut waiting: Vec<ProcessIndex> = self
            .in_call
            .iter()
            .filter(|(process, call)| {
                call.function == "lock"
                    && !self.crashed_at.contains_key(process)
                    && self.paused_until.get(process).is_none_or(|until| *until <= at_ms)
            })
            .map(|(process, _)| *process)
            .collect();
        waiting.sort_unstable();
        waiting
    }

    /// A store call or sleep, judged by what the caller was doing.
    fn invoked(
        &mut self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        call: CallId,
        request: &Call,
    ) -> Option<Violation> {
        let name = process_name(process);
        let holder = self.holder.clone();
        let changes_now = self.changes;
        let Some(in_call) = self.in_call.get_mut(&process) else {
            // Between calls (a background task of its own), a write of the lock is held to the same rules.
            if let Call::Cas { key, next_value, .. } = request {
                if key == LOCK_KEY && *next_value != name {
                    return violation(
                        "value-is-name",
                        format!("{name} wrote {next_value:?} as the lock's value: write ctx.name ({name:?}), so that everyone can see who holds the lock"),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
            }
            return None;
        };
        in_call.calls += 1;
        let function = in_call.function.clone();
        let found = |rule: &str, message: String| violation(rule, message, index, at_ms, Some(process));
        // Once this call has taken the lock, a sleep or a watch it starts (a keep-alive task, say) is judged
        // by whether the call waits for its answer (see `waited_after_acquiring`), not when it is made.
        if in_call.acquired.is_some() && matches!(request, Call::Sleep { .. } | Call::Watch { .. }) {
            in_call.started_after_acquiring.push((call, request.clone(), holder.clone()));
            if function != "tryLock" || in_call.calls <= TRY_LOCK_CALLS_MAX {
                return None;
            }
        }
        match request {
            Call::Cas { key, next_value, ttl_ms, .. } if key == LOCK_KEY => {
                if function == "unlock" {
                    let ttl = match ttl_ms {
                        Some(ttl_ms) => format!(" with ttlMs {ttl_ms}"),
                        None => " with no TTL, so it would never expire".into(),
                    };
                    return found(
                        "unlock-deletes",
                        format!(
                            "{name}'s unlock() wrote {next_value:?} to the lock key{ttl} instead of deleting it: a written key still looks held to everyone waiting. Release with delete(key, {{ version }})"
                        ),
                    );
                }
                if *next_value != name {
                    return found(
                        "value-is-name",
                        format!(
                            "{name}'s {function}() wrote {next_value:?} as the lock's value: write ctx.name ({name:?}), so that everyone can see who holds the lock"
                        ),
                    );
                }
                if function == "tryLock" {
                    in_call.attempts += 1;
                    if in_call.attempts > 1 {
                        return found(
                            "try-lock-once",
                            format!(
                                "{name}'s tryLock() made a second compareAndSwap after its first attempt: tryLock makes one attempt and returns null if it fails"
                            ),
                        );
                    }
                }
            }
            _ if function == "tryLock" && in_call.calls > TRY_LOCK_CALLS_MAX => {
                return found(
                    "try-lock-once",
                    format!(
                        "{name}'s tryLock() made {} store calls: it makes one attempt and returns, and never waits, by sleeping, watching or reading the key again and again",
                        in_call.calls
                    ),
                );
            }
            Call::Sleep { ms } if function == "tryLock" => {
                return found(
                    "try-lock-once",
                    format!("{name}'s tryLock() slept {ms} ms: tryLock never waits; when its one attempt fails it returns null at once"),
                );
            }
            Call::Watch { .. } if function == "tryLock" => {
                return found(
                    "try-lock-once",
                    format!(
                        "{name}'s tryLock() called {}: it waited for the lock as lock() does; tryLock makes one attempt and returns null at once if it fails",
                        request.describe()
                    ),
                );
            }
            Call::Sleep { ms } if function == "lock" => {
                if let Some(holding) = holder {
                    let whom = if holding.process == process {
                        format!("its own earlier lock (version {})", holding.version)
                    } else {
                        format!("{} (version {})", process_name(holding.process), holding.version)
                    };
                    return found(
                        "wait-by-watch",
                        format!(
                            "{name} slept {ms} ms in lock() while the key was held by {whom}: sleeping is polling; wait with watch(key, version), which wakes you when that lock changes"
                        ),
                    );
                }
            }
            _ => {}
        }
        let changes = changes_now - in_call.changes_at_start;
        if function == "lock" && polls(in_call.calls, changes) {
            return found(
                "wait-by-watch",
                format!(
                    "{name} made {} calls while waiting in lock() for {} ms, though the lock changed {}: wait with watch(key, version) instead of retrying",
                    in_call.calls,
                    at_ms - in_call.started_ms,
                    times(changes)
                ),
            );
        }
        None
    }

    /// A sleep or watch that `process` started after its call took the lock
    /// was answered while that call still ran: the call waited for it. For
    /// tryLock that is waiting; for lock, a sleep made while another process
    /// held the key is polling for it, as any other sleep would be.
    fn waited_after_acquiring(
        &self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        call: CallId,
    ) -> Option<Violation> {
        let in_call = self.in_call.get(&process)?;
        let (_, request, holder) = in_call.started_after_acquiring.iter().find(|(started, ..)| *started == call)?;
        let name = process_name(process);
        match (in_call.function.as_str(), request, holder) {
            ("tryLock", _, _) => violation(
                "try-lock-once",
                format!(
                    "{name}'s tryLock() took the lock, then waited for {} before returning: tryLock returns as soon as its one attempt is answered",
                    request.describe()
                ),
                index,
                at_ms,
                Some(process),
            ),
            ("lock", Call::Sleep { ms }, Some(holding)) if holding.process != process => violation(
                "wait-by-watch",
                format!(
                    "{name} slept {ms} ms in lock() while the key was held by {} (version {}): sleeping is polling; wait with watch(key, version), which wakes you when that lock changes",
                    process_name(holding.process),
                    holding.version
                ),
                index,
                at_ms,
                Some(process),
            ),
            _ => None,
        }
    }

    fn key_freed(&mut self, at_ms: u64, index: usize) {
        self.changes += 1;
        self.holder = None;
        let waiting = self.waiting_in_lock(at_ms);
        if !waiting.is_empty() && self.freed.is_none() {
            self.freed = Some(Freed { at_ms, trace_index: index, waiting });
        }
    }

    fn step(&mut self, index: usize, event: &sim::TraceEvent) -> Option<Violation> {
        let at_ms = event.at_ms;
        // A freed lock must be taken again within a few round trips.
        if let (Some(freed), Some(round_trip_ms)) = (&self.freed, self.round_trip_ms) {
            if at_ms > freed.at_ms + 3 * round_trip_ms {
                let names: Vec<String> = freed.waiting.iter().map(|process| process_name(*process)).collect();
                return violation(
                    "prompt-wakeup",
                    format!(
                        "the lock came free at t={} ms while {} waited in lock(), but nobody took it for {} ms: wait with watch(key, version) so the release wakes you at once",
                        freed.at_ms,
                        names.join(" and "),
                        at_ms - freed.at_ms
                    ),
                    freed.trace_index,
                    freed.at_ms,
                    freed.waiting.first().copied(),
                );
            }
        }
        let process = event.process;
        match (&event.happening, process) {
            (Happening::Invoke { call, request }, Some(process)) => {
                self.requests.insert(*call, request.clone());
                return self.invoked(index, at_ms, process, *call, request);
            }
            (Happening::Apply { call, result, .. }, Some(process)) => {
                let request = self.requests.get(call).cloned();
                match (request, result) {
                    (Some(Call::Cas { key, ttl_ms, .. }), Reply::Cas { ok: true, version: Some(version), .. })
                        if key == LOCK_KEY =>
                    {
                        if let Some(holding) = &self.holder {
                            if holding.process != process {
                                return violation(
                                    "no-overwrite",
                                    format!(
                                        "{} wrote the lock while {} held it (since t={} ms): take a lock only when the key is absent, with compareAndSwap(key, name, null, {{ ttlMs }})",
                                        process_name(process),
                                        process_name(holding.process),
                                        holding.since_ms
                                    ),
                                    index,
                                    at_ms,
                                    Some(process),
                                );
                            }
                        }
                        let asked = self
                            .in_call
                            .get(&process)
                            .and_then(|call| call.ttl_ms.map(|ttl_ms| (call.function.clone(), ttl_ms)))
                            .or_else(|| self.last_ttl.get(&process).cloned());
                        let name = process_name(process);
                        let wrong_ttl = match (ttl_ms, &asked) {
                            (None, _) => Some(format!(
                                "{name} wrote the lock without a TTL: if it crashed, nobody could ever take the lock again. Pass {{ ttlMs }} to compareAndSwap"
                            )),
                            (Some(written), Some((function, asked))) if written != *asked => Some(format!(
                                "{name} wrote the lock with ttlMs {written}, but its {function}() call asked for {asked}{}: pass the ttlMs you were given",
                                if written > 10 * asked { " (a lock that outlives a crashed holder by that much blocks everyone)" } else { "" }
                            )),
                            _ => None,
                        };
                        if let Some(message) = wrong_ttl {
                            return violation("lock-has-ttl", message, index, at_ms, Some(process));
                        }
                        self.changes += 1;
                        self.holder =
                            Some(Holding { process, version: *version, since_ms: at_ms, ttl_ms, written_ms: at_ms });
                        self.written_by.insert(*version, process);
                        if let Some(in_call) = self.in_call.get_mut(&process) {
                            in_call.acquired = Some(*version);
                        }
                        self.freed = None;
                    }
                    (Some(Call::Delete { key, .. }), Reply::Delete { ok: true }) if key == LOCK_KEY => {
                        if let Some(holding) = &self.holder {
                            if holding.process != process {
                                let own = match self.expired.get(&process) {
                                    Some(expired_ms) => {
                                        format!(" (its own lock had expired at t={expired_ms} ms)")
                                    }
                                    None => String::new(),
                                };
                                return violation(
                                    "unlock-only-own",
                                    format!(
                                        "{} unlocked a lock that {} held since t={} ms{own}: unlock with the version, delete(key, {{ version }}), so a stale unlock changes nothing",
                                        process_name(process),
                                        process_name(holding.process),
                                        holding.since_ms
                                    ),
                                    index,
                                    at_ms,
                                    Some(process),
                                );
                            }
                        }
                        if let Some(in_call) = self.in_call.get_mut(&process) {
                            in_call.deleted = true;
                        }
                        self.key_freed(at_ms, index);
                    }
                    _ => {}
                }
            }
            (Happening::Expire { key, .. }, _) if key == LOCK_KEY => {
                if let Some(holding) = &self.holder {
                    self.expired.insert(holding.process, at_ms);
                }
                self.key_freed(at_ms, index);
            }
            (Happening::Complete { call, .. }, Some(process)) => {
                return self.waited_after_acquiring(index, at_ms, process, *call);
            }
            (Happening::Crash, Some(process)) => {
                self.crashed_at.insert(process, at_ms);
            }
            (Happening::PauseStart { until_ms }, Some(process)) => {
                self.paused_until.insert(process, *until_ms);
            }
            (Happening::Note { note }, Some(process)) => return self.note(index, at_ms, process, note),
            _ => {}
        }
        None
    }

    fn note(&mut self, index: usize, at_ms: u64, process: ProcessIndex, note: &Note) -> Option<Violation> {
        let name = ProcessName(process);
        match note {
            Note::Calling { function } => {
                let ttl_ms = if function == "lock" || function == "tryLock" {
                    let begun = self.acquires_begun.entry(process).or_insert(0);
                    *begun += 1;
                    self.scripts
                        .get(process as usize)
                        .into_iter()
                        .flatten()
                        .filter_map(|step| match step {
                            LockStep::Lock { ttl_ms } | LockStep::TryLock { ttl_ms } => Some(*ttl_ms),
                            _ => None,
                        })
                        .nth(*begun - 1)
                } else {
                    None
                };
                if let Some(ttl_ms) = ttl_ms {
                    self.last_ttl.insert(process, (function.clone(), ttl_ms));
                }
                let in_call = InCall {
                    function: function.clone(),
                    started_ms: at_ms,
                    calls: 0,
                    changes_at_start: self.changes,
                    ttl_ms,
                    attempts: 0,
                    acquired: None,
                    deleted: false,
                    started_after_acquiring: Vec::new(),
                };
                self.in_call.insert(process, in_call);
            }
            Note::Acquired { version, .. } => {
                let call = self.in_call.remove(&process);
                let acquired_now = call.as_ref().and_then(|call| call.acquired);
                let function = call.map_or_else(|| "lock".to_string(), |call| call.function);
                let holds = self
                    .holder
                    .as_ref()
                    .is_some_and(|holding| holding.process == process && holding.version == *version);
                if self.written_by.get(version) == Some(&process) && acquired_now != Some(*version) && !holds {
                    let since = match &self.holder {
                        Some(holding) if holding.process != process => {
                            format!(
                                ": {} holds the lock now (version {})",
                                process_name(holding.process),
                                holding.version
                            )
                        }
                        _ => ": that lock is gone (it expired or was released)".to_string(),
                    };
                    return violation(
                        "acquire-is-real",
                        format!(
                            "{function}() returned {{ version: {version} }} to {name}, an earlier lock of its own, without taking the lock in this call{since}. Return a version only when this call's compareAndSwap took the lock, or while you still hold it"
                        ),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
                if self.written_by.get(version) != Some(&process) {
                    let whose = match self.written_by.get(version) {
                        Some(other) => {
                            format!("; version {version} is {}'s lock", process_name(*other))
                        }
                        None => String::new(),
                    };
                    return violation(
                        "acquire-is-real",
                        format!(
                            "{function}() returned {{ version: {version} }} to {name}, but {name} never wrote the lock at that version{whose}: return the version of your own successful compareAndSwap, or null"
                        ),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
            }
            Note::NotAcquired { .. } => {
                if let Some(InCall { acquired: Some(version), .. }) = self.in_call.remove(&process) {
                    return violation(
                        "acquire-is-real",
                        format!(
                            "tryLock() returned null to {name}, but its compareAndSwap had taken the lock (version {version}): the lock is now held by a process that does not know it"
                        ),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
            }
            Note::Released { version, ok, .. } => {
                let deleted = self.in_call.remove(&process).is_some_and(|call| call.deleted);
                let still_held = self
                    .holder
                    .as_ref()
                    .is_some_and(|holding| holding.process == process && holding.version == *version);
                let message = match (ok, deleted) {
                    (true, false) => Some(format!(
                        "unlock() returned true to {name}, but {name}'s lock (version {version}) was not released by it{}: return whether your delete succeeded",
                        self.expired.get(&process).map_or(String::new(), |expired| format!(" (it had expired at t={expired} ms)"))
                    )),
                    (false, true) => Some(format!("unlock() returned false to {name}, but it did release {name}'s lock (version {version})")),
                    (false, false) if still_held => Some(format!(
                        "unlock() returned false and left {name}'s own lock (version {version}) in place, so others must wait for its TTL: delete with the version that lock() returned"
                    )),
                    _ => None,
                };
                if let Some(message) = message {
                    return violation("unlock-answer", message, index, at_ms, Some(process));
                }
            }
            Note::Failed { message } => return violation("no-errors", message.clone(), index, at_ms, Some(process)),
            _ => {}
        }
        None
    }

    fn at_end(&self, execution: &Execution) -> Option<Violation> {
        let end_ms = execution.trace.last().map_or(0, |event| event.at_ms);
        let index = execution.trace.len().saturating_sub(1);
        let waiting: Vec<ProcessIndex> = match &execution.ending {
            Ending::Stuck { waiting } => waiting.clone(),
            Ending::Limit { .. } => {
                let mut waiting: Vec<ProcessIndex> =
                    self.in_call.keys().copied().filter(|process| !self.crashed_at.contains_key(process)).collect();
                waiting.sort_unstable();
                waiting
            }
            Ending::AllFinished | Ending::Stopped => return None,
        };
        let first = waiting.first().copied()?;
        let function =
            self.in_call.get(&first).map_or("its workload".to_string(), |call| format!("{}()", call.function));
        // A run that hit its time limit ended at the limit, whenever its last event was.
        let end_ms = match &execution.ending {
            Ending::Limit { limit: sim::Limit::Time } => end_ms.max(self.limits.time_ms_max),
            _ => end_ms,
        };
        let holder = match &self.holder {
            Some(holding) => {
                let owner = process_name(holding.process);
                let whose = match self.crashed_at.get(&holding.process) {
                    Some(crashed_ms) => {
                        format!("; the lock still belonged to {owner}, which crashed at t={crashed_ms} ms")
                    }
                    None => format!("; the lock belonged to {owner}"),
                };
                let expiry = match holding.ttl_ms {
                    Some(ttl_ms) if holding.written_ms + ttl_ms > end_ms => format!(
                        ", written at t={} ms with ttlMs {ttl_ms}, so it would expire only at t={} ms, after the run's end",
                        holding.written_ms,
                        holding.written_ms + ttl_ms
                    ),
                    None => format!(", written at t={} ms with no TTL", holding.written_ms),
                    _ => String::new(),
                };
                format!("{whose}{expiry}")
            }
            None => String::new(),
        };
        let why = match &execution.ending {
            Ending::Limit { limit: sim::Limit::Time } => format!(" (its time limit of {} ms)", self.limits.time_ms_max),
            Ending::Limit { limit } => format!(" ({})", limit.describe(&self.limits)),
            _ => " (nothing more could happen)".to_string(),
        };
        violation(
            "liveness",
            format!(
                "{} was still waiting in {function} when the run ended at t={end_ms} ms{why}{holder}",
                process_name(first)
            ),
            index,
            end_ms,
            Some(first),
        )
    }
}
