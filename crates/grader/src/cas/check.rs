//! The cas exercise's rules: the submission's answers against `kv`'s.
//!
//! What is compared exactly: whether a write or delete succeeded, whether a
//! key is there, its value and its `keyVersion`. What is compared by its
//! promised properties, because the contract leaves the numbers free:
//! versions. `kv` numbers from 2 (its revision starts at 1) and spends
//! numbers on deletes and expiries; a learner may number from 1, from 100,
//! or skip numbers. So the checker pairs each of `kv`'s versions with the
//! learner's version for the same write, and requires:
//!
//! - a successful write's version is greater than every version handed out
//!   before, so it never repeats (`version-unique`, `version-increases`);
//! - a record read later carries the version its last write returned
//!   (`read-version`);
//! - a `version` passed to an operation is one the learner's own store
//!   returned earlier (the runner resolves `version_of` from its answers),
//!   so "same write" means the same thing on both sides.
//!
//! With those, a correct store answers every operation exactly as `kv` does
//! up to the numbering, whatever numbering it picks.
//!
//! When an answer differs, the checker names the cause a learner can act on,
//! using what it knows about each key (its last write, TTL, how it went
//! away). The invariants, first match wins:
//!
//! - `ttl-expiry`: an expired key showed up, or a key vanished before its deadline;
//! - `ttl-cleared`: a key rewritten without `ttlMs` expired on its old TTL;
//! - `expect-absent`: `currentValue: null` wrote over a live key, or refused to create;
//! - `missing-key-value`: a value compare succeeded on a missing key;
//! - `value-compare`: the value compare went the wrong way;
//! - `version-compare`: the `version` option was not honoured;
//! - `versioned-delete`: `delete(key, { version })` ignored the version;
//! - `delete-answer`: `delete` answered wrongly otherwise;
//! - `failed-cas-changes-nothing`: a failed compareAndSwap changed the key's
//!   versions, or its `keyVersion` where the run shows the store counting
//!   writes right whenever no compareAndSwap on the key has failed (see
//!   [`KeyVersionCounting`]);
//! - `key-version`: `keyVersion` is not the count of writes since (re)creation;
//! - `read-state`: a read shows the wrong value or presence, for another reason;
//! - `read-version`, `version-unique`, `version-increases`: see above;
//! - `answer-shape`: an answer of the wrong kind, or `{ ok: true }` without a version;
//! - `no-errors`: the store threw, or the run stopped before every operation was answered.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::Rc;

use sim::{Call, Record, Reply};

use super::answers::{concrete_call, expected_answers};
use super::workload::{CasOp, CasWorkload};

pub const TTL_EXPIRY: &str = "ttl-expiry";
pub const TTL_CLEARED: &str = "ttl-cleared";
pub const EXPECT_ABSENT: &str = "expect-absent";
pub const MISSING_KEY_VALUE: &str = "missing-key-value";
pub const VALUE_COMPARE: &str = "value-compare";
pub const VERSION_COMPARE: &str = "version-compare";
pub const VERSIONED_DELETE: &str = "versioned-delete";
pub const DELETE_ANSWER: &str = "delete-answer";
pub const FAILED_CAS_CHANGES_NOTHING: &str = "failed-cas-changes-nothing";
pub const KEY_VERSION: &str = "key-version";
pub const READ_STATE: &str = "read-state";
pub const READ_VERSION: &str = "read-version";
pub const VERSION_UNIQUE: &str = "version-unique";
pub const VERSION_INCREASES: &str = "version-increases";
pub const ANSWER_SHAPE: &str = "answer-shape";
pub const NO_ERRORS: &str = "no-errors";

/// The first answer that breaks the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The operation's index in the workload.
    pub op: usize,
    pub invariant: &'static str,
    /// One line: the call, when, what it returned, what was expected and why.
    pub message: String,
    pub at_ms: u64,
}

