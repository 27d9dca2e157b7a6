//! The fencing race: the engine of section 08's widget. Two leaders, A (the
//! old one) and B (the new one), a worker that carries out their requests,
//! the lock store (a real [`kv::Store`]) and the data the worker writes, on
//! one clock.
//!
//! The design decision: like the failover simulator, a run is a pure
//! function of the visitor's choices (which worker, a pause of A between
//! its check and its write, a delay of one request in flight), and the page
//! asks for a whole new run from t = 0 whenever they change. Unlike the
//! failover simulator it does not run on `sim`'s kernel: the story needs two
//! things the kernel does not have, a transaction that compares one key and
//! writes another (etcd's guarded write, the "atomic" worker) and messages
//! from one process to another (a leader's request to the worker), and it
//! needs fixed, round timings more than random ones, so that every moment
//! on the timeline can be explained in words (every hop takes
//! [`LATENCY_MS`]). So the engine is a small discrete-event loop in this
//! module, over the same store model the lesson's other widgets use: leases
//! with TTLs, revisions as fencing tokens, expiry at the deadline, and
//! [`kv::Store::txn`] for the atomic check-and-write. It only needs `kv`, so
//! it lives in the small store module the page already loads for widgets.
//!
//! What counts as trouble, for every worker alike: a request is applied
//! *late* when it lands after a newer tenure began (the store gave the lease
//! to someone else), and it is a *double apply* when it lands after a newer
//! tenure's request has already been applied: both leaders' requests were
//! applied, out of order. The atomic worker can do neither; the
//! highest-token worker can be late (before the new leader's first write)
//! but never double; the asking worker can do both when the lease moves
//! between its read and its write.

use std::collections::BTreeMap;

use kv::{CasOutcome, Compare, Expect, LeaseChoice, Store, Txn, TxnOp};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// The lease's TTL.
pub const TTL_MS: u64 = 2_000;
/// Every hop takes this long: leader ↔ store, leader → worker, worker ↔
/// store, worker → data.
pub const LATENCY_MS: u64 = 50;
/// From a leader's local check to sending its request (it prepares the write).
pub const PREPARE_MS: u64 = 100;
/// From a leader's request to its next check.
pub const WORK_GAP_MS: u64 = 300;
/// Each leader has this many requests to send (A1 … A5, B1 … B5).
pub const REQUESTS_PER_LEADER: u32 = 5;
/// B starts campaigning a moment after A, so A leads first.
pub const B_START_MS: u64 = 20;
/// Every run ends here.
pub const UNTIL_MS: u64 = 6_000;
/// The longest pause and the longest delay the visitor can choose.
pub const PAUSE_MS_MAX: u64 = 3_000;
pub const DELAY_MS_MAX: u64 = 3_000;
/// The page's sliders move in steps of this many milliseconds.
pub const STEP_MS: u64 = 50;

const LOCK_KEY: &str = "leader";
const DATA_KEY: &str = "data";

/// The two leaders: A leads first, B takes over if A's lease runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Leader {
    A,
    B,
}

impl Leader {
    fn name(self) -> &'static str {
        match self {
            Leader::A => "A",
            Leader::B => "B",
        }
    }

    fn named(value: &str) -> Option<Leader> {
        match value {
            "A" => Some(Leader::A),
            "B" => Some(Leader::B),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How the worker decides whether to carry out a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkerMode {
    /// Writes every request it receives to the data.
    Trusts,
    /// Reads the lock record, and writes only if the request's owner and
    /// version match it (Chubby's sequencer check; the lesson's exercise).
    Asks,
    /// Sends one transaction to the store: if the lock still names the
    /// request's owner at its version, write the data (the data lives in
    /// the store).
    Atomic,
    /// Writes with the request's token; the data refuses a token smaller
    /// than the highest it has seen (Kleppmann's fencing).
    Highest,
}

/// Which hop of a request the visitor delays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Hop {
    /// From the leader to the worker.
    ToWorker,
    /// The worker's write: to the data, or, for the atomic worker, its
    /// transaction to the store.
    Write,
}

/// A pause of A right after the local check that precedes its request
/// `before` (1 = A1), for `ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pause {
    pub before: u32,
    pub ms: u64,
}

/// A's request `request` (1 = A1) is `ms` late on `hop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Delay {
    pub request: u32,
    pub hop: Hop,
    pub ms: u64,
}

/// `fencingRaceRun`'s argument: the visitor's choices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RaceRequest {
    pub worker: WorkerMode,
    #[serde(default)]
    pub pause: Option<Pause>,
    #[serde(default)]
    pub delay: Option<Delay>,
}

/// The store's record of who holds the lease, from the write that took it
/// to its expiry (`toMs: null` while it holds at the end of the run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hold {
    pub leader: Leader,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
    /// Each write of this tenure: the acquire, then every renewal.
    pub writes: Vec<LockWrite>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockWrite {
    pub at_ms: u64,
    pub version: u64,
}

/// A span of time for one leader: leading by its own account, or paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub leader: Leader,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
}

/// Who sent a store call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Caller {
    A,
    B,
    #[serde(rename = "worker")]
    Worker,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    /// A leader's compare-and-swap that takes the free lock.
    Acquire,
    /// A leader's compare-and-swap that rewrites its own lock.
    Renew,
    /// The asking worker reads the lock.
    Read,
    /// The atomic worker's guarded write.
    Txn,
}

