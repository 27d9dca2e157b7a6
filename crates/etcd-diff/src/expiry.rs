//! Lease expiry in real time, on a handful of 2 s leases (etcd's minimum).
//!
//! Four leases are granted on both sides: A holds k0 and k1, B holds k2, C
//! holds nothing, D holds k3 and is kept alive after 1 s; k4 has no lease.
//! kv's virtual clock is moved to the deadlines; etcd is polled until the
//! keys are gone. Then both must agree on which keys are left, on the
//! revision, and on etcd's history: each lease's expiry is one revision that
//! deletes exactly that lease's keys, and an empty lease's expiry is none.
//! The order of two leases with the same deadline is not compared (etcd
//! revokes expired leases concurrently), nor the instant (divergence
//! `expiry-timing`); etcd's lateness is measured and bounded.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kv::{EventKind, Store};

use crate::answer::State;
use crate::etcd::Etcd;
use crate::ops::{key_name, LeaseRef, Op};
use crate::sides::{EtcdSide, KvSide, Side};

/// The TTL of every lease here: etcd's minimum.
const TTL_S: u64 = 2;
/// How late etcd may delete an expired lease's keys. It checks for expired
/// leases every 500 ms; the notes measured 0.06-0.5 s.
pub const LATENESS_MAX: Duration = Duration::from_millis(1000);
const POLL: Duration = Duration::from_millis(10);

/// What the scenario saw.
#[derive(Clone, Debug, Default)]
pub struct ExpiryReport {
    /// How long after its deadline each key disappeared on etcd, in ms
    /// (measured from just before the grant, so an upper bound).
    pub lateness_ms: BTreeMap<String, u64>,
    /// Revision delta → keys deleted at it, as etcd's history shows.
    pub etcd_deletions: Vec<(i64, Vec<String>)>,
    /// The same from kv's expiry events.
    pub kv_deletions: Vec<(i64, Vec<String>)>,
}

fn compare<T: PartialEq + std::fmt::Debug>(what: &str, model: T, etcd: T) -> Result<(), String> {
    if model == etcd {
        Ok(())
    } else {
        Err(format!("{what} differs:\n  kv:   {model:?}\n  etcd: {etcd:?}"))
    }
}

fn names(state: &State) -> Vec<String> {
    state.keys.iter().map(|kv| kv.key.clone()).collect()
}

/// Polls etcd until none of `keys` is left, recording when each vanished.
fn wait_gone(
    etcd: &mut EtcdSide<'_>,
    keys: &[usize],
    deadline: Instant,
    started: Instant,
    lateness_ms: &mut BTreeMap<String, u64>,
    give_up: Instant,
) -> Result<(), String> {
    loop {
        let now = Instant::now();
        let present = names(&etcd.state());
        for key in keys {
            let name = key_name(*key);
            if !present.contains(&name) && !lateness_ms.contains_key(&name) {
                if now + POLL < deadline {
                    return Err(format!(
                        "etcd deleted {name} {} ms after the grant, before its {TTL_S} s TTL ran out",
                        now.duration_since(started).as_millis()
                    ));
                }
                lateness_ms.insert(name, now.saturating_duration_since(deadline).as_millis() as u64);
            }
        }
        if keys.iter().all(|key| lateness_ms.contains_key(&key_name(*key))) {
            return Ok(());
        }
        if now > give_up {
            return Err(format!(
                "etcd still holds {present:?} {} ms after the grant; expected {:?} gone by then",
                now.duration_since(started).as_millis(),
                keys.iter().map(|key| key_name(*key)).collect::<Vec<_>>()
            ));
        }
        std::thread::sleep(POLL);
    }
}

fn apply(etcd: &mut EtcdSide<'_>, kv: &mut KvSide<Store>, op: Op) -> Result<(), String> {
    let (model, real) = (kv.apply(&op), etcd.apply(&op));
    compare(&format!("the answer to `{op}`"), model, real)
}