/// Compares a submission's answers (`answers[i]` for `ops[i]`; shorter if
/// the run stopped, with `failure` saying why) against `kv`'s.
pub fn check_answers(workload: &CasWorkload, answers: &[Reply], failure: Option<&str>) -> Option<Finding> {
    let expected = expected_answers(workload).expect("workloads are checked when generated or decoded");
    let finding = first_finding(workload, &expected, answers, failure, None)?;
    if finding.invariant != KEY_VERSION {
        return Some(finding);
    }
    // A wrong keyVersion: whether a failed compareAndSwap explains it takes the whole run, read only now.
    let counting = KeyVersionCounting::of(workload, answers);
    first_finding(workload, &expected, answers, failure, Some(counting))
}

fn first_finding(
    workload: &CasWorkload,
    expected: &[Reply],
    answers: &[Reply],
    failure: Option<&str>,
    counting: Option<KeyVersionCounting>,
) -> Option<Finding> {
    let mut checker = Checker { counting, ..Checker::default() };
    let mut now_ms = 0;
    // The learner's successful writes by the version it returned: to tell
    // when an answer shows another key's record.
    let mut written: HashMap<u64, (String, String, u64)> = HashMap::new();
    for (index, op) in workload.ops.iter().enumerate() {
        if let CasOp::Advance { ms } = op {
            now_ms += ms;
            continue;
        }
        // The learner's call: versions resolved from the learner's answers.
        let call = concrete_call(&workload.ops, index, answers).ok().flatten();
        let described = call.as_ref().map_or_else(|| "the next call".to_string(), Call::describe);
        let Some(actual) = answers.get(index) else {
            let message = match failure {
                Some(failure) => {
                    format!("{described} at t={now_ms} ms failed: {failure}; the store must answer every call")
                }
                None => {
                    format!("the run stopped before {described} at t={now_ms} ms; the store must answer every call")
                }
            };
            return Some(Finding { op: index, invariant: NO_ERRORS, message, at_ms: now_ms });
        };
        let Some(call) = call else {
            // Earlier answers matched kv's, so they carry the versions asked for.
            unreachable!("operation {index}'s version resolves once earlier answers matched");
        };
        if let Some(mut finding) = checker.step(index, now_ms, op, &call, &expected[index], actual) {
            finding.message.push_str(&key_hint(op.key().unwrap_or_default(), actual, &written));
            return Some(finding);
        }
        if let (Some(key), Reply::Cas { ok: true, version: Some(version), .. }) = (op.key(), actual) {
            written.insert(*version, (key.to_string(), call.describe(), now_ms));
        }
    }
    None
}

/// Names every plain JavaScript object already has (`Object.prototype`'s).
const PROTOTYPE_NAMES: [&str; 12] = [
    "__proto__",
    "constructor",
    "toString",
    "toLocaleString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// What the trace shows about the key, when it explains a wrong answer: a
/// key named like a property every object has, or an answer that shows the
/// record another key was written with (keys folded, trimmed or cut).
fn key_hint(key: &str, actual: &Reply, written: &HashMap<u64, (String, String, u64)>) -> String {
    let shown = match actual {
        Reply::Get { record: Some(record) } | Reply::Cas { current: Some(record), .. } => Some(record),
        _ => None,
    };
    if let Some((other_key, call, at_ms)) = shown.and_then(|record| written.get(&record.version)) {
        if other_key != key {
            return format!(
                "; the record in that answer is the one {call} wrote at t={at_ms} ms, to the key {other_key:?}: every key is its own, compared exactly as given (no case folding, trimming, normalizing or cutting)"
            );
        }
    }
    if PROTOTYPE_NAMES.contains(&key) {
        return format!(
            " ({key:?} is a property every plain JavaScript object already has: keep the records in a Map, or in an object made with Object.create(null))"
        );
    }
    String::new()
}

/// A successful write (or a failed compareAndSwap), for telling the story.
#[derive(Clone, Debug)]
struct Write {
    at_ms: u64,
    /// The call as the learner's store received it (described only for a message).
    call: Call,
    ttl_ms: Option<u64>,
}

impl Write {
    fn deadline_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl_ms| self.at_ms + ttl_ms)
    }

    fn by(&self) -> String {
        format!("written at t={} ms by {}", self.at_ms, self.call.describe())
    }
}