/// One call to the lock store: sent, applied, answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreCall {
    pub caller: Caller,
    pub kind: CallKind,
    /// The request it is about (the worker's calls), as its index in `requests`.
    pub request: Option<usize>,
    pub sent_ms: u64,
    pub applied_ms: Option<u64>,
    pub answered_ms: Option<u64>,
    pub ok: Option<bool>,
}

/// What the lock said when the worker (or its transaction) looked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    pub leader: Leader,
    pub version: u64,
}

/// Where a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// Applied while its sender's tenure was the newest.
    Applied,
    /// Applied after a newer tenure began, before any of its requests was applied.
    Late,
    /// Applied after a newer tenure's request was applied: both leaders acted.
    Double,
    /// The asking worker turned it away after reading the lock.
    Rejected,
    /// The store's transaction refused it (the lock did not match).
    RefusedByStore,
    /// The data refused it: its token was below the highest seen.
    RefusedByData,
}

/// One request from a leader, from its sending to where it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// "A1", "B2", …
    pub id: String,
    pub leader: Leader,
    /// The version (fencing token) the leader stamped on it.
    pub version: u64,
    pub sent_ms: u64,
    /// Extra time on the way to the worker (the visitor's delay).
    pub delay_ms: u64,
    /// When it reached the worker (`null`: still on its way at the end).
    pub arrived_ms: Option<u64>,
    /// The asking worker's read: when the store read the lock, and what it found.
    pub read_ms: Option<u64>,
    pub read_holder: Option<Holder>,
    /// When the worker sent its write (or transaction), and how late it ran.
    pub write_sent_ms: Option<u64>,
    pub write_delay_ms: u64,
    /// When it was applied or turned away, and how (`null`: undecided at the end).
    pub decided_ms: Option<u64>,
    pub outcome: Option<Outcome>,
    /// Why it was turned away: the lock's holder then (`null`: nobody), or
    /// for the highest-token worker, the highest token seen.
    pub holder_then: Option<Holder>,
    pub highest_then: Option<u64>,
    /// For a double apply: the newer tenure's request that had been applied.
    pub after: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StepDownReason {
    /// The store refused its renewal.
    RenewalRefused,
    /// Its own clock said the validity window (0.75 × TTL) had passed.
    WindowPassed,
}

/// The moments worth a line in the widget's log, in time order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum StoryEvent {
    #[serde(rename_all = "camelCase")]
    Acquired { at_ms: u64, leader: Leader, version: u64 },
    #[serde(rename_all = "camelCase")]
    Renewed { at_ms: u64, leader: Leader, version: u64 },
    #[serde(rename_all = "camelCase")]
    Expired { at_ms: u64, leader: Leader },
    /// A leader found the lock taken and watches it.
    #[serde(rename_all = "camelCase")]
    Waiting { at_ms: u64, leader: Leader, holder: Leader },
    /// A's local check passed; a pause of `ms` follows at once.
    #[serde(rename_all = "camelCase")]
    Paused { at_ms: u64, leader: Leader, ms: u64 },
    #[serde(rename_all = "camelCase")]
    Resumed { at_ms: u64, leader: Leader },
    /// `request` (an index into `requests`) was sent.
    #[serde(rename_all = "camelCase")]
    Sent { at_ms: u64, request: usize },
    /// The asking worker's read of the lock, for `request`.
    #[serde(rename_all = "camelCase")]
    Read { at_ms: u64, request: usize },
    /// `request` ended (see its `outcome`).
    #[serde(rename_all = "camelCase")]
    Decided { at_ms: u64, request: usize },
    #[serde(rename_all = "camelCase")]
    SteppedDown { at_ms: u64, leader: Leader, reason: StepDownReason },
}

impl StoryEvent {
    pub fn at_ms(&self) -> u64 {
        match *self {
            StoryEvent::Acquired { at_ms, .. }
            | StoryEvent::Renewed { at_ms, .. }
            | StoryEvent::Expired { at_ms, .. }
            | StoryEvent::Waiting { at_ms, .. }
            | StoryEvent::Paused { at_ms, .. }
            | StoryEvent::Resumed { at_ms, .. }
            | StoryEvent::Sent { at_ms, .. }
            | StoryEvent::Read { at_ms, .. }
            | StoryEvent::Decided { at_ms, .. }
            | StoryEvent::SteppedDown { at_ms, .. } => at_ms,
        }
    }
}

/// `fencingRaceRun`'s answer: the whole run, 0 to `untilMs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RaceStory {
    pub request: RaceRequest,
    pub until_ms: u64,
    pub ttl_ms: u64,
    /// Every hop's duration (a read's answer reaches the worker this long after the store read).
    pub latency_ms: u64,
    pub holds: Vec<Hold>,
    pub leading: Vec<Span>,
    pub pauses: Vec<Span>,
    /// Local checks that passed (a failed one is a `steppedDown` event).
    pub checks: Vec<LockCheck>,
    pub calls: Vec<StoreCall>,
    pub requests: Vec<Request>,
    pub events: Vec<StoryEvent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockCheck {
    pub leader: Leader,
    pub at_ms: u64,
}

/// A scripted scenario from the lesson: the visitor's choices, ready made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    pub id: &'static str,
    pub request: RaceRequest,
}