/// Runs the scenario against `etcd` (which nothing else may write to meanwhile).
pub fn run_expiry(etcd_server: &Etcd) -> Result<ExpiryReport, String> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    let mut etcd = EtcdSide::new(etcd_server, format!("/etcd-diff/expiry-{nanos:x}/"));
    let mut kv = KvSide::new(Store::new());
    let mut report = ExpiryReport::default();
    let granted = Instant::now();
    for _ in 0..4 {
        apply(&mut etcd, &mut kv, Op::Grant { ttl_s: TTL_S })?;
    }
    let (a, b, d) = (LeaseRef::Slot(0), LeaseRef::Slot(1), LeaseRef::Slot(3));
    for (key, lease) in [(0, a), (1, a), (2, b), (3, d), (4, LeaseRef::None)] {
        apply(&mut etcd, &mut kv, Op::Put { key, value: "v".into(), lease })?;
    }
    compare("the state after the writes", kv.state(), etcd.state())?;
    if granted.elapsed() > Duration::from_millis(800) {
        return Err(format!(
            "setting up took {} ms; the machine is too slow for a 2 s lease test",
            granted.elapsed().as_millis()
        ));
    }

    // D is kept alive at 1 s: its deadline moves to 3 s.
    std::thread::sleep(Duration::from_millis(1000).saturating_sub(granted.elapsed()));
    kv.model.advance_to(1000).map_err(|error| error.to_string())?;
    let kept = Instant::now();
    apply(&mut etcd, &mut kv, Op::KeepAlive { slot: 3 })?;

    // A and B run out at 2 s.
    let first_deadline = granted + Duration::from_secs(TTL_S);
    wait_gone(&mut etcd, &[0, 1, 2], first_deadline, granted, &mut report.lateness_ms, first_deadline + LATENESS_MAX)?;
    let mut events = kv.model.advance_to(2000).map_err(|error| error.to_string())?;
    let etcd_between = etcd.state();
    let second_deadline = kept + Duration::from_secs(TTL_S);
    if Instant::now() < second_deadline {
        compare("the keys left after A and B expired (k3 is kept alive)", kv.state(), etcd_between)?;
    }

    // D runs out at 3 s.
    wait_gone(&mut etcd, &[3], second_deadline, granted, &mut report.lateness_ms, second_deadline + LATENESS_MAX)?;
    events.extend(kv.model.advance_to(3000).map_err(|error| error.to_string())?);
    let final_state = etcd.state();
    compare("the state after every lease expired", kv.state(), final_state.clone())?;
    if final_state.revision != 8 {
        return Err(format!(
            "expected 5 writes and 3 expiries (revision base+8), etcd is at base+{}",
            final_state.revision
        ));
    }
    compare("the live leases", kv.leases(), etcd.leases())?;
    // An expired lease is gone for good: keep-alive, revoke and attaching a key fail alike.
    apply(&mut etcd, &mut kv, Op::KeepAlive { slot: 0 })?;
    apply(&mut etcd, &mut kv, Op::Revoke { slot: 2 })?;
    apply(&mut etcd, &mut kv, Op::Put { key: 2, value: "late".into(), lease: LeaseRef::Slot(1) })?;
    compare("the state after using expired leases", kv.state(), etcd.state())?;

    // Which revision deleted which keys: kv's expiry events against etcd's history.
    assert!(events.iter().all(|event| event.kind == EventKind::Expire), "kv reported non-expiry events: {events:?}");
    let mut kv_groups: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for event in &events {
        kv_groups.entry(event.revision as i64 - 1).or_default().push(event.key.clone());
    }
    report.kv_deletions = kv_groups.into_iter().collect();
    let (_, mut before) = etcd.keys_at(Some(etcd.base() + 5));
    for delta in 6..=final_state.revision {
        let (_, now) = etcd.keys_at(Some(etcd.base() + delta));
        let gone: Vec<String> =
            before.iter().filter(|kv| !now.iter().any(|left| left.key == kv.key)).map(|kv| kv.key.clone()).collect();
        report.etcd_deletions.push((delta, gone));
        before = now;
    }
    for deletions in [&mut report.kv_deletions, &mut report.etcd_deletions] {
        for (_, keys) in deletions.iter_mut() {
            keys.sort();
        }
    }
    // Revisions and groups must agree; A and B share a deadline, so their
    // order may differ.
    let revisions = |deletions: &[(i64, Vec<String>)]| deletions.iter().map(|(delta, _)| *delta).collect::<Vec<_>>();
    compare(
        "the revisions that expiry deleted keys at",
        revisions(&report.kv_deletions),
        revisions(&report.etcd_deletions),
    )?;
    let groups = |deletions: &[(i64, Vec<String>)]| {
        let mut groups: Vec<Vec<String>> = deletions.iter().map(|(_, keys)| keys.clone()).collect();
        let last = groups.pop();
        groups.sort();
        (groups, last)
    };
    compare("the keys each expiry deleted", groups(&report.kv_deletions), groups(&report.etcd_deletions))?;
    etcd.cleanup();
    Ok(report)
}