/// A key that is there, as the truth has it, in the learner's numbering.
#[derive(Clone, Debug)]
struct Live {
    record: Record,
    /// `kv`'s version of the same write.
    revision: u64,
    last: Rc<Write>,
    /// The latest write of this life of the key that set a TTL, when a
    /// later write without `ttlMs` cleared it.
    cleared_ttl: Option<Rc<Write>>,
    /// A compareAndSwap on the key that failed since its last write.
    failed_since: Option<Write>,
    /// The first compareAndSwap on the key that failed in this life of it.
    failed_in_life: Option<Write>,
}

/// Why a key is not there.
#[derive(Clone, Debug)]
enum Gone {
    Never,
    Deleted {
        at_ms: u64,
        call: Call,
    },
    /// `acknowledged`: since the deadline, the learner's store has answered
    /// for the key as absent, so it does know that the key expired.
    Expired {
        last: Rc<Write>,
        value: String,
        acknowledged: bool,
    },
}

impl Gone {
    fn why(&self) -> String {
        match self {
            Gone::Never => "it was never written".into(),
            Gone::Deleted { at_ms, call } => {
                format!("it was deleted at t={at_ms} ms by {}", call.describe())
            }
            Gone::Expired { last, .. } => {
                format!("it expired at t={} ms ({})", last.deadline_ms().unwrap_or_default(), last.by())
            }
        }
    }
}

#[derive(Clone, Debug)]
struct KeyFacts {
    live: Option<Live>,
    gone: Gone,
}

impl Default for KeyFacts {
    fn default() -> Self {
        KeyFacts { live: None, gone: Gone::Never }
    }
}

/// The operation being checked. Messages are only formatted for a
/// failure: grading spends its time on answers that match.
struct At<'a> {
    index: usize,
    at_ms: u64,
    call: &'a Call,
    /// "`call` at t=… ms returned …", the start of every message.
    said: Said<'a>,
}

struct Said<'a> {
    call: &'a Call,
    at_ms: u64,
    actual: &'a Reply,
}

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at t={} ms returned {}", self.call.describe(), self.at_ms, answer_text(self.actual))
    }
}

/// "it must return …": `kv`'s answer in the learner's numbering.
struct Must<'a> {
    version_of_revision: &'a HashMap<u64, u64>,
    expected: &'a Reply,
}

impl Must<'_> {
    /// A `kv` record in the learner's numbering.
    fn learner_record(&self, record: &Record) -> Record {
        let version =
            *self.version_of_revision.get(&record.version).expect("every kv write was answered by the learner too");
        Record { version, ..record.clone() }
    }
}

impl fmt::Display for Must<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self.expected {
            Reply::Get { record } => record_text(record.as_ref().map(|record| self.learner_record(record)).as_ref()),
            Reply::Cas { ok: true, .. } => {
                "{ ok: true, version: <a new version, greater than every one before> }".into()
            }
            Reply::Cas { current, .. } => {
                format!(
                    "{{ ok: false, current: {} }}",
                    record_text(current.as_ref().map(|record| self.learner_record(record)).as_ref())
                )
            }
            other => other.describe(),
        };
        write!(f, "it must return {text}")
    }
}

impl At<'_> {
    fn finding(&self, invariant: &'static str, message: String) -> Option<Finding> {
        Some(Finding { op: self.index, invariant, message, at_ms: self.at_ms })
    }
}

fn record_text(record: Option<&Record>) -> String {
    Reply::Get { record: record.cloned() }.describe()
}

fn answer_text(answer: &Reply) -> String {
    match answer {
        Reply::Cas { ok: true, version: None, .. } => "{ ok: true } without a version".into(),
        Reply::Slept => "nothing".into(),
        other => other.describe(),
    }
}

/// How the store counts `keyVersion` where no compareAndSwap on the key
/// has failed in its current life, over the whole run: a wrong
/// `keyVersion` seen only where one did fail is that failure's doing.
#[derive(Clone, Debug, Default)]
struct KeyVersionCounting {
    /// An answer that showed a right `keyVersion` in such a life: the call, when, and the keyVersion.
    right: Option<(Call, u64, u64)>,
    /// Whether some answer showed a wrong one in such a life.
    wrong: bool,
}