/// The lesson's scenarios. Their descriptions are the page's (words are
/// the widget's business); the numbers are here, next to the timings they
/// depend on, and the tests below hold each preset to its story.
pub fn presets() -> Vec<Preset> {
    vec![
        // A pauses after its check for A3, past its lease; B takes over; A
        // wakes and sends A3 anyway.
        Preset {
            id: "paused-leader",
            request: RaceRequest {
                worker: WorkerMode::Trusts,
                pause: Some(Pause { before: 3, ms: 2_500 }),
                delay: None,
            },
        },
        // A2 lingers in the network for 3 s; meanwhile A pauses before A3
        // and B takes over, so A2 arrives from an earlier tenure.
        Preset {
            id: "delayed-request",
            request: RaceRequest {
                worker: WorkerMode::Trusts,
                pause: Some(Pause { before: 3, ms: PAUSE_MS_MAX }),
                delay: Some(Delay { request: 2, hop: Hop::ToWorker, ms: 3_000 }),
            },
        },
        // A's pause ends just in time for A3 to find A still holding the
        // lock when the worker reads it; the worker's write is slow, and
        // lands after B has taken over and B1 has been applied.
        Preset {
            id: "read-write-gap",
            request: RaceRequest {
                worker: WorkerMode::Asks,
                pause: Some(Pause { before: 3, ms: 900 }),
                delay: Some(Delay { request: 3, hop: Hop::Write, ms: 600 }),
            },
        },
    ]
}

/// The numbers the page needs, from here only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RaceSettings {
    pub ttl_ms: u64,
    pub latency_ms: u64,
    pub prepare_ms: u64,
    pub work_gap_ms: u64,
    pub requests_per_leader: u32,
    pub until_ms: u64,
    pub pause_ms_max: u64,
    pub delay_ms_max: u64,
    pub step_ms: u64,
    pub presets: Vec<Preset>,
}

pub fn settings() -> RaceSettings {
    RaceSettings {
        ttl_ms: TTL_MS,
        latency_ms: LATENCY_MS,
        prepare_ms: PREPARE_MS,
        work_gap_ms: WORK_GAP_MS,
        requests_per_leader: REQUESTS_PER_LEADER,
        until_ms: UNTIL_MS,
        pause_ms_max: PAUSE_MS_MAX,
        delay_ms_max: DELAY_MS_MAX,
        step_ms: STEP_MS,
        presets: presets(),
    }
}

/// The widget's fixed numbers and presets: `{ ttlMs, latencyMs, prepareMs,
/// workGapMs, requestsPerLeader, untilMs, pauseMsMax, delayMsMax, stepMs,
/// presets: [{ id, request }] }`.
#[wasm_bindgen(js_name = fencingRaceSettings)]
pub fn fencing_race_settings() -> Result<JsValue, JsError> {
    crate::store_handle::to_js(&settings())
}

/// Runs the race with the visitor's choices: `{ worker: "trusts" | "asks" |
/// "atomic" | "highest", pause: { before: 3, ms: 2500 } | null, delay: {
/// request: 2, hop: "toWorker" | "write", ms: 3000 } | null }` (requests of
/// A count from 1; whole milliseconds). Returns the story ([`RaceStory`]).
#[wasm_bindgen(js_name = fencingRaceRun)]
pub fn fencing_race_run(request: JsValue) -> Result<JsValue, JsError> {
    let request: RaceRequest = serde_wasm_bindgen::from_value(request).map_err(|error| {
        JsError::new(&format!(
            "fencingRaceRun: {error}; pass {{ worker: \"trusts\" | \"asks\" | \"atomic\" | \"highest\", pause: {{ before, ms }} | null, delay: {{ request, hop: \"toWorker\" | \"write\", ms }} | null }}"
        ))
    })?;
    let story = run(&request).map_err(|message| JsError::new(&message))?;
    crate::store_handle::to_js(&story)
}

/// Checks the visitor's choices against the limits; the message says what to do.
pub fn validate(request: &RaceRequest) -> Result<(), String> {
    if let Some(Pause { before, ms }) = request.pause {
        if !(1..=REQUESTS_PER_LEADER).contains(&before) {
            return Err(format!("fencingRaceRun: A has requests 1 to {REQUESTS_PER_LEADER}; pause.before is {before}"));
        }
        if ms > PAUSE_MS_MAX {
            return Err(format!("fencingRaceRun: a pause of {ms} ms is longer than the widget's {PAUSE_MS_MAX} ms; choose a shorter one"));
        }
    }
    if let Some(Delay { request, ms, .. }) = request.delay {
        if !(1..=REQUESTS_PER_LEADER).contains(&request) {
            return Err(format!(
                "fencingRaceRun: A has requests 1 to {REQUESTS_PER_LEADER}; delay.request is {request}"
            ));
        }
        if ms > DELAY_MS_MAX {
            return Err(format!("fencingRaceRun: a delay of {ms} ms is longer than the widget's {DELAY_MS_MAX} ms; choose a shorter one"));
        }
    }
    Ok(())
}

/// Runs the whole race natively.
pub fn run(request: &RaceRequest) -> Result<RaceStory, String> {
    validate(request)?;
    let mut race = Race::new(request.clone());
    race.run();
    let mut story = race.story;
    // Events were recorded as they were decided; a pause's end is decided at its start.
    story.events.sort_by_key(StoryEvent::at_ms);
    debug_assert!(story.holds.windows(2).all(|pair| pair[0].to_ms.is_some_and(|to_ms| to_ms <= pair[1].from_ms)));
    debug_assert!(story.requests.iter().all(|request| request.decided_ms.is_none_or(|decided| decided <= UNTIL_MS)));
    Ok(story)
}

