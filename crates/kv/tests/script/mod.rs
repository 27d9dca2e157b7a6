//! A tiny command language for store tests, so a rule is a few lines of
//! script and a snapshot of the transcript (refresh with `UPDATE_EXPECT=1`).
//!
//! One command per line; `#` starts a comment line; the word `""` is the
//! empty string. Commands:
//!
//! - `limits NAME=N …`: replace the default [`Limits`] (first line only).
//! - `put K V [ttl=MS] [lease=ID]`: unconditional write.
//! - `cas K V absent|=OLD [rev=N] [ttl=MS] [lease=ID]`: compare-and-swap.
//! - `del K [rev=N]`: delete, guarded by the mod revision if `rev` is given.
//! - `txn [when CMP …] then OP ; OP … [else OP ; OP …]`: a transaction.
//!   A compare is `KEY.FIELD OP OPERAND` in one word, with FIELD one of
//!   `value version create mod lease` and OP one of `= != > <` (`lease` 0
//!   means "no lease"). An op is `put K V [ttl=MS] [lease=ID]`, `del K` or
//!   `get K`.
//! - `get K`, `ttl K`, `rev`, `state`: reads.
//! - `grant MS`, `keepalive ID`, `revoke ID`, `lease ID`: leases.
//! - `advance MS` (relative) and `at MS` (absolute): the clock.
//! - `watch K AFTER`, `cancel ID`, `fired`: watches.
//!
//! Two rules are checked on every line, so no case has to repeat them: the
//! store's invariants hold, and a line that is only a read, a refused request
//! (an error) or a compare that did not match leaves the whole store as it was.

use kv::{
    CasOutcome, Compare, CompareOp, CompareTarget, Event, Expect, KeyValue, LeaseChoice, LeaseId, Limits, OpResponse,
    Store, Txn, TxnOp, WatchId, WatchStart,
};

/// Runs `script` on a fresh store and returns the transcript.
pub fn run(script: &str) -> String {
    let mut store = Store::new();
    let mut out = String::new();
    let lines = script.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#'));
    for (index, line) in lines.enumerate() {
        let words: Vec<&str> = line.split_whitespace().map(|word| if word == "\"\"" { "" } else { word }).collect();
        if words[0] == "limits" {
            assert_eq!(index, 0, "`limits` must be the first command");
            store = Store::with_limits(limits(&words[1..]));
            out.push_str(&format!("{line}\n"));
            continue;
        }
        let before = format!("{store:?}");
        let (result, unchanged) = step(&mut store, &words);
        store.check_invariants();
        if unchanged {
            assert_eq!(before, format!("{store:?}"), "`{line}` -> {result} must leave the store unchanged");
        }
        out.push_str(&format!("{line:<28} -> {result}\n"));
    }
    out
}

fn limits(words: &[&str]) -> Limits {
    let mut limits = Limits::default();
    for word in words {
        let (name, value) = word.split_once('=').expect("limits takes NAME=N");
        let value: u64 = value.parse().expect("a limit is a whole number");
        let as_count = value as usize;
        match name {
            "keys_max" => limits.keys_max = as_count,
            "key_bytes_max" => limits.key_bytes_max = as_count,
            "value_bytes_max" => limits.value_bytes_max = as_count,
            "ttl_ms_min" => limits.ttl_ms_min = value,
            "ttl_ms_max" => limits.ttl_ms_max = value,
            "leases_max" => limits.leases_max = as_count,
            "watchers_max" => limits.watchers_max = as_count,
            "txn_ops_max" => limits.txn_ops_max = as_count,
            "history_events_max" => limits.history_events_max = as_count,
            "time_ms_max" => limits.time_ms_max = value,
            other => panic!("unknown limit {other}"),
        }
    }
    limits
}

fn show(kv: &KeyValue) -> String {
    let lease = kv.lease.map(|id| format!(" lease={}", id.0)).unwrap_or_default();
    format!("{}={:?} create={} mod={} ver={}{lease}", kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)
}

fn show_event(event: &Event) -> String {
    format!("{:?} {} @{} t={}", event.kind, event.key, event.revision, event.at_ms)
}