impl KeyVersionCounting {
    fn of(workload: &CasWorkload, answers: &[Reply]) -> KeyVersionCounting {
        let mut counting = KeyVersionCounting::default();
        let mut oracle = super::answers::Oracle::new();
        // Keys with a failed compareAndSwap in their current life, in kv's truth.
        let mut failed: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (index, op) in workload.ops.iter().enumerate() {
            let Some(actual) = answers.get(index) else { break };
            let key = op.key().map(str::to_string);
            if let Some(key) = &key {
                if oracle.store().get(key).is_none() {
                    failed.remove(key);
                }
            }
            let Ok(expected) = oracle.apply(&workload.ops).cloned() else { break };
            let Some(key) = key else { continue };
            let shown = match (&expected, actual) {
                (Reply::Get { record: Some(want) }, Reply::Get { record: Some(got) }) => Some((want, got)),
                (
                    Reply::Cas { ok: false, current: Some(want), .. },
                    Reply::Cas { ok: false, current: Some(got), .. },
                ) => {
                    failed.insert(key.clone());
                    Some((want, got))
                }
                _ => None,
            };
            match (&expected, shown) {
                (_, Some((want, got))) if !failed.contains(&key) && want.value == got.value => {
                    if want.key_version == got.key_version {
                        if counting.right.is_none() {
                            let call = concrete_call(&workload.ops, index, answers).ok().flatten();
                            counting.right = call.map(|call| (call, oracle.now_ms(), want.key_version));
                        }
                    } else {
                        counting.wrong = true;
                    }
                }
                (Reply::Delete { ok: true }, _) => {
                    failed.remove(&key);
                }
                _ => {}
            }
        }
        counting
    }

    /// The right showing, when the store never showed a wrong one outside a failed compareAndSwap's life.
    fn right_elsewhere(&self) -> Option<&(Call, u64, u64)> {
        self.right.as_ref().filter(|_| !self.wrong)
    }
}

#[derive(Default)]
struct Checker {
    /// How the store counts keyVersion over the whole run, once a wrong one was seen.
    counting: Option<KeyVersionCounting>,
    keys: BTreeMap<String, KeyFacts>,
    /// The learner's version of every successful write, and the write.
    writes_by_version: HashMap<u64, Rc<Write>>,
    /// `kv`'s version of a write to the learner's version of it.
    version_of_revision: HashMap<u64, u64>,
    /// The greatest version handed out so far.
    newest: Option<(u64, Rc<Write>)>,
}

impl Checker {
    fn facts(&mut self, key: &str) -> &mut KeyFacts {
        // Looked up first so that the common case allocates no key.
        if !self.keys.contains_key(key) {
            self.keys.insert(key.to_string(), KeyFacts::default());
        }
        self.keys.get_mut(key).expect("just inserted")
    }

    fn live(&self, key: &str) -> Option<&Live> {
        self.keys.get(key).and_then(|facts| facts.live.as_ref())
    }

    fn gone(&self, key: &str) -> Gone {
        self.keys.get(key).map_or(Gone::Never, |facts| facts.gone.clone())
    }

    /// A key whose deadline has come is gone, exactly as in `kv`.
    fn expire(&mut self, key: &str, now_ms: u64) {
        let facts = self.facts(key);
        let due = facts
            .live
            .as_ref()
            .and_then(|live| live.last.deadline_ms())
            .is_some_and(|deadline_ms| deadline_ms <= now_ms);
        if due {
            let live = facts.live.take().expect("due keys are live");
            facts.gone = Gone::Expired { last: live.last, value: live.record.value, acknowledged: false };
        }
    }

    /// The model behind the messages must agree with `kv` on every key it
    /// reads; if not, the grader itself is wrong.
    fn assert_agrees_with_kv(&self, key: &str, kv_record: Option<&Record>) {
        let live = self.live(key);
        assert_eq!(kv_record.is_some(), live.is_some(), "kv and the cas checker disagree on whether {key:?} is there");
        if let (Some(kv_record), Some(live)) = (kv_record, live) {
            assert_eq!(
                (&kv_record.value, kv_record.key_version, kv_record.version),
                (&live.record.value, live.record.key_version, live.revision)
            );
        }
    }