/// Something that happens at a moment.
#[derive(Clone, Copy, Debug)]
enum Action {
    /// A leader sends a compare-and-swap for the free lock.
    Campaign(Leader),
    AcquireAtStore {
        leader: Leader,
        call: usize,
    },
    AcquireAnswered {
        leader: Leader,
        call: usize,
        version: Option<u64>,
        holder: Option<Leader>,
    },
    RenewAtStore {
        leader: Leader,
        call: usize,
        version: u64,
    },
    RenewAnswered {
        leader: Leader,
        call: usize,
        version: Option<u64>,
    },
    /// The lock a leader watches was deleted; the news reaches it now.
    LockFreed(Leader),
    /// A leader's loop: renew if due, then check.
    Cycle(Leader),
    /// A leader sends its prepared request.
    Send(Leader),
    ArriveAtWorker(usize),
    ReadAtStore {
        request: usize,
        call: usize,
    },
    ReadAnswered {
        request: usize,
        call: usize,
    },
    TxnAtStore {
        request: usize,
        call: usize,
    },
    WriteAtData(usize),
    /// The store's clock reaches a lease deadline.
    StoreTick,
}

#[derive(Debug, Default)]
struct LeaderState {
    /// The version it believes it holds.
    holding: Option<u64>,
    /// The index in `holds` of its tenure.
    tenure: Option<usize>,
    /// When it sent the request that last took or renewed the lease.
    lock_time_ms: u64,
    sent: u32,
    watching: bool,
    /// `leading` span open for it.
    leading_span: Option<usize>,
    done: bool,
}

struct Race {
    store: Store,
    queue: BTreeMap<(u64, u64), Action>,
    next_seq: u64,
    leaders: [LeaderState; 2],
    /// Each request's tenure (index into `holds`).
    tenures: Vec<usize>,
    open_hold: Option<usize>,
    highest_token: Option<u64>,
    story: RaceStory,
}

impl Race {
    fn new(request: RaceRequest) -> Race {
        let mut race = Race {
            store: Store::new(),
            queue: BTreeMap::new(),
            next_seq: 0,
            leaders: Default::default(),
            tenures: Vec::new(),
            open_hold: None,
            highest_token: None,
            story: RaceStory {
                request,
                until_ms: UNTIL_MS,
                ttl_ms: TTL_MS,
                latency_ms: LATENCY_MS,
                holds: Vec::new(),
                leading: Vec::new(),
                pauses: Vec::new(),
                checks: Vec::new(),
                calls: Vec::new(),
                requests: Vec::new(),
                events: Vec::new(),
            },
        };
        race.at(0, Action::Campaign(Leader::A));
        race.at(B_START_MS, Action::Campaign(Leader::B));
        race
    }

    /// Schedules `action` at `at_ms`; what falls after the end never happens.
    fn at(&mut self, at_ms: u64, action: Action) {
        if at_ms <= UNTIL_MS {
            self.queue.insert((at_ms, self.next_seq), action);
            self.next_seq += 1;
        }
    }

    fn run(&mut self) {
        // Bounded: a few actions per request and per lease period, far below this.
        let mut steps_left = 100_000;
        while let Some(((at_ms, _), action)) = self.queue.pop_first() {
            steps_left -= 1;
            assert!(steps_left > 0, "the fencing race did not settle; this is a bug in the widget's engine");
            self.advance_store(at_ms);
            self.handle(at_ms, action);
        }
        self.advance_store(UNTIL_MS);
    }

    /// Moves the store's clock, recording the lease's expiry.
    fn advance_store(&mut self, to_ms: u64) {
        let events =
            self.store.advance_to(to_ms).expect("the race's clock only moves forward, within the store's limits");
        for event in events {
            if event.key != LOCK_KEY {
                continue;
            }
            if let Some(open) = self.open_hold.take() {
                self.story.holds[open].to_ms = Some(event.at_ms);
                let leader = self.story.holds[open].leader;
                self.story.events.push(StoryEvent::Expired { at_ms: event.at_ms, leader });
            }
            for leader in [Leader::A, Leader::B] {
                if std::mem::take(&mut self.leaders[leader.index()].watching) {
                    self.at(event.at_ms + LATENCY_MS, Action::LockFreed(leader));
                }
            }
        }
    }

    fn call(&mut self, caller: Caller, kind: CallKind, request: Option<usize>, sent_ms: u64) -> usize {
        self.story.calls.push(StoreCall {
            caller,
            kind,
            request,
            sent_ms,
            applied_ms: None,
            answered_ms: None,
            ok: None,
        });
        self.story.calls.len() - 1
    }

    fn caller(leader: Leader) -> Caller {
        match leader {
            Leader::A => Caller::A,
            Leader::B => Caller::B,
        }
    }

