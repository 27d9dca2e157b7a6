//! The lease exercise's rules, checked on a finished run's trace.
//!
//! One pass over the trace keeps the truth (which replica's write the store
//! holds, from the store's own applications and expiries, and the local time
//! at which that write was sent) beside what each replica does (its store
//! calls and its notes), and reports the first rule broken. At each
//! `ctx.work()` the rules are checked in this order, so that a mistake is
//! named by its most specific rule:
//!
//! - `stop-after-failed-renewal`: no work after a renewal's failed reply
//!   arrived, until the replica acquires the lease again (a renewal sent
//!   during an earlier tenure, failing after the replica acquired again,
//!   says nothing about the new tenure and is ignored); and `lead` returns
//!   at once: after that reply it makes no store call and starts no sleep
//!   (a sleep already under way may end; a retry of the renewal is a call);
//! - `work-while-holder`: work only while the store shows this replica as
//!   the holder (belief never exceeds truth);
//! - `work-within-validity`: work only while the replica's own clock reads
//!   less than `validFrom + 0.75 * ttlMs`, `validFrom` being the local time
//!   at which the store's current write (this replica's last successful
//!   acquire or renew) was sent;
//! - `renew-on-time` (only when no pause or delayed message is planned, and
//!   for replicas whose clock does not jump, so that timing is the replica's
//!   own doing): once `validFrom + ttlMs/2` plus a grace of `ttlMs/10` and
//!   one round trip has passed on its clock with no renewal in flight, no
//!   work, and no idling in `lead`: the replica resumes from nothing but a
//!   unit of work (a sleep, a watch or a read that ends past that point is
//!   idling), and its lease does not expire while it is in `lead`.
//!
//! And elsewhere:
//!
//! - `value-is-name`: every write of the key has the replica's name as value;
//! - `campaign-holds`: `campaign` returns only once the replica holds the
//!   lease (its own write landed during the call, or it still holds it);
//! - `wait-by-watch`: while in `campaign`, a replica never sleeps while the
//!   key is held, and its calls stay proportional to the key's changes (the
//!   lock's measure, `crate::waiting`); in `lead`, while another replica
//!   holds the key, its store calls (not its sleeps) are held to the same;
//! - `renew-not-too-often`: a renewal (a compare-and-swap made inside `lead`)
//!   is sent no earlier than `validFrom + ttlMs/2` on the holder's clock;
//! - `no-overwrite`: nobody writes the key while another replica holds it;
//! - `no-spurious-loss` (only when the plan has no faults but clock drift):
//!   the lease never expires and `lead` never returns;
//! - `failover` (only when no pause or delayed message is planned): after
//!   the holder crashes, another replica holds the lease within
//!   `ttlMs + 3` round trips (a round trip being twice the largest one-way
//!   latency, scheduler bias included);
//! - `runs-to-horizon`: the run reaches its horizon (every replica waiting
//!   with nothing left to happen, or another limit, is a failure);
//! - `no-errors`: the learner's functions did not throw.
//!
//! A failure's story says what this run's trace shows the code did, not the
//! usual cause of the rule's violation: for work outside the window, whether
//! the work came right after an `await` of the lease write's reply, and
//! whether the replica's later steps match a window counted from the send
//! (a missing check before this one unit), from the reply, or no check at
//! all ([`diagnose_window`]); when the trace cannot tell, it says so.

use std::collections::HashMap;

use lease::leader::reached;
use sim::{
    process_name, Call, CallId, Ending, Fault, Happening, Limit, Note, ProcessIndex, ProcessName, Reply, Scheduler,
    TraceEvent,
};

use super::workload::{LeaseWorkload, LEASE_KEY};
use crate::grade::{Case, Execution};
use crate::report::Violation;
use crate::waiting::{polls, times};

/// A store call as it was sent.
#[derive(Clone, Debug)]
struct Sent {
    request: Call,
    local_ms: u64,
    /// Made inside `lead`: a renewal, when it is a compare-and-swap.
    in_lead: bool,
    /// The sender's count of acquisitions when it was sent (its tenure).
    tenure: u32,
}

/// The write the store holds for the lease key.
#[derive(Clone, Debug)]
struct Tenure {
    process: ProcessIndex,
    call: CallId,
    version: u64,
    /// When this replica's unbroken holding began (store time).
    since_ms: u64,
    /// The local time the current write was sent: `validFrom`.
    sent_local_ms: u64,
    /// The local time its reply reached the replica, once it did.
    reply_local_ms: Option<u64>,
    /// The TTL the write carried (`None`: it never expires), and when the store applied it.
    ttl_ms: Option<u64>,
    written_ms: u64,
}