    fn step(
        &mut self,
        index: usize,
        now_ms: u64,
        op: &CasOp,
        call: &Call,
        expected: &Reply,
        actual: &Reply,
    ) -> Option<Finding> {
        let key = op.key().expect("advances are not checked");
        self.expire(key, now_ms);
        let at = At { index, at_ms: now_ms, call, said: Said { call, at_ms: now_ms, actual } };
        let must = Must { version_of_revision: &self.version_of_revision, expected };
        let finding = match (call, expected, actual) {
            (Call::Get { .. }, Reply::Get { record: expected }, Reply::Get { record: actual }) => {
                self.assert_agrees_with_kv(key, expected.as_ref());
                self.compare_record(&at, key, actual.as_ref(), false, &must)
            }
            (
                Call::Cas { current_value, version, .. },
                Reply::Cas { ok: expected_ok, current: expected_current, .. },
                Reply::Cas { ok, version: new_version, current },
            ) => {
                if !expected_ok {
                    self.assert_agrees_with_kv(key, expected_current.as_ref());
                }
                self.check_cas(
                    &at,
                    key,
                    current_value.as_deref(),
                    *version,
                    *expected_ok,
                    (*ok, *new_version, current.as_ref()),
                    &must,
                )
            }
            (Call::Delete { version, .. }, Reply::Delete { ok: expected_ok }, Reply::Delete { ok }) => {
                self.check_delete(&at, key, *version, *expected_ok, *ok, &must)
            }
            _ => {
                let method = match call {
                    Call::Get { .. } => "get",
                    Call::Cas { .. } => "compareAndSwap",
                    _ => "delete",
                };
                at.finding(ANSWER_SHAPE, format!("{}, which is not an answer that {method} gives; {must}", at.said))
            }
        };
        if finding.is_some() {
            return finding;
        }
        self.learn(&at, key, call, expected, actual);
        None
    }

    /// The learner shows the key there (`true`) or not, against the truth:
    /// a TTL explains the difference, if anything does.
    fn presence_cause(&self, at: &At, key: &str, learner_sees_key: bool, must: &Must) -> Option<Finding> {
        match (learner_sees_key, self.live(key)) {
            (true, None) => match self.gone(key) {
                Gone::Expired { last, .. } => at.finding(
                    TTL_EXPIRY,
                    format!(
                        "{} but the key expired at t={} ms ({}); from its deadline on it reads as absent, for every method: {must}",
                        at.said,
                        last.deadline_ms().unwrap_or_default(),
                        last.by()
                    ),
                ),
                _ => None,
            },
            (false, Some(live)) => {
                if let (None, Some(cleared)) = (live.last.ttl_ms, &live.cleared_ttl) {
                    let deadline_ms = cleared.deadline_ms().unwrap_or_default();
                    if deadline_ms <= at.at_ms {
                        return at.finding(
                            TTL_CLEARED,
                            format!(
                                "{} but {} at t={} ms rewrote the key without ttlMs, which clears the TTL it had (ttlMs {} from t={} ms, due at t={deadline_ms} ms); the key never expires now: {must}",
                                at.said,
                                live.last.call.describe(),
                                live.last.at_ms,
                                cleared.ttl_ms.unwrap_or_default(),
                                cleared.at_ms
                            ),
                        );
                    }
                }
                live.last.deadline_ms().and_then(|deadline_ms| {
                    at.finding(
                        TTL_EXPIRY,
                        format!(
                            "{} but the key was {}, so it lives until t={deadline_ms} ms; until then it is there: {must}",
                            at.said,
                            live.last.by()
                        ),
                    )
                })
            }
            _ => None,
        }
    }