    fn handle(&mut self, now: u64, action: Action) {
        match action {
            Action::Campaign(leader) => {
                let call = self.call(Self::caller(leader), CallKind::Acquire, None, now);
                self.at(now + LATENCY_MS, Action::AcquireAtStore { leader, call });
            }
            Action::AcquireAtStore { leader, call } => {
                let outcome = self
                    .store
                    .compare_and_swap(LOCK_KEY, leader.name(), &Expect::absent(), LeaseChoice::Ttl(TTL_MS))
                    .expect("the race's writes are within the store's limits");
                let (version, holder) = match outcome {
                    CasOutcome::Swapped { kv } => {
                        let version = kv.mod_revision;
                        self.open_hold = Some(self.story.holds.len());
                        self.story.holds.push(Hold {
                            leader,
                            from_ms: now,
                            to_ms: None,
                            writes: vec![LockWrite { at_ms: now, version }],
                        });
                        self.story.events.push(StoryEvent::Acquired { at_ms: now, leader, version });
                        self.at(now + TTL_MS, Action::StoreTick);
                        (Some(version), None)
                    }
                    CasOutcome::Mismatch { current } => (None, current.and_then(|kv| Leader::named(&kv.value))),
                };
                self.applied(call, now, version.is_some());
                self.at(now + LATENCY_MS, Action::AcquireAnswered { leader, call, version, holder });
            }
            Action::AcquireAnswered { leader, call, version, holder } => {
                self.story.calls[call].answered_ms = Some(now);
                match version {
                    Some(version) => {
                        let sent_ms = self.story.calls[call].sent_ms;
                        let tenure = self.story.holds.iter().rposition(|hold| hold.leader == leader);
                        let state = &mut self.leaders[leader.index()];
                        state.holding = Some(version);
                        state.tenure = tenure;
                        state.lock_time_ms = sent_ms;
                        state.leading_span = Some(self.story.leading.len());
                        self.story.leading.push(Span { leader, from_ms: now, to_ms: None });
                        self.check(leader, now);
                    }
                    None => {
                        if self.store.get(LOCK_KEY).is_some() {
                            // etcd's watch: woken by the next change of the key.
                            self.leaders[leader.index()].watching = true;
                            if let Some(holder) = holder {
                                self.story.events.push(StoryEvent::Waiting { at_ms: now, leader, holder });
                            }
                        } else {
                            // Freed while the answer travelled: try again at once.
                            self.at(now, Action::Campaign(leader));
                        }
                    }
                }
            }
            Action::LockFreed(leader) => self.handle(now, Action::Campaign(leader)),
            Action::Cycle(leader) => {
                let state = &self.leaders[leader.index()];
                if state.done {
                    return;
                }
                let Some(version) = state.holding else { return };
                if now >= state.lock_time_ms + TTL_MS / 2 {
                    let call = self.call(Self::caller(leader), CallKind::Renew, None, now);
                    self.at(now + LATENCY_MS, Action::RenewAtStore { leader, call, version });
                } else {
                    self.check(leader, now);
                }
            }
            Action::RenewAtStore { leader, call, version } => {
                let expect = Expect::value(leader.name()).with_mod_revision(version);
                let outcome = self
                    .store
                    .compare_and_swap(LOCK_KEY, leader.name(), &expect, LeaseChoice::Ttl(TTL_MS))
                    .expect("the race's writes are within the store's limits");
                let renewed = match outcome {
                    CasOutcome::Swapped { kv } => {
                        let open = self.open_hold.expect("a renewal that matched finds its own lease");
                        self.story.holds[open].writes.push(LockWrite { at_ms: now, version: kv.mod_revision });
                        self.story.events.push(StoryEvent::Renewed { at_ms: now, leader, version: kv.mod_revision });
                        self.at(now + TTL_MS, Action::StoreTick);
                        Some(kv.mod_revision)
                    }
                    CasOutcome::Mismatch { .. } => None,
                };
                self.applied(call, now, renewed.is_some());
                self.at(now + LATENCY_MS, Action::RenewAnswered { leader, call, version: renewed });
            }
            Action::RenewAnswered { leader, call, version } => {
                self.story.calls[call].answered_ms = Some(now);
                match version {
                    Some(version) => {
                        let sent_ms = self.story.calls[call].sent_ms;
                        let state = &mut self.leaders[leader.index()];
                        state.holding = Some(version);
                        state.lock_time_ms = sent_ms;
                        self.check(leader, now);
                    }
                    None => self.step_down(leader, now, StepDownReason::RenewalRefused),
                }
            }
            Action::Send(leader) => {
                let state = &mut self.leaders[leader.index()];
                let (Some(version), Some(tenure)) = (state.holding, state.tenure) else { return };
                state.sent += 1;
                let number = state.sent;
                let delay = self.delay_for(leader, number);
                let delay_ms = delay.filter(|delay| delay.hop == Hop::ToWorker).map_or(0, |delay| delay.ms);
                let write_delay_ms = delay.filter(|delay| delay.hop == Hop::Write).map_or(0, |delay| delay.ms);
                let index = self.story.requests.len();
                self.story.requests.push(Request {
                    id: format!("{}{number}", leader.name()),
                    leader,
                    version,
                    sent_ms: now,
                    delay_ms,
                    arrived_ms: None,
                    read_ms: None,
                    read_holder: None,
                    write_sent_ms: None,
                    write_delay_ms,
                    decided_ms: None,
                    outcome: None,
                    holder_then: None,
                    highest_then: None,
                    after: None,
                });
                self.tenures.push(tenure);
                self.story.events.push(StoryEvent::Sent { at_ms: now, request: index });
                self.at(now + LATENCY_MS + delay_ms, Action::ArriveAtWorker(index));
                self.at(now + WORK_GAP_MS, Action::Cycle(leader));
            }
            Action::ArriveAtWorker(index) => {
                self.story.requests[index].arrived_ms = Some(now);
                match self.story.request.worker {
                    WorkerMode::Trusts | WorkerMode::Highest => self.send_write(index, now),
                    WorkerMode::Asks => {
                        let call = self.call(Caller::Worker, CallKind::Read, Some(index), now);
                        self.at(now + LATENCY_MS, Action::ReadAtStore { request: index, call });
                    }
                    WorkerMode::Atomic => {
                        let call = self.call(Caller::Worker, CallKind::Txn, Some(index), now);
                        let write_delay_ms = self.story.requests[index].write_delay_ms;
                        self.story.requests[index].write_sent_ms = Some(now);
                        self.at(now + LATENCY_MS + write_delay_ms, Action::TxnAtStore { request: index, call });
                    }
                }
            }
            Action::ReadAtStore { request, call } => {
                let holder = self.lock_holder();
                self.story.requests[request].read_holder = holder;
                self.story.requests[request].read_ms = Some(now);
                self.story.events.push(StoryEvent::Read { at_ms: now, request });
                self.applied(call, now, true);
                self.at(now + LATENCY_MS, Action::ReadAnswered { request, call });
            }
            Action::ReadAnswered { request, call } => {
                self.story.calls[call].answered_ms = Some(now);
                let entry = &self.story.requests[request];
                let matches = entry
                    .read_holder
                    .is_some_and(|holder| holder.leader == entry.leader && holder.version == entry.version);
                if matches {
                    self.send_write(request, now);
                } else {
                    let holder = entry.read_holder;
                    self.decide(request, now, Outcome::Rejected, holder, None);
                }
            }
            Action::TxnAtStore { request, call } => {
                let (owner, version, id) = {
                    let entry = &self.story.requests[request];
                    (entry.leader.name(), entry.version, entry.id.clone())
                };
                let txn = Txn {
                    compares: vec![Compare::value_is(LOCK_KEY, owner), Compare::mod_revision_is(LOCK_KEY, version)],
                    success: vec![TxnOp::put(DATA_KEY, id, LeaseChoice::None)],
                    failure: vec![],
                };
                let holder = self.lock_holder();
                let response = self.store.txn(&txn).expect("the race's transactions are within the store's limits");
                self.applied(call, now, response.succeeded);
                self.story.calls[call].answered_ms = (now + LATENCY_MS <= UNTIL_MS).then_some(now + LATENCY_MS);
                if response.succeeded {
                    self.apply(request, now);
                } else {
                    self.decide(request, now, Outcome::RefusedByStore, holder, None);
                }
            }
            Action::WriteAtData(request) => {
                if self.story.request.worker == WorkerMode::Highest {
                    let token = self.story.requests[request].version;
                    if let Some(highest) = self.highest_token.filter(|highest| token < *highest) {
                        self.decide(request, now, Outcome::RefusedByData, None, Some(highest));
                        return;
                    }
                    self.highest_token = Some(token);
                }
                self.apply(request, now);
            }
            Action::StoreTick => {}
        }
    }