#[derive(Clone, Debug, Default)]
struct Replica {
    function: Option<String>,
    renewals_in_flight: u32,
    /// Store time at which a failed renewal's reply arrived.
    failed_renewal_ms: Option<u64>,
    /// The `version` the last failed renewal compared, and its local send time.
    failed_renewal_sent: Option<(Option<u64>, u64)>,
    /// The local time this replica last sent a renewal.
    renewal_sent_local_ms: Option<u64>,
    /// Successful acquires (writes made outside `lead`) so far.
    acquisitions: u32,
    /// The write of this replica's last tenure, kept after it ended.
    last_tenure: Option<Tenure>,
    /// The call whose reply last resumed this replica.
    resumed_by: Option<CallId>,
    /// The sleep of the unit of work under way (`ctx.work()` is a note, then a sleep).
    work_sleep: Option<CallId>,
    /// Store calls and sleeps made and not yet answered.
    calls_in_flight: u32,
    /// A unit of work just noted, whose sleep is the next call.
    work_started: bool,
    /// Units of work since `lead` was last called.
    works_in_lead: u32,
    /// In `campaign`: calls made, and the key's changes when it began.
    campaign_calls: u64,
    /// Whether this replica's write of the key landed during its current `campaign`.
    acquired_in_campaign: bool,
    /// In `lead`, while another replica holds the key: store calls made, and the key's changes when the first was.
    lead_calls_while_other_holds: u64,
    changes_at_first_such_call: u64,
    changes_at_campaign: u64,
    /// How and when this replica's last tenure ended.
    lost: Option<(u64, &'static str)>,
    crashed: bool,
    failed: bool,
}

#[derive(Clone, Debug)]
struct Failover {
    crashed: ProcessIndex,
    crash_ms: u64,
    deadline_ms: u64,
    bound_ms: u64,
}

pub fn check(case: &Case<LeaseWorkload>, execution: &Execution) -> Option<Violation> {
    let mut checker = Checker::new(case, &execution.trace);
    for (index, event) in execution.trace.iter().enumerate() {
        if let Some(violation) = checker.step(index, event) {
            return Some(violation);
        }
    }
    checker.at_end(case, execution)
}

struct Checker<'a> {
    trace: &'a [TraceEvent],
    /// Writes, deletes and expiries of the key so far.
    changes: u64,
    ttl_ms: u64,
    requests: HashMap<CallId, Sent>,
    holder: Option<Tenure>,
    replicas: Vec<Replica>,
    /// Only clock drift planned: a healthy leader must keep its lease.
    calm: bool,
    /// No pause and no delayed message planned: timing rules apply.
    timely: bool,
    round_trip_ms: u64,
    failover: Option<Failover>,
    /// Replicas whose clock jumps forward at some point: a jump makes time
    /// pass at once, so when work and a renewal due at the same instant run
    /// is not the replica's own doing, and `renew-on-time` spares them.
    jumps: Vec<ProcessIndex>,
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

/// `from + ttl * numerator / denominator` for messages: whole when it is.
fn point_ms(from_ms: u64, ttl_ms: u64, numerator: u64, denominator: u64) -> String {
    let value = from_ms as f64 + ttl_ms as f64 * numerator as f64 / denominator as f64;
    format!("{value}")
}

impl<'a> Checker<'a> {
    fn new(case: &Case<LeaseWorkload>, trace: &'a [TraceEvent]) -> Checker<'a> {
        let faults = &case.plan.faults;
        let bias_ms = match &case.plan.scheduler {
            Scheduler::Random => 0,
            Scheduler::Priority { bias_ms, order, .. } => bias_ms * order.len() as u64,
        };
        let processes = case.plan.processes.clamp(1, case.limits.processes_max) as usize;
        Checker {
            trace,
            changes: 0,
            ttl_ms: case.workload.ttl_ms,
            requests: HashMap::new(),
            holder: None,
            replicas: vec![Replica::default(); processes],
            calm: faults.iter().all(|fault| matches!(fault, Fault::ClockDrift { .. })),
            timely: !faults.iter().any(|fault| {
                matches!(fault, Fault::Pause { .. } | Fault::DelayRequest { .. } | Fault::DelayReply { .. })
            }),
            round_trip_ms: 2 * (case.plan.latency_max_ms + bias_ms),
            failover: None,
            jumps: faults.iter().filter(|fault| matches!(fault, Fault::ClockJump { .. })).map(Fault::process).collect(),
        }
    }

    fn replica(&mut self, process: ProcessIndex) -> &mut Replica {
        let index = process as usize;
        if index >= self.replicas.len() {
            self.replicas.resize(index + 1, Replica::default());
        }
        &mut self.replicas[index]
    }

    /// The current tenure ends (expiry or delete).
    fn tenure_ends(&mut self, at_ms: u64, how: &'static str) -> Option<Tenure> {
        let ended = self.holder.take()?;
        self.changes += 1;
        let replica = self.replica(ended.process);
        replica.lost = Some((at_ms, how));
        replica.last_tenure = Some(ended.clone());
        Some(ended)
    }

    fn step(&mut self, index: usize, event: &TraceEvent) -> Option<Violation> {
        let at_ms = event.at_ms;
        if let Some(failover) = &self.failover {
            if at_ms > failover.deadline_ms {
                return self.failover_violation(index, at_ms);
            }
        }
        let local_ms = event.local_ms.unwrap_or(at_ms);
        match (&event.happening, event.process) {
            (Happening::Invoke { call, request }, Some(process)) => {
                let in_lead = self.replica(process).function.as_deref() == Some("lead");
                let tenure = self.replica(process).acquisitions;
                self.requests.insert(*call, Sent { request: request.clone(), local_ms, in_lead, tenure });
                let replica = self.replica(process);
                replica.calls_in_flight += 1;
                if std::mem::take(&mut replica.work_started) && matches!(request, Call::Sleep { .. }) {
                    replica.work_sleep = Some(*call);
                } else if let (true, Some(failed_ms)) = (in_lead, replica.failed_renewal_ms) {
                    return violation(
                        "stop-after-failed-renewal",
                        format!(
                            "{}'s renewal failed at t={failed_ms} ms, but lead() then called {} instead of returning: when a renewal fails, lead() must return at once (the lease is lost; campaign() waits for the next turn)",
                            process_name(process),
                            request.describe()
                        ),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
                if let Some(found) = self.invoked(index, at_ms, process, request) {
                    return Some(found);
                }
                if in_lead && is_lease_cas(request) {
                    if let Some(found) = self.renewal_sent(index, at_ms, local_ms, process) {
                        return Some(found);
                    }
                    let replica = self.replica(process);
                    replica.renewals_in_flight += 1;
                    replica.renewal_sent_local_ms = Some(local_ms);
                }
            }
            (Happening::Apply { call, result, .. }, Some(process)) => {
                let sent = self.requests.get(call).cloned()?;
                match (&sent.request, result) {
                    (Call::Cas { key, .. }, Reply::Cas { ok: true, version: Some(version), .. })
                        if key == LEASE_KEY =>
                    {
                        let replica = self.replica(process);
                        if replica.function.as_deref() == Some("campaign") {
                            replica.acquired_in_campaign = true;
                        }
                        return self.written(index, at_ms, process, *call, *version, &sent);
                    }
                    (Call::Delete { key, .. }, Reply::Delete { ok: true }) if key == LEASE_KEY => {
                        self.tenure_ends(at_ms, "was deleted");
                    }
                    _ => {}
                }
            }
            (Happening::Complete { call, reply }, Some(process)) => {
                if let Some(holder) = self.holder.as_mut().filter(|holder| holder.call == *call) {
                    holder.reply_local_ms = Some(local_ms);
                }
                // A reply can arrive after its write's tenure ended (expired).
                if let Some(ended) = self.replica(process).last_tenure.as_mut().filter(|ended| ended.call == *call) {
                    ended.reply_local_ms = Some(local_ms);
                }
                let renewal =
                    self.requests.get(call).filter(|sent| sent.in_lead && is_lease_cas(&sent.request)).map(|sent| {
                        let compared = match &sent.request {
                            Call::Cas { version, .. } => *version,
                            _ => None,
                        };
                        (sent.tenure, compared, sent.local_ms)
                    });
                let replica = self.replica(process);
                replica.resumed_by = Some(*call);
                replica.calls_in_flight = replica.calls_in_flight.saturating_sub(1);
                let after_work = replica.work_sleep == Some(*call);
                if after_work {
                    replica.work_sleep = None;
                }
                if let Some((tenure, compared, sent_ms)) = renewal {
                    replica.renewals_in_flight = replica.renewals_in_flight.saturating_sub(1);
                    // A renewal from an earlier tenure that fails once the
                    // replica holds the lease again says nothing of the new one.
                    if matches!(reply, Reply::Cas { ok: false, .. }) && tenure == replica.acquisitions {
                        replica.failed_renewal_ms = Some(at_ms);
                        replica.failed_renewal_sent = Some((compared, sent_ms));
                    }
                }
                // Resumed past the renewal's due time, by anything but a unit of work: it idled instead of renewing.
                if !after_work {
                    if let Some(valid_from_ms) = self.renewal_overdue(process, local_ms) {
                        let waited = self
                            .requests
                            .get(call)
                            .map_or_else(String::new, |sent| format!(", when {} answered", sent.request.describe()));
                        return violation(
                            "renew-on-time",
                            format!(
                                "{} was still in lead() at local time {local_ms} ms{waited}, without having renewed: its renewal was due at {} ms (validFrom {valid_from_ms} + ttlMs / 2), and it sent none by {} ms: renew every ttlMs / 2, rather than waiting",
                                process_name(process),
                                point_ms(valid_from_ms, self.ttl_ms, 1, 2),
                                point_ms(valid_from_ms + self.round_trip_ms, self.ttl_ms, 6, 10)
                            ),
                            index,
                            at_ms,
                            Some(process),
                        );
                    }
                }
            }
            (Happening::Lost { call }, Some(process)) => {
                let renewal = self.requests.get(call).is_some_and(|sent| sent.in_lead && is_lease_cas(&sent.request));
                let replica = self.replica(process);
                replica.calls_in_flight = replica.calls_in_flight.saturating_sub(1);
                if renewal {
                    replica.renewals_in_flight = replica.renewals_in_flight.saturating_sub(1);
                }
            }
            (Happening::Expire { key, .. }, _) if key == LEASE_KEY => {
                let overdue = self.holder.as_ref().and_then(|holder| {
                    let replica = self.replicas.get(holder.process as usize)?;
                    let in_lead = replica.function.as_deref() == Some("lead") && !replica.crashed;
                    let applies = self.timely && !self.jumps.contains(&holder.process);
                    (in_lead && applies && replica.renewals_in_flight == 0 && replica.failed_renewal_ms.is_none())
                        .then_some(holder.sent_local_ms)
                });
                if let Some(ended) = self.tenure_ends(at_ms, "expired") {
                    let name = process_name(ended.process);
                    let written = self.written_story(&ended);
                    if self.calm {
                        let fix = if written.is_empty() {
                            format!(
                                ": renew every ttlMs / 2 ({} ms) so that a healthy leader keeps its lease",
                                self.ttl_ms / 2
                            )
                        } else {
                            written
                        };
                        return violation(
                            "no-spurious-loss",
                            format!("{name}'s lease expired at t={at_ms} ms on a calm network where nothing had gone wrong{fix}"),
                            index,
                            at_ms,
                            Some(ended.process),
                        );
                    }
                    if let Some(valid_from_ms) = overdue.filter(|_| written.is_empty()) {
                        return violation(
                            "renew-on-time",
                            format!(
                                "{name}'s lease expired at t={at_ms} ms while it was in lead(), and it had sent no renewal since its last successful acquire or renew (sent at local time {valid_from_ms} ms): renew every ttlMs / 2, due at {} ms",
                                point_ms(valid_from_ms, self.ttl_ms, 1, 2)
                            ),
                            index,
                            at_ms,
                            Some(ended.process),
                        );
                    }
                }
            }
            (Happening::Crash, Some(process)) => self.crashed(at_ms, process),
            (Happening::Note { note }, Some(process)) => return self.note(index, at_ms, local_ms, process, note),
            _ => {}
        }
        None
    }

    fn crashed(&mut self, at_ms: u64, process: ProcessIndex) {
        self.replica(process).crashed = true;
        let held = self.holder.as_ref().is_none_or(|holder| holder.process == process);
        let someone_left = self.replicas.iter().any(|replica| !replica.crashed && !replica.failed);
        if self.timely && held && someone_left && self.failover.is_none() {
            let bound_ms = self.ttl_ms + 3 * self.round_trip_ms;
            self.failover =
                Some(Failover { crashed: process, crash_ms: at_ms, deadline_ms: at_ms + bound_ms, bound_ms });
        }
    }

    fn failover_violation(&self, index: usize, at_ms: u64) -> Option<Violation> {
        let failover = self.failover.as_ref()?;
        let name = process_name(failover.crashed);
        let cause = match self.holder.as_ref().map(|holder| self.written_story(holder)) {
            Some(written) if !written.is_empty() => written,
            _ => ": wait for the holder's key with watch(key, version) so that its expiry wakes you".to_string(),
        };
        violation(
            "failover",
            format!(
                "{name} crashed at t={} ms and no other replica held the lease by t={} ms ({} ms later: the TTL of {} ms plus 3 round trips){cause}",
                failover.crash_ms,
                failover.deadline_ms,
                failover.bound_ms,
                self.ttl_ms
            ),
            index,
            at_ms,
            Some(failover.crashed),
        )
    }

    /// `validFrom`, when `process` is in `lead`, holds the lease, and its
    /// renewal is overdue at `local_ms` (the grace of `renew-on-time`
    /// passed, no renewal in flight) on a network where timing is its own.
    fn renewal_overdue(&self, process: ProcessIndex, local_ms: u64) -> Option<u64> {
        let replica = self.replicas.get(process as usize)?;
        let holder = self.holder.as_ref().filter(|holder| holder.process == process)?;
        let applies = self.timely
            && !self.jumps.contains(&process)
            && replica.function.as_deref() == Some("lead")
            && replica.renewals_in_flight == 0
            && replica.failed_renewal_ms.is_none();
        let valid_from_ms = holder.sent_local_ms;
        (applies && reached(local_ms, valid_from_ms + self.round_trip_ms, self.ttl_ms, 6, 10)).then_some(valid_from_ms)
    }

    /// What is wrong with the TTL a write carried, when something is: ": its
    /// renewal at t=… carried ttlMs 1, …" (empty when it carried ttlMs).
    fn written_story(&self, tenure: &Tenure) -> String {
        let what = if self.requests.get(&tenure.call).is_some_and(|sent| sent.in_lead) { "renewal" } else { "acquire" };
        let name = ProcessName(tenure.process);
        match tenure.ttl_ms {
            Some(ttl_ms) if ttl_ms == self.ttl_ms => String::new(),
            Some(ttl_ms) => format!(
                ": {name}'s {what} at t={} ms (version {}) was written with ttlMs {ttl_ms}, not the ttlMs of {} ms campaign() and lead() were given, so the store removed the key {ttl_ms} ms later: write the key with the ttlMs you were given",
                tenure.written_ms, tenure.version, self.ttl_ms
            ),
            None => format!(
                ": the key still holds {name}'s {what} at t={} ms (version {}), {} with no ttlMs, so it never expires: pass {{ version, ttlMs }} with every renewal, and {{ ttlMs }} when you acquire",
                tenure.written_ms, tenure.version, if what == "renewal" { "renewed" } else { "written" }
            ),
        }
    }

    fn renewal_sent(&mut self, index: usize, at_ms: u64, local_ms: u64, process: ProcessIndex) -> Option<Violation> {
        let holder = self.holder.as_ref().filter(|holder| holder.process == process)?;
        if reached(local_ms, holder.sent_local_ms, self.ttl_ms, 1, 2) {
            return None;
        }
        let name = ProcessName(process);
        violation(
            "renew-not-too-often",
            format!(
                "{name} renewed at local time {local_ms} ms, only {} ms after its last successful acquire or renew was sent (at {} ms): renew once ttlMs / 2 = {} ms have passed, not sooner",
                local_ms - holder.sent_local_ms,
                holder.sent_local_ms,
                point_ms(0, self.ttl_ms, 1, 2)
            ),
            index,
            at_ms,
            Some(process),
        )
    }

    fn written(
        &mut self,
        index: usize,
        at_ms: u64,
        process: ProcessIndex,
        call: CallId,
        version: u64,
        sent: &Sent,
    ) -> Option<Violation> {
        let since_ms = match &self.holder {
            Some(holder) if holder.process != process => {
                return violation(
                    "no-overwrite",
                    format!(
                        "{} wrote the lease key while {} held it (since t={} ms): campaign must create the key only when it is absent, with compareAndSwap(key, name, null, {{ ttlMs }})",
                        process_name(process),
                        process_name(holder.process),
                        holder.since_ms
                    ),
                    index,
                    at_ms,
                    Some(process),
                );
            }
            Some(holder) => holder.since_ms,
            None => at_ms,
        };
        self.changes += 1;
        self.holder = Some(Tenure {
            process,
            call,
            version,
            since_ms,
            sent_local_ms: sent.local_ms,
            reply_local_ms: None,
            ttl_ms: match &sent.request {
                Call::Cas { ttl_ms, .. } => *ttl_ms,
                _ => None,
            },
            written_ms: at_ms,
        });
        let replica = self.replica(process);
        replica.lost = None;
        if !sent.in_lead {
            replica.failed_renewal_ms = None;
            replica.acquisitions += 1;
        }
        if self.failover.as_ref().is_some_and(|failover| failover.crashed != process) && !self.replica(process).crashed
        {
            self.failover = None;
        }
        None
    }

    fn note(
        &mut self,
        index: usize,
        at_ms: u64,
        local_ms: u64,
        process: ProcessIndex,
        note: &Note,
    ) -> Option<Violation> {
        let name = ProcessName(process);
        match note {
            Note::Calling { function } => {
                let changes = self.changes;
                let replica = self.replica(process);
                replica.function = Some(function.clone());
                replica.works_in_lead = 0;
                if function == "lead" {
                    // campaign() has returned: it returns once this replica holds the lease (a write of
                    // its own during the call; the lease may have run out since, while the reply travelled).
                    let holds = self.holder.as_ref().is_some_and(|holder| holder.process == process);
                    let replica = self.replica(process);
                    if !replica.acquired_in_campaign && !holds {
                        let holder = match self.holder.as_ref() {
                            Some(holder) => format!(" ({} holds it)", ProcessName(holder.process)),
                            None => String::new(),
                        };
                        return violation(
                            "campaign-holds",
                            format!(
                                "{name}'s campaign() returned without taking the lease{holder}: campaign returns only once this replica's own write of the key succeeds; while another replica holds it, wait inside campaign with watch"
                            ),
                            index,
                            at_ms,
                            Some(process),
                        );
                    }
                }
                let replica = self.replica(process);
                replica.campaign_calls = 0;
                replica.lead_calls_while_other_holds = 0;
                replica.acquired_in_campaign = false;
                replica.changes_at_campaign = changes;
            }
            Note::Stepped { .. } => {
                self.replica(process).function = None;
                if self.calm {
                    // What the trace shows: a lease still held, and whether a
                    // renewal was sent since its last successful write.
                    let ttl_ms = self.ttl_ms;
                    let last_renewal_ms = self.replica(process).renewal_sent_local_ms;
                    let failed = self.replica(process).failed_renewal_ms.and(self.replica(process).failed_renewal_sent);
                    let why = match self.holder.as_ref().filter(|holder| holder.process == process) {
                        Some(holder) if failed.is_some_and(|(compared, _)| compared != Some(holder.version)) => {
                            let (compared, sent_ms) = failed.unwrap_or_default();
                            let compared = compared.map_or("no version".to_string(), |version| format!("version {version}"));
                            format!(
                                ": its renewal sent at local time {sent_ms} ms failed because it compared {compared}, but its own last write had made the key's version {}: renew with the version that the last successful acquire or renew returned",
                                holder.version
                            )
                        }
                        Some(holder) if last_renewal_ms.is_none_or(|sent_ms| sent_ms < holder.sent_local_ms) => format!(
                            ": its lease was still held, and it had sent no renewal since its last successful acquire or renew (sent at local time {} ms), so the renewal due at {} ms (validFrom + ttlMs / 2) had not gone out: send it once ttlMs / 2 has passed, well before the window closes at {} ms (validFrom + 0.75 * ttlMs)",
                            holder.sent_local_ms,
                            point_ms(holder.sent_local_ms, ttl_ms, 1, 2),
                            point_ms(holder.sent_local_ms, ttl_ms, 3, 4)
                        ),
                        Some(_) => ": its lease was still held; a healthy leader steps down only when a renewal fails or its validity window passes".to_string(),
                        None => ": a healthy leader renews every ttlMs / 2 and steps down only when a renewal fails or its validity window passes".to_string(),
                    };
                    return violation(
                        "no-spurious-loss",
                        format!(
                            "{name}'s lead() returned at t={at_ms} ms (local time {local_ms} ms) on a calm network where nothing had gone wrong{why}"
                        ),
                        index,
                        at_ms,
                        Some(process),
                    );
                }
            }
            Note::Work { .. } => {
                self.replica(process).work_started = true;
                return self.work(index, at_ms, local_ms, process);
            }
            Note::Failed { message } => {
                self.replica(process).failed = true;
                return violation("no-errors", message.clone(), index, at_ms, Some(process));
            }
            _ => {}
        }
        None
    }

    /// A store call or sleep, judged by what the replica was doing.
    fn invoked(&mut self, index: usize, at_ms: u64, process: ProcessIndex, request: &Call) -> Option<Violation> {
        let name = process_name(process);
        let found = |rule: &str, message: String| violation(rule, message, index, at_ms, Some(process));
        if let Call::Cas { key, next_value, .. } = request {
            if key == LEASE_KEY && *next_value != name {
                let function = self.replica(process).function.clone().unwrap_or_else(|| "campaign".into());
                return found(
                    "value-is-name",
                    format!("{name}'s {function}() wrote {next_value:?} as the lease's value: write ctx.name ({name:?}), so that the store shows who leads"),
                );
            }
        }
        let holder = self.holder.clone();
        let changes_now = self.changes;
        let replica = self.replica(process);
        // A lead() whose lease is lost and that reads the key again and again while another
        // replica holds it is waiting by polling, as a campaign would: held to the same measure
        // (its sleeps are its own business: lead may idle once its window has passed).
        let other_holds = holder.as_ref().is_some_and(|holding| holding.process != process);
        if replica.function.as_deref() == Some("lead") && other_holds && !matches!(request, Call::Sleep { .. }) {
            if replica.lead_calls_while_other_holds == 0 {
                replica.changes_at_first_such_call = changes_now;
            }
            replica.lead_calls_while_other_holds += 1;
            let (calls, changes) =
                (replica.lead_calls_while_other_holds, changes_now - replica.changes_at_first_such_call);
            if polls(calls, changes) {
                let holding = holder.as_ref().map_or(String::new(), |holding| {
                    format!(" while {} held the lease", process_name(holding.process))
                });
                return found(
                    "wait-by-watch",
                    format!("{name} made {calls} store calls in lead(){holding}, though the lease key changed {}: once your lease is lost, return from lead(); campaign() waits for your next turn with watch", times(changes)),
                );
            }
            return None;
        }
        if replica.function.as_deref() != Some("campaign") {
            return None;
        }
        replica.campaign_calls += 1;
        let (calls, changes) = (replica.campaign_calls, changes_now - replica.changes_at_campaign);
        if let (Call::Sleep { ms }, Some(holding)) = (request, &holder) {
            let whom = if holding.process == process {
                format!("its own earlier write (version {})", holding.version)
            } else {
                format!("{} (version {})", process_name(holding.process), holding.version)
            };
            return found(
                "wait-by-watch",
                format!("{name} slept {ms} ms in campaign() while the lease was held by {whom}: sleeping is polling; wait with watch(key, version), which wakes you when that write is replaced, deleted or expires"),
            );
        }
        if polls(calls, changes) {
            return found(
                "wait-by-watch",
                format!("{name} made {calls} calls in campaign(), though the lease key changed {}: wait with watch(key, version) instead of retrying", times(changes)),
            );
        }
        None
    }

    fn work(&mut self, index: usize, at_ms: u64, local_ms: u64, process: ProcessIndex) -> Option<Violation> {
        let name = ProcessName(process);
        let ttl_ms = self.ttl_ms;
        let Replica { failed_renewal_ms, lost, renewals_in_flight, .. } = *self.replica(process);
        let replica = self.replica(process);
        let first_in_lead = replica.works_in_lead == 0;
        replica.works_in_lead += 1;
        let resumed_by = replica.resumed_by;
        let last_tenure = replica.last_tenure.clone();
        if let Some(failed_ms) = failed_renewal_ms {
            return violation(
                "stop-after-failed-renewal",
                format!(
                    "{name} did leader work at t={at_ms} ms after its renewal failed at t={failed_ms} ms: when a renewal fails, lead() must return at once"
                ),
                index,
                at_ms,
                Some(process),
            );
        }
        let Some(holder) = self.holder.clone().filter(|holder| holder.process == process) else {
            let expired = lost.is_some_and(|(_, how)| how == "expired");
            let lost = match lost {
                Some((lost_ms, how)) => format!("; {name}'s lease {how} at t={lost_ms} ms"),
                None => String::new(),
            };
            let truth = match &self.holder {
                Some(other) => format!(
                    "the store showed {} as the holder (version {}, held since t={} ms)",
                    process_name(other.process),
                    other.version,
                    other.since_ms
                ),
                None => "the store showed no holder".to_string(),
            };
            let cause = match &last_tenure {
                Some(tenure) if expired && !self.written_story(tenure).is_empty() => {
                    self.written_story(tenure).trim_start_matches(": ").to_string()
                }
                Some(tenure) => self.diagnose_window(index, process, local_ms, tenure, first_in_lead, resumed_by),
                None => {
                    format!("{name} never held the lease: call ctx.work() only in lead(), after campaign() returned")
                }
            };
            return violation(
                "work-while-holder",
                format!(
                    "{name} did leader work at t={at_ms} ms (local time {local_ms} ms), but {truth}{lost}: {cause}"
                ),
                index,
                at_ms,
                Some(process),
            );
        };
        let valid_from_ms = holder.sent_local_ms;
        if reached(local_ms, valid_from_ms, ttl_ms, 3, 4) {
            let cause = self.diagnose_window(index, process, local_ms, &holder, first_in_lead, resumed_by);
            return violation(
                "work-within-validity",
                format!(
                    "{name} did leader work at local time {local_ms} ms, past its validity window: its last successful acquire or renew was sent at local time {valid_from_ms} ms, so it could work only until {} ms; {cause}",
                    point_ms(valid_from_ms, ttl_ms, 3, 4)
                ),
                index,
                at_ms,
                Some(process),
            );
        }
        // The grace (a tenth of the TTL plus a round trip) spares a leader
        // that counts its renewal from the reply rather than from the send.
        if self.timely
            && !self.jumps.contains(&process)
            && renewals_in_flight == 0
            && reached(local_ms, valid_from_ms + self.round_trip_ms, ttl_ms, 6, 10)
        {
            return violation(
                "renew-on-time",
                format!(
                    "{name} did leader work at local time {local_ms} ms without having renewed: its renewal was due at {} ms (validFrom {valid_from_ms} + ttlMs / 2): renew every ttlMs / 2",
                    point_ms(valid_from_ms, ttl_ms, 1, 2)
                ),
                index,
                at_ms,
                Some(process),
            );
        }
        None
    }

    /// Why a unit of work fell outside the window of `tenure`, as far as
    /// this run's trace tells: what resumed the replica just before it, and
    /// what the replica did next (see the module's documentation).
    fn diagnose_window(
        &self,
        index: usize,
        process: ProcessIndex,
        local_ms: u64,
        tenure: &Tenure,
        first_in_lead: bool,
        resumed_by: Option<CallId>,
    ) -> String {
        let ttl_ms = self.ttl_ms;
        let sent_ms = tenure.sent_local_ms;
        let renewal = self.requests.get(&tenure.call).is_some_and(|sent| sent.in_lead);
        let write = if renewal { "renewal" } else { "acquire" };
        let right_after_reply = resumed_by == Some(tenure.call);
        let reply_ms = tenure.reply_local_ms.filter(|reply_ms| *reply_ms > sent_ms);
        let within_reply_window = reply_ms.is_some_and(|reply_ms| !reached(local_ms, reply_ms, ttl_ms, 3, 4));
        let fix = "check ctx.now() < validFrom + 0.75 * ttlMs right before every ctx.work(), after every await, with validFrom read just before the request is sent";
        let here = if right_after_reply && first_in_lead && !renewal {
            format!(" (its first unit in lead(), as soon as campaign's reply arrived at local time {local_ms} ms)")
        } else if right_after_reply {
            format!(" (as soon as its {write}'s reply arrived at local time {local_ms} ms)")
        } else if first_in_lead {
            " (its first unit in lead())".to_string()
        } else {
            String::new()
        };
        // What the replica did next: more work, a renewal, or stepping down.
        let mut later_works = Vec::new();
        let mut next = None;
        for event in &self.trace[index + 1..] {
            if event.process != Some(process) {
                continue;
            }
            let local = event.local_ms.unwrap_or(event.at_ms);
            match &event.happening {
                Happening::Note { note: Note::Work { .. } } => later_works.push(local),
                Happening::Note { note: Note::Stepped { .. } } => {
                    next = Some(("stepped", local));
                    break;
                }
                Happening::Invoke { request, .. } if is_lease_cas(request) => {
                    next = Some(("renewed", local));
                    break;
                }
                Happening::Crash | Happening::Note { note: Note::Failed { .. } } => break,
                _ => {}
            }
        }
        let past_any_window = later_works
            .iter()
            .find(|work_ms| reply_ms.is_none_or(|reply_ms| reached(**work_ms, reply_ms, ttl_ms, 3, 4)));
        if let Some(work_ms) = past_any_window {
            return format!("it went on working{here} until local time {work_ms} ms or later, past any window, so no window check ran before these units: {fix}");
        }
        // A renewal due by the send was due before this unit; one sent only
        // at reply + ttlMs/2, or a stop only past the send's window, points
        // at a window counted from the reply. A stop inside it points at a
        // check that works but did not run before this unit.
        let from_reply = reply_ms.is_some_and(|reply_ms| {
            within_reply_window
                && match next {
                    Some(("renewed", step_ms)) => reached(step_ms, reply_ms, ttl_ms, 1, 2),
                    Some((_, step_ms)) => !later_works.is_empty() && reached(step_ms, reply_ms, ttl_ms, 3, 4),
                    None => false,
                }
        });
        // Right after this unit it stepped down, or sent its overdue renewal,
        // before a window or a renewal counted from the reply would have
        // made it: its timing counts from the send, and only this unit went
        // unchecked.
        let stepped_by_send_window = later_works.is_empty()
            && match next {
                Some(("stepped", step_ms)) => reply_ms.is_none_or(|reply_ms| !reached(step_ms, reply_ms, ttl_ms, 3, 4)),
                Some((_, step_ms)) => reply_ms.is_none_or(|reply_ms| !reached(step_ms, reply_ms, ttl_ms, 1, 2)),
                None => false,
            };
        if from_reply {
            let reply_ms = reply_ms.unwrap_or(sent_ms);
            return format!(
                "its window seems to count from when the reply arrived (local time {reply_ms} ms, so until {}), not from when the request was sent{here}: validFrom is ctx.now() read just before sending, since the store's TTL may have started as soon as the request arrived",
                point_ms(reply_ms, ttl_ms, 3, 4)
            );
        }
        if stepped_by_send_window {
            let after = match next {
                Some(("stepped", _)) => "its window check stepped it down right after this unit",
                _ => "it sent its overdue renewal right after this unit, so it times the lease from the send",
            };
            return format!("{after}, but no check ran before this unit{here}: {fix}");
        }
        match reply_ms {
            Some(reply_ms) if within_reply_window => format!(
                "the trace cannot tell whether no check ran before this unit{here} or the window was counted from the reply (local time {reply_ms} ms) instead of the send (local time {sent_ms} ms): {fix}"
            ),
            _ => format!("this unit{here} was past even a window counted from the reply, so no window check ran before it: {fix}"),
        }
    }

    fn at_end(&self, case: &Case<LeaseWorkload>, execution: &Execution) -> Option<Violation> {
        let end_ms = execution.trace.last().map_or(0, |event| event.at_ms);
        let index = execution.trace.len().saturating_sub(1);
        if let Some(failover) = &self.failover {
            if end_ms > failover.deadline_ms {
                return self.failover_violation(index, end_ms);
            }
        }
        // A lead() that, after its renewal failed, waits for something that never comes (nothing it
        // started before is still under way) never returns: it does not return at once.
        let hung = self.replicas.iter().enumerate().find(|(_, replica)| {
            replica.function.as_deref() == Some("lead")
                && replica.failed_renewal_ms.is_some()
                && replica.calls_in_flight == 0
                && !replica.crashed
                && !replica.failed
        });
        if let (Some((process, replica)), Ending::Limit { limit: Limit::Time }) = (hung, &execution.ending) {
            return violation(
                "stop-after-failed-renewal",
                format!(
                    "{}'s renewal failed at t={} ms, and lead() had still not returned when the run ended at t={end_ms} ms, though it waited for no store call and no sleep: when a renewal fails, lead() must return at once",
                    ProcessName(process as ProcessIndex),
                    replica.failed_renewal_ms.unwrap_or_default()
                ),
                index,
                end_ms,
                Some(process as ProcessIndex),
            );
        }
        let why = match &execution.ending {
            Ending::Limit { limit: Limit::Time } | Ending::AllFinished | Ending::Stopped => return None,
            Ending::Limit { limit } => limit.describe(&case.limits),
            Ending::Stuck { waiting } => {
                let names: Vec<String> = waiting
                    .iter()
                    .map(|process| {
                        let function =
                            self.replicas.get(*process as usize).and_then(|replica| replica.function.clone());
                        format!("{} in {}()", process_name(*process), function.unwrap_or_else(|| "campaign".into()))
                    })
                    .collect();
                let written = self.holder.as_ref().map(|holder| self.written_story(holder)).unwrap_or_default();
                format!("every replica was waiting ({}) and nothing more could happen{written}", names.join(", "))
            }
        };
        violation(
            "runs-to-horizon",
            format!("the run stopped at t={end_ms} ms, before its horizon of {} ms: {why}", case.limits.time_ms_max),
            index,
            end_ms,
            None,
        )
    }
}

fn is_lease_cas(request: &Call) -> bool {
    matches!(request, Call::Cas { key, .. } if key == LEASE_KEY)
}