    /// A record the learner showed (from `get`, or as a failed write's
    /// `current`) against the key's true state.
    fn compare_record(
        &self,
        at: &At,
        key: &str,
        actual: Option<&Record>,
        in_failed_cas: bool,
        must: &Must,
    ) -> Option<Finding> {
        let live = self.live(key);
        match (live, actual) {
            (None, None) => None,
            (None, Some(_)) => self.presence_cause(at, key, true, must).or_else(|| {
                at.finding(READ_STATE, format!("{} but the key is absent: {}; {must}", at.said, self.gone(key).why()))
            }),
            (Some(live), None) => self.presence_cause(at, key, false, must).or_else(|| {
                at.finding(
                    READ_STATE,
                    format!(
                        "{} but the key holds {} ({}); {must}",
                        at.said,
                        record_text(Some(&live.record)),
                        live.last.by()
                    ),
                )
            }),
            (Some(live), Some(actual)) => {
                let want = &live.record;
                if actual.value != want.value {
                    return at.finding(
                        READ_STATE,
                        format!("{} but the key holds {:?} ({}); {must}", at.said, want.value, live.last.by()),
                    );
                }
                if actual.version == want.version && actual.key_version == want.key_version {
                    return None;
                }
                // Only a version that moved away from the last write's can be
                // the work of a failed compareAndSwap; a wrong keyVersion alone
                // was wrong before it.
                let failed = if in_failed_cas {
                    Some(Write { at_ms: at.at_ms, call: at.call.clone(), ttl_ms: None })
                } else {
                    live.failed_since.clone()
                };
                if let (Some(failed), true) = (failed, actual.version != want.version) {
                    let which = if in_failed_cas {
                        "this compareAndSwap".to_string()
                    } else {
                        format!("{} at t={} ms", failed.call.describe(), failed.at_ms)
                    };
                    return at.finding(
                        FAILED_CAS_CHANGES_NOTHING,
                        format!(
                            "{} but {which} failed, and a failed compareAndSwap changes nothing: the key is still {} ({}); {must}",
                            at.said,
                            record_text(Some(want)),
                            live.last.by()
                        ),
                    );
                }
                let failed_in_life = if in_failed_cas {
                    live.failed_in_life.clone().or(Some(Write { at_ms: at.at_ms, call: at.call.clone(), ttl_ms: None }))
                } else {
                    live.failed_in_life.clone()
                };
                let right_elsewhere = self.counting.as_ref().and_then(KeyVersionCounting::right_elsewhere);
                if let (Some(failed), Some((right_call, right_ms, right_key_version)), true) =
                    (failed_in_life, right_elsewhere, actual.key_version != want.key_version)
                {
                    return at.finding(
                        FAILED_CAS_CHANGES_NOTHING,
                        format!(
                            "{} but keyVersion counts only the writes since the key was created, and this life of the key has seen a failed compareAndSwap, {} at t={} ms, which must change nothing, keyVersion included: the key is still {} ({}). Your store counts keyVersion right where no compareAndSwap failed ({} at t={right_ms} ms showed keyVersion {right_key_version}): count a write only once it succeeds; {must}",
                            at.said,
                            failed.call.describe(),
                            failed.at_ms,
                            record_text(Some(want)),
                            live.last.by(),
                            right_call.describe()
                        ),
                    );
                }
                if actual.key_version != want.key_version {
                    let story = if want.key_version == 1 {
                        format!(
                            "this life of the key began with {} at t={} ms",
                            live.last.call.describe(),
                            live.last.at_ms
                        )
                    } else {
                        format!(
                            "this life of the key has had {} writes, the last {} at t={} ms",
                            want.key_version,
                            live.last.call.describe(),
                            live.last.at_ms
                        )
                    };
                    // The run cannot tell a miscount from a failed compareAndSwap's doing: name the failure too.
                    let failed = match (in_failed_cas, &live.failed_in_life) {
                        (true, _) => " (and this compareAndSwap failed: a failed one must not count)".to_string(),
                        (false, Some(failed)) => format!(
                            " (and {} at t={} ms failed in this life of the key: a failed compareAndSwap must not count)",
                            failed.call.describe(),
                            failed.at_ms
                        ),
                        (false, None) => String::new(),
                    };
                    return at.finding(
                        KEY_VERSION,
                        format!(
                            "{} but keyVersion counts the writes since the key was last created (1 on create, +1 per write, back to 1 after a delete or expiry): {story}, so it is {}{failed}; {must}",
                            at.said,
                            want.key_version
                        ),
                    );
                }
                at.finding(
                    READ_VERSION,
                    format!(
                        "{} but the key's last write, {} at t={} ms, returned version {}; a record carries the version of its last write: {must}",
                        at.said,
                        live.last.call.describe(),
                        live.last.at_ms,
                        want.version
                    ),
                )
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_cas(
        &self,
        at: &At,
        key: &str,
        current_value: Option<&str>,
        version: Option<u64>,
        expected_ok: bool,
        (ok, new_version, current): (bool, Option<u64>, Option<&Record>),
        must: &Must,
    ) -> Option<Finding> {
        let live = self.live(key);
        match (expected_ok, ok) {
            (true, true) => match new_version {
                None => at.finding(
                    ANSWER_SHAPE,
                    format!(
                        "{}; a successful compareAndSwap returns {{ ok: true, version }} with the write's new version",
                        at.said
                    ),
                ),
                Some(new_version) => self.check_new_version(at, new_version),
            },
            (false, false) => self.compare_record(at, key, current, true, must),
            (false, true) => {
                // It wrote when it must not. With currentValue null it took
                // the key for absent; with a value, for there.
                // An expired key explains a value compare that held only if
                // the store still has the old value and has not yet shown
                // that it knows the key is gone.
                let expiry_explains = match (self.gone(key), current_value) {
                    (Gone::Expired { value, acknowledged, .. }, Some(current_value)) => {
                        value == current_value && !acknowledged
                    }
                    _ => true,
                };
                if expiry_explains {
                    if let Some(finding) = self.presence_cause(at, key, current_value.is_some(), must) {
                        return Some(finding);
                    }
                }
                let why = self.gone(key).why();
                match (current_value, live) {
                    (None, Some(live)) => at.finding(
                        EXPECT_ABSENT,
                        format!(
                            "{} but the key holds {} ({}); with currentValue null the write happens only if the key is absent: {must}",
                            at.said,
                            record_text(Some(&live.record)),
                            live.last.by()
                        ),
                    ),
                    (None, None) => at.finding(
                        VERSION_COMPARE,
                        format!("{} but the key is absent ({why}), and a version compare holds only on a key that exists: {must}", at.said),
                    ),
                    (Some(_), None) => at.finding(
                        MISSING_KEY_VALUE,
                        format!("{} but the key is absent ({why}); a compare on a value always fails on a missing key: {must}", at.said),
                    ),
                    (Some(current_value), Some(live)) if live.record.value != current_value => at.finding(
                        VALUE_COMPARE,
                        format!("{} but the key holds {:?}, not {current_value:?} ({}): {must}", at.said, live.record.value, live.last.by()),
                    ),
                    (Some(_), Some(live)) => at.finding(
                        VERSION_COMPARE,
                        format!(
                            "{} but the key's version is {}, not {} ({}); with a version given, the write happens only if the key has exactly that version: {must}",
                            at.said,
                            live.record.version,
                            version.map_or_else(|| "the one given".into(), |version| version.to_string()),
                            live.last.by()
                        ),
                    ),
                }
            }
            (true, false) => {
                // It refused a write it must make. If its `current` shows
                // another state than the truth, that is the cause.
                if let Some(finding) = self.presence_cause(at, key, current.is_some(), must) {
                    return Some(finding);
                }
                if let Some(finding) = self.compare_record(at, key, current, false, must) {
                    return Some(finding);
                }
                match (current_value, live) {
                    (None, _) => at.finding(
                        EXPECT_ABSENT,
                        format!("{} but the key is absent ({}); with currentValue null the write creates it: {must}", at.said, self.gone(key).why()),
                    ),
                    (Some(_), Some(live)) if version.is_some() => at.finding(
                        VERSION_COMPARE,
                        format!(
                            "{} but the key holds {:?} with version {}, exactly as given; the compare holds, so the write happens: {must}",
                            at.said, live.record.value, live.record.version
                        ),
                    ),
                    (Some(current_value), _) => at.finding(
                        VALUE_COMPARE,
                        format!("{} but the key holds {current_value:?}, the value given; the compare holds, so the write happens: {must}", at.said),
                    ),
                }
            }
        }
    }

    fn check_delete(
        &self,
        at: &At,
        key: &str,
        version: Option<u64>,
        expected_ok: bool,
        ok: bool,
        must: &Must,
    ) -> Option<Finding> {
        if expected_ok == ok {
            return None;
        }
        let live = self.live(key);
        if let Some(finding) = self.presence_cause(at, key, ok, must) {
            return Some(finding);
        }
        match (ok, live) {
            (true, None) => at.finding(DELETE_ANSWER, format!("{} but the key is absent ({}), so there is nothing to delete: {must}", at.said, self.gone(key).why())),
            (true, Some(live)) => at.finding(
                VERSIONED_DELETE,
                format!(
                    "{} but the key's version is {}, not {} ({}); a delete with another version must change nothing: {must}",
                    at.said,
                    live.record.version,
                    version.map_or_else(|| "the one given".into(), |version| version.to_string()),
                    live.last.by()
                ),
            ),
            (false, Some(live)) if version.is_some() => at.finding(
                VERSIONED_DELETE,
                format!("{} but the key has version {}, exactly as given ({}); the delete must remove it: {must}", at.said, live.record.version, live.last.by()),
            ),
            (false, live) => at.finding(
                DELETE_ANSWER,
                format!("{} but the key holds {}; the delete must remove it: {must}", at.said, record_text(live.map(|live| &live.record))),
            ),
        }
    }

    fn check_new_version(&self, at: &At, version: u64) -> Option<Finding> {
        if let Some(earlier) = self.writes_by_version.get(&version) {
            return at.finding(
                VERSION_UNIQUE,
                format!(
                    "{} but version {version} was already handed out at t={} ms, to {}; every successful write needs a new version, greater than every one before, for any key, even after a key expires or is deleted and is created again",
                    at.said,
                    earlier.at_ms,
                    earlier.call.describe()
                ),
            );
        }
        if let Some((newest, write)) = &self.newest {
            if version < *newest {
                return at.finding(
                    VERSION_INCREASES,
                    format!(
                        "{} but version {newest} was handed out before it (at t={} ms, to {}); every successful write needs a version greater than every one before",
                        at.said,
                        write.at_ms,
                        write.call.describe()
                    ),
                );
            }
        }
        None
    }

    /// Takes in an operation whose answer matched: the truth moves on.
    fn learn(&mut self, at: &At, key: &str, call: &Call, expected: &Reply, actual: &Reply) {
        // Any matching answer for an expired key, but a versioned delete's
        // `false` (which may mean "wrong version"), shows the store knows it is gone.
        if let Gone::Expired { acknowledged, .. } = &mut self.facts(key).gone {
            if !matches!(call, Call::Delete { version: Some(_), .. }) {
                *acknowledged = true;
            }
        }
        match (call, expected, actual) {
            (
                Call::Cas { next_value, ttl_ms, .. },
                Reply::Cas { ok: true, version: Some(revision), .. },
                Reply::Cas { version: Some(version), .. },
            ) => {
                let write = Rc::new(Write { at_ms: at.at_ms, call: at.call.clone(), ttl_ms: *ttl_ms });
                self.version_of_revision.insert(*revision, *version);
                self.writes_by_version.insert(*version, write.clone());
                self.newest = Some((*version, write.clone()));
                let facts = self.facts(key);
                let previous = facts.live.take();
                let cleared_ttl = match (&write.ttl_ms, &previous) {
                    (Some(_), _) | (None, None) => None,
                    (None, Some(previous)) if previous.last.ttl_ms.is_some() => Some(previous.last.clone()),
                    (None, Some(previous)) => previous.cleared_ttl.clone(),
                };
                let key_version = previous.as_ref().map_or(1, |previous| previous.record.key_version + 1);
                let failed_in_life = previous.and_then(|previous| previous.failed_in_life);
                facts.live = Some(Live {
                    record: Record { value: next_value.clone(), version: *version, key_version },
                    revision: *revision,
                    last: write,
                    cleared_ttl,
                    failed_since: None,
                    failed_in_life,
                });
            }
            (Call::Cas { .. }, Reply::Cas { ok: false, .. }, _) => {
                if let Some(live) = self.facts(key).live.as_mut() {
                    let failed = Write { at_ms: at.at_ms, call: at.call.clone(), ttl_ms: None };
                    live.failed_in_life.get_or_insert_with(|| failed.clone());
                    live.failed_since = Some(failed);
                }
            }
            (Call::Delete { .. }, Reply::Delete { ok: true }, _) => {
                let facts = self.facts(key);
                assert!(facts.live.is_some(), "kv deleted {key:?}, which the cas checker has as absent");
                facts.live = None;
                facts.gone = Gone::Deleted { at_ms: at.at_ms, call: at.call.clone() };
            }
            _ => {}
        }
    }
}