fn option(words: &[&str], name: &str) -> Option<u64> {
    words.iter().find_map(|word| word.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
}

fn lease_choice(words: &[&str]) -> LeaseChoice {
    match (option(words, "ttl"), option(words, "lease")) {
        (Some(ttl), _) => LeaseChoice::Ttl(ttl),
        (None, Some(id)) => LeaseChoice::Lease(LeaseId(id)),
        (None, None) => LeaseChoice::None,
    }
}

fn number(word: &str) -> u64 {
    word.parse().unwrap_or_else(|_| panic!("{word:?} is not a whole number"))
}

/// Runs one command: its transcript text, and whether it must have left the
/// store unchanged.
fn step(store: &mut Store, words: &[&str]) -> (String, bool) {
    let mut unchanged = false;
    let result: Result<String, kv::StoreError> = (|| {
        Ok(match words[0] {
            "put" => show(&store.put(words[1], words[2], lease_choice(&words[3..]))?),
            "cas" => {
                let expect = match words[3] {
                    "absent" => Expect::absent(),
                    old => Expect::value(old.strip_prefix('=').expect("cas expects absent or =OLD")),
                };
                let expect = match option(&words[4..], "rev") {
                    Some(rev) => expect.with_mod_revision(rev),
                    None => expect,
                };
                match store.compare_and_swap(words[1], words[2], &expect, lease_choice(&words[4..]))? {
                    CasOutcome::Swapped { kv } => format!("swapped {}", show(&kv)),
                    CasOutcome::Mismatch { current } => {
                        unchanged = true;
                        format!("mismatch, current {}", current.as_ref().map_or("absent".into(), show))
                    }
                }
            }
            "del" => match store.delete_if(words[1], option(&words[2..], "rev"))? {
                Some(prev) => format!("deleted {} (rev now {})", show(&prev), store.revision()),
                None => {
                    unchanged = true;
                    format!("nothing deleted (rev {})", store.revision())
                }
            },
            "txn" => txn(store, &words[1..])?,
            "get" => {
                unchanged = true;
                store.get(words[1]).map_or("absent".into(), show)
            }
            "ttl" => {
                unchanged = true;
                store.key_ttl_remaining_ms(words[1]).map_or("no lease".into(), |ms| format!("{ms} ms left"))
            }
            "rev" => {
                unchanged = true;
                format!("{}", store.revision())
            }
            "state" => {
                unchanged = true;
                let keys: Vec<String> = store.keys().map(show).collect();
                let leases: Vec<String> = store
                    .leases()
                    .iter()
                    .map(|lease| format!("{}:{}ms{:?}", lease.id.0, lease.remaining_ms, lease.keys))
                    .collect();
                format!(
                    "rev={} t={} keys=[{}] leases=[{}] watchers={}",
                    store.revision(),
                    store.now_ms(),
                    keys.join(", "),
                    leases.join(", "),
                    store.waiting_watchers()
                )
            }
            "grant" => format!("lease {}", store.grant_lease(number(words[1]))?.0),
            "keepalive" => format!("ttl {}", store.keep_alive(LeaseId(number(words[1])))?),
            "revoke" => format!("rev {}", store.revoke_lease(LeaseId(number(words[1])))?),
            "lease" => {
                unchanged = true;
                match store.lease_info(LeaseId(number(words[1]))) {
                    Some(info) => format!(
                        "granted {} ms, {} ms left, keys {:?}{}",
                        info.granted_ttl_ms,
                        info.remaining_ms,
                        info.keys,
                        if info.key_scoped { ", key-scoped" } else { "" }
                    ),
                    None => "no such lease".into(),
                }
            }
            "advance" | "at" => {
                let events = if words[0] == "advance" {
                    store.advance_by(number(words[1]))?
                } else {
                    store.advance_to(number(words[1]))?
                };
                let listed: Vec<String> = events.iter().map(show_event).collect();
                format!("t={} rev={} [{}]", store.now_ms(), store.revision(), listed.join(", "))
            }
            "watch" => match store.watch(words[1], number(words[2]))? {
                WatchStart::Ready { event } => {
                    unchanged = true;
                    format!("ready {}", show_event(&event))
                }
                WatchStart::Waiting { watch } => format!("waiting #{}", watch.0),
            },
            "cancel" => {
                let cancelled = store.cancel_watch(WatchId(number(words[1])));
                unchanged = !cancelled;
                if cancelled {
                    "cancelled".into()
                } else {
                    "not waiting".into()
                }
            }
            "fired" => {
                let fired: Vec<String> =
                    store.take_fired().iter().map(|(id, event)| format!("#{} {}", id.0, show_event(event))).collect();
                format!("[{}]", fired.join(", "))
            }
            other => panic!("unknown command {other}"),
        })
    })();
    match result {
        Ok(text) => (text, unchanged),
        Err(error) => (format!("error: {error}"), true),
    }
}

/// `when CMP … then OP ; … else OP ; …` (the `when` and `else` parts are optional).
fn txn(store: &mut Store, words: &[&str]) -> Result<String, kv::StoreError> {
    let then_at = words.iter().position(|word| *word == "then").expect("txn needs `then`");
    let else_at = words.iter().position(|word| *word == "else").unwrap_or(words.len());
    let compares = match words.first() {
        Some(&"when") => words[1..then_at].iter().map(|word| compare(word)).collect(),
        _ => {
            assert_eq!(then_at, 0, "txn starts with `when` or `then`");
            Vec::new()
        }
    };
    let ops = |part: &[&str]| -> Vec<TxnOp> {
        part.split(|word| *word == ";").filter(|op| !op.is_empty()).map(txn_op).collect()
    };
    let success = ops(&words[then_at + 1..else_at]);
    let failure = if else_at < words.len() { ops(&words[else_at + 1..]) } else { Vec::new() };
    let response = store.txn(&Txn { compares, success, failure })?;
    let responses: Vec<String> = response
        .responses
        .iter()
        .map(|op| match op {
            OpResponse::Get { kv } => format!("get {}", kv.as_ref().map_or("absent".into(), show)),
            OpResponse::Put { prev } => {
                format!("put (prev {})", prev.as_ref().map_or("absent".into(), |kv| format!("ver={}", kv.version)))
            }
            OpResponse::Delete { deleted, .. } => format!("del {deleted}"),
        })
        .collect();
    let branch = if response.succeeded { "then" } else { "else" };
    Ok(format!("{branch} rev={} [{}]", response.revision, responses.join(", ")))
}

fn compare(word: &str) -> Compare {
    let at = word.find(['=', '!', '>', '<']).unwrap_or_else(|| panic!("compare {word:?} has no operator"));
    let (subject, rest) = word.split_at(at);
    let (op, operand) = if let Some(operand) = rest.strip_prefix("!=") {
        (CompareOp::NotEqual, operand)
    } else if let Some(operand) = rest.strip_prefix('=') {
        (CompareOp::Equal, operand)
    } else if let Some(operand) = rest.strip_prefix('>') {
        (CompareOp::Greater, operand)
    } else {
        (CompareOp::Less, &rest[1..])
    };
    let (key, field) = subject.rsplit_once('.').unwrap_or_else(|| panic!("compare {word:?} needs KEY.FIELD"));
    let target = match field {
        "value" => CompareTarget::Value(operand.to_string()),
        "version" => CompareTarget::Version(number(operand)),
        "create" => CompareTarget::CreateRevision(number(operand)),
        "mod" => CompareTarget::ModRevision(number(operand)),
        "lease" => CompareTarget::Lease(Some(number(operand)).filter(|id| *id != 0).map(LeaseId)),
        other => panic!("unknown compare field {other}"),
    };
    Compare::new(key, op, target)
}

fn txn_op(words: &[&str]) -> TxnOp {
    match words[0] {
        "put" => TxnOp::put(words[1], words[2], lease_choice(&words[3..])),
        "del" => TxnOp::delete(words[1]),
        "get" => TxnOp::get(words[1]),
        other => panic!("unknown txn op {other}"),
    }
}