    fn applied(&mut self, call: usize, now: u64, ok: bool) {
        self.story.calls[call].applied_ms = Some(now);
        self.story.calls[call].ok = Some(ok);
    }

    /// The lock's holder now, as the store says.
    fn lock_holder(&self) -> Option<Holder> {
        self.store
            .get(LOCK_KEY)
            .and_then(|kv| Leader::named(&kv.value).map(|leader| Holder { leader, version: kv.mod_revision }))
    }

    /// The visitor's delay, if it is for this request of A's.
    fn delay_for(&self, leader: Leader, number: u32) -> Option<Delay> {
        self.story.request.delay.filter(|delay| leader == Leader::A && delay.request == number)
    }

    /// The worker writes the data (not the atomic worker: its write is its transaction).
    fn send_write(&mut self, request: usize, now: u64) {
        let entry = &mut self.story.requests[request];
        entry.write_sent_ms = Some(now);
        let arrive_ms = now + LATENCY_MS + entry.write_delay_ms;
        self.at(arrive_ms, Action::WriteAtData(request));
    }

    /// The leader's local check before a request: within 0.75 × TTL of its
    /// last acquire or renew (counted from the send), else it steps down.
    fn check(&mut self, leader: Leader, now: u64) {
        let state = &self.leaders[leader.index()];
        if now >= state.lock_time_ms + TTL_MS * 3 / 4 {
            self.step_down(leader, now, StepDownReason::WindowPassed);
            return;
        }
        if state.sent >= REQUESTS_PER_LEADER {
            // Nothing left to send: it only keeps its lease.
            let renew_at = state.lock_time_ms + TTL_MS / 2;
            self.at(renew_at.max(now), Action::Cycle(leader));
            return;
        }
        self.story.checks.push(LockCheck { leader, at_ms: now });
        let number = state.sent + 1;
        let pause_ms = self
            .story
            .request
            .pause
            .filter(|pause| leader == Leader::A && pause.before == number)
            .map_or(0, |pause| pause.ms);
        if pause_ms > 0 {
            let to_ms = now + pause_ms;
            self.story.pauses.push(Span { leader, from_ms: now, to_ms: (to_ms <= UNTIL_MS).then_some(to_ms) });
            self.story.events.push(StoryEvent::Paused { at_ms: now, leader, ms: pause_ms });
            if to_ms <= UNTIL_MS {
                self.story.events.push(StoryEvent::Resumed { at_ms: to_ms, leader });
            }
        }
        self.at(now + pause_ms + PREPARE_MS, Action::Send(leader));
    }

    fn step_down(&mut self, leader: Leader, now: u64, reason: StepDownReason) {
        let state = &mut self.leaders[leader.index()];
        state.done = true;
        state.holding = None;
        if let Some(span) = state.leading_span.take() {
            self.story.leading[span].to_ms = Some(now);
        }
        self.story.events.push(StoryEvent::SteppedDown { at_ms: now, leader, reason });
    }

    /// The request's write landed: applied, late or a double apply.
    fn apply(&mut self, request: usize, now: u64) {
        let tenure = self.tenures[request];
        let newer_applied = self.story.requests.iter().enumerate().find(|(other, entry)| {
            self.tenures[*other] > tenure
                && matches!(entry.outcome, Some(Outcome::Applied | Outcome::Late | Outcome::Double))
                && entry.decided_ms.is_some_and(|decided| decided <= now)
        });
        let newer_began = self.story.holds.iter().skip(tenure + 1).any(|hold| hold.from_ms <= now);
        let (outcome, after) = match newer_applied {
            Some((_, entry)) => (Outcome::Double, Some(entry.id.clone())),
            None if newer_began => (Outcome::Late, None),
            None => (Outcome::Applied, None),
        };
        let holder = self.lock_holder();
        self.decide(request, now, outcome, holder, None);
        self.story.requests[request].after = after;
    }

    fn decide(&mut self, request: usize, now: u64, outcome: Outcome, holder: Option<Holder>, highest: Option<u64>) {
        let entry = &mut self.story.requests[request];
        debug_assert!(entry.outcome.is_none(), "{} is decided once", entry.id);
        entry.decided_ms = Some(now);
        entry.outcome = Some(outcome);
        entry.holder_then = holder;
        entry.highest_then = highest;
        self.story.events.push(StoryEvent::Decided { at_ms: now, request });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKERS: [WorkerMode; 4] = [WorkerMode::Trusts, WorkerMode::Asks, WorkerMode::Atomic, WorkerMode::Highest];

    fn outcomes(story: &RaceStory) -> Vec<(String, Option<Outcome>)> {
        story.requests.iter().map(|request| (request.id.clone(), request.outcome)).collect()
    }

    fn outcome_of(story: &RaceStory, id: &str) -> Option<Outcome> {
        story
            .requests
            .iter()
            .find(|request| request.id == id)
            .unwrap_or_else(|| panic!("no request {id}: {:?}", outcomes(story)))
            .outcome
    }

    fn preset(id: &str) -> RaceRequest {
        presets().into_iter().find(|preset| preset.id == id).unwrap().request
    }

    fn with_worker(request: &RaceRequest, worker: WorkerMode) -> RaceRequest {
        RaceRequest { worker, ..request.clone() }
    }

    fn is_applied(outcome: Option<Outcome>) -> bool {
        matches!(outcome, Some(Outcome::Applied | Outcome::Late | Outcome::Double))
    }

    #[test]
    fn calm_a_leads_throughout_and_every_worker_applies_its_requests() {
        for worker in WORKERS {
            let story = run(&RaceRequest { worker, pause: None, delay: None }).unwrap();
            assert_eq!(story.holds.len(), 1, "{worker:?}");
            assert_eq!(story.holds[0].leader, Leader::A);
            assert!(story.holds[0].to_ms.is_none());
            assert!(story.holds[0].writes.len() >= 4, "renews every ttl/2 or so: {:?}", story.holds[0].writes);
            assert_eq!(
                outcomes(&story),
                (1..=REQUESTS_PER_LEADER)
                    .map(|number| (format!("A{number}"), Some(Outcome::Applied)))
                    .collect::<Vec<_>>(),
                "{worker:?}"
            );
            assert!(story.events.contains(&StoryEvent::Waiting {
                at_ms: B_START_MS + 2 * LATENCY_MS,
                leader: Leader::B,
                holder: Leader::A
            }));
        }
    }

    #[test]
    fn the_first_request_goes_out_after_one_round_trip_a_check_and_the_preparation() {
        let story = run(&RaceRequest { worker: WorkerMode::Trusts, pause: None, delay: None }).unwrap();
        let first = &story.requests[0];
        assert_eq!(first.sent_ms, 2 * LATENCY_MS + PREPARE_MS);
        assert_eq!(first.arrived_ms, Some(first.sent_ms + LATENCY_MS));
        assert_eq!(first.decided_ms, Some(first.sent_ms + 2 * LATENCY_MS), "the worker's write takes one more hop");
        assert_eq!(story.checks[0], LockCheck { leader: Leader::A, at_ms: 2 * LATENCY_MS });
    }

    #[test]
    fn a_paused_old_leader_only_the_trusting_worker_applies_its_stale_write_after_bs() {
        let request = preset("paused-leader");
        for worker in WORKERS {
            let story = run(&with_worker(&request, worker)).unwrap();
            assert_eq!(
                story.holds.iter().map(|hold| hold.leader).collect::<Vec<_>>(),
                vec![Leader::A, Leader::B],
                "{worker:?}"
            );
            let a3 = story.requests.iter().find(|request| request.id == "A3").unwrap();
            assert!(a3.sent_ms > story.holds[1].from_ms, "A3 leaves after B took over");
            let expected = match worker {
                WorkerMode::Trusts => Outcome::Double,
                WorkerMode::Asks => Outcome::Rejected,
                WorkerMode::Atomic => Outcome::RefusedByStore,
                WorkerMode::Highest => Outcome::RefusedByData,
            };
            assert_eq!(a3.outcome, Some(expected), "{worker:?}: {:?}", outcomes(&story));
            assert!(is_applied(outcome_of(&story, "B1")), "{worker:?}");
            assert!(story
                .events
                .iter()
                .any(|event| matches!(event, StoryEvent::SteppedDown { leader: Leader::A, .. })));
        }
    }

    #[test]
    fn a_delayed_request_from_an_earlier_tenure_only_the_trusting_worker_applies_it() {
        let request = preset("delayed-request");
        for worker in WORKERS {
            let story = run(&with_worker(&request, worker)).unwrap();
            let a2 = story.requests.iter().find(|request| request.id == "A2").unwrap();
            assert_eq!(a2.delay_ms, 3_000);
            let b_from = story.holds.iter().find(|hold| hold.leader == Leader::B).expect("B takes over").from_ms;
            assert!(a2.arrived_ms.unwrap() > b_from, "A2 arrives during B's tenure");
            let expected = match worker {
                WorkerMode::Trusts => Outcome::Double,
                WorkerMode::Asks => Outcome::Rejected,
                WorkerMode::Atomic => Outcome::RefusedByStore,
                WorkerMode::Highest => Outcome::RefusedByData,
            };
            assert_eq!(a2.outcome, Some(expected), "{worker:?}: {:?}", outcomes(&story));
            assert!(story
                .requests
                .iter()
                .all(|request| request.id != "A3" || request.arrived_ms.is_none_or(|at| at > a2.arrived_ms.unwrap())));
        }
    }

    #[test]
    fn the_read_then_write_gap_defeats_asking_the_store_but_not_the_atomic_or_highest_token_worker() {
        let request = preset("read-write-gap");
        let asks = run(&with_worker(&request, WorkerMode::Asks)).unwrap();
        let a3 = asks.requests.iter().find(|request| request.id == "A3").unwrap();
        let b_from = asks.holds[1].from_ms;
        assert_eq!(
            a3.read_holder,
            Some(Holder { leader: Leader::A, version: a3.version }),
            "the read finds A still holding"
        );
        assert!(a3.read_ms.unwrap() < asks.holds[0].to_ms.unwrap(), "read while A's lease still holds");
        assert!(a3.decided_ms.unwrap() > b_from, "written after B took over");
        assert_eq!(a3.outcome, Some(Outcome::Double), "{:?}", outcomes(&asks));
        assert_eq!(a3.after.as_deref(), Some("B1"));

        let atomic = run(&with_worker(&request, WorkerMode::Atomic)).unwrap();
        assert_eq!(outcome_of(&atomic, "A3"), Some(Outcome::RefusedByStore));
        let highest = run(&with_worker(&request, WorkerMode::Highest)).unwrap();
        assert_eq!(outcome_of(&highest, "A3"), Some(Outcome::RefusedByData));
        for story in [&atomic, &highest] {
            assert!(
                story.requests.iter().all(|request| request.outcome != Some(Outcome::Double)),
                "{:?}",
                outcomes(story)
            );
            assert!(is_applied(outcome_of(story, "B1")));
        }
    }

    #[test]
    fn the_atomic_worker_is_never_late_and_the_highest_token_worker_never_doubles() {
        for before in 1..=REQUESTS_PER_LEADER {
            for pause_ms in (0..=PAUSE_MS_MAX).step_by(250) {
                for (request, hop, delay_ms) in
                    [(before, Hop::ToWorker, 0), (before, Hop::Write, 700), (1, Hop::ToWorker, 3_000)]
                {
                    let choices = |worker| RaceRequest {
                        worker,
                        pause: Some(Pause { before, ms: pause_ms }),
                        delay: Some(Delay { request, hop, ms: delay_ms }),
                    };
                    let atomic = run(&choices(WorkerMode::Atomic)).unwrap();
                    assert!(
                        atomic
                            .requests
                            .iter()
                            .all(|request| !matches!(request.outcome, Some(Outcome::Late | Outcome::Double))),
                        "{:?}: {:?}",
                        choices(WorkerMode::Atomic),
                        outcomes(&atomic)
                    );
                    let highest = run(&choices(WorkerMode::Highest)).unwrap();
                    assert!(
                        highest.requests.iter().all(|request| request.outcome != Some(Outcome::Double)),
                        "{:?}: {:?}",
                        choices(WorkerMode::Highest),
                        outcomes(&highest)
                    );
                }
            }
        }
    }

    #[test]
    fn the_lease_never_has_two_holders_and_tokens_grow() {
        for pause_ms in (0..=PAUSE_MS_MAX).step_by(100) {
            let story = run(&RaceRequest {
                worker: WorkerMode::Asks,
                pause: Some(Pause { before: 2, ms: pause_ms }),
                delay: None,
            })
            .unwrap();
            let versions: Vec<u64> =
                story.holds.iter().flat_map(|hold| hold.writes.iter().map(|write| write.version)).collect();
            assert!(versions.windows(2).all(|pair| pair[0] < pair[1]), "{versions:?}");
            // A pause longer than what is left of the lease hands it to B.
            if pause_ms >= TTL_MS {
                assert_eq!(story.holds.last().unwrap().leader, Leader::B, "pause {pause_ms}");
            }
        }
    }

    #[test]
    fn the_past_does_not_depend_on_later_choices() {
        let early =
            run(&RaceRequest { worker: WorkerMode::Asks, pause: Some(Pause { before: 4, ms: 2_000 }), delay: None })
                .unwrap();
        let calm = run(&RaceRequest { worker: WorkerMode::Asks, pause: None, delay: None }).unwrap();
        let pause_at = early.pauses[0].from_ms;
        let before = |story: &RaceStory| {
            story.events.iter().filter(|event| event.at_ms() < pause_at).cloned().collect::<Vec<_>>()
        };
        assert_eq!(before(&early), before(&calm));
    }

    #[test]
    fn bad_requests_say_what_to_do() {
        let error =
            run(&RaceRequest { worker: WorkerMode::Asks, pause: Some(Pause { before: 9, ms: 100 }), delay: None })
                .unwrap_err();
        assert!(error.contains("requests 1 to 5"), "{error}");
        let error = run(&RaceRequest {
            worker: WorkerMode::Asks,
            pause: None,
            delay: Some(Delay { request: 1, hop: Hop::Write, ms: DELAY_MS_MAX + 1 }),
        })
        .unwrap_err();
        assert!(error.contains("shorter"), "{error}");
    }
}
