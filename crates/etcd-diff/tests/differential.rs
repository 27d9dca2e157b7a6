//! kv against a real etcd. Each test starts its own etcd (revisions are
//! server-wide, so tests must not share one) and stops it when done.
//!
//! Knobs: `ETCD_DIFF_SEQUENCES` (default 1000), `ETCD_DIFF_SEED` (default: new
//! each run, printed), `ETCD_DIFF_WORKERS` (default 2), `ETCD_BIN`.

use etcd_diff::answer::Answer;
use etcd_diff::diff::{run_random, Config, Differ, Failure};
use etcd_diff::etcd::Etcd;
use etcd_diff::expiry::{run_expiry, LATENESS_MAX};
use etcd_diff::faults::{BumpOnFailedTxn, VersionAsModRevision};
use etcd_diff::model::Model;
use etcd_diff::ops::{BranchOp, Op};
use etcd_diff::sides::{EtcdSide, KvSide, Side};
use etcd_diff::DIVERGENCES;

fn start_etcd() -> Etcd {
    Etcd::start().unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn random_sequences_match_etcd() {
    let config = Config::from_env(1000);
    let skipped: Vec<&str> = DIVERGENCES.iter().map(|divergence| divergence.name).collect();
    eprintln!(
        "etcd-diff: {} sequences from seed {:#x} on {} etcd servers; skipped divergences: {}",
        config.sequences,
        config.seed,
        config.workers,
        skipped.join(", ")
    );
    match run_random(&config, &kv::Store::new) {
        Ok(summary) => eprintln!("etcd-diff: {summary}"),
        Err(failure) => panic!("{failure}"),
    }
}

/// A wrong model must be caught within `sequences` sequences and shrunk to
/// at most `shrunk_max` operations.
fn catches<M: Model>(name: &str, make_model: &(dyn Fn() -> M + Sync), shrunk_max: usize) -> Box<Failure> {
    let config = Config { sequences: 200, seed: 0x5eed_0007, workers: 1, len_max: 16 };
    let failure = match run_random(&config, make_model) {
        Ok(summary) => panic!("the wrong model {name} passed {} sequences against etcd", summary.sequences),
        Err(failure) => failure,
    };
    eprintln!("etcd-diff: the wrong model {name} was caught, as it must be:\n{failure}");
    assert!(
        failure.shrunk.len() <= shrunk_max,
        "{name}: the shrunk sequence has {} operations, more than {shrunk_max}",
        failure.shrunk.len()
    );
    assert!(!failure.outcome.matches(), "{name}: the shrunk sequence must still differ on replay");
    failure
}

#[test]
fn a_model_reporting_version_as_mod_revision_is_caught_and_shrunk() {
    let failure = catches("VersionAsModRevision", &VersionAsModRevision::default, 1);
    // One write is enough: etcd's mod revision is the store-wide revision.
    assert!(failure.shrunk[0].to_string().contains("put") || failure.shrunk[0].to_string().contains("cas"));
}

#[test]
fn a_model_bumping_the_revision_on_a_failed_txn_is_caught_and_shrunk() {
    let failure = catches("BumpOnFailedTxn", &BumpOnFailedTxn::default, 2);
    let step = failure.outcome.steps.last().expect("a step differs");
    let revision = |answer: &Answer| match answer {
        Answer::Txn { revision, succeeded: false, .. }
        | Answer::Cas { revision, swapped: false, .. }
        | Answer::DeleteIf { revision, deleted: None } => Some(*revision),
        _ => None,
    };
    let (model, etcd) = (revision(&step.model), revision(&step.etcd));
    assert!(
        matches!((model, etcd), (Some(model), Some(etcd)) if model == etcd + 1),
        "the difference must be a failed compare bumping the revision, got kv {} / etcd {}",
        step.model,
        step.etcd
    );
}

#[test]
fn lease_expiry_matches_etcd_in_real_time() {
    let etcd = start_etcd();
    let report = run_expiry(&etcd).unwrap_or_else(|error| panic!("lease expiry differs from etcd: {error}"));
    eprintln!(
        "etcd-diff expiry: etcd deleted the keys this late after their deadline (ms, upper bound; at most {} allowed): {:?}",
        LATENESS_MAX.as_millis(),
        report.lateness_ms
    );
    eprintln!(
        "etcd-diff expiry: deletions by revision: kv {:?}; etcd {:?}",
        report.kv_deletions, report.etcd_deletions
    );
    // Three leases held keys: three revisions, one per lease, whatever the timing.
    assert_eq!(report.kv_deletions.len(), 3);
}

/// Each skipped divergence is described in ARCHITECTURE.md ("Store semantics and deliberate differences from etcd") under its name.
#[test]
fn every_skipped_divergence_is_documented() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ARCHITECTURE.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("cannot read {path}: {error}"));
    for divergence in DIVERGENCES {
        assert!(text.contains(&format!("`{}`", divergence.name)), "{path} does not describe `{}`", divergence.name);
    }
}

/// The divergences that etcd shows on the wire are still there: if etcd
/// changes, these fail and ARCHITECTURE.md needs a look.
#[test]
fn documented_divergences_still_hold() {
    let etcd = start_etcd();

    // `min-ttl`: etcd raises a 1 s lease to 2 s; kv takes any whole ms.
    let mut side = EtcdSide::new(&etcd, "/etcd-diff/probe-min-ttl/".into());
    let mut model = KvSide::new(kv::Store::new());
    let grant = Op::Grant { ttl_s: 1 };
    assert_eq!(side.apply(&grant), Answer::Grant { ttl_ms: 2000 }, "etcd's minimum TTL changed");
    assert_eq!(model.apply(&grant), Answer::Grant { ttl_ms: 1000 });
    let mut store = kv::Store::new();
    let lease = store.grant_lease(1).expect("kv takes a 1 ms lease");
    assert_eq!(store.lease_info(lease).map(|info| info.granted_ttl_ms), Some(1));

    // `lease-ids`: kv counts 1, 2, …; etcd's are large.
    side.apply(&Op::Grant { ttl_s: 10 });
    model.apply(&Op::Grant { ttl_s: 10 });
    let etcd_ids = [side.slot_id(0).unwrap(), side.slot_id(1).unwrap()];
    let kv_ids = [model.slot_id(0).unwrap().0, model.slot_id(1).unwrap().0];
    assert_eq!(kv_ids, [1, 2]);
    assert!(etcd_ids.iter().all(|id| *id > 1 << 32), "etcd lease ids look small now: {etcd_ids:?}");
    side.cleanup();
}

/// Once a divergence (`txn-delete-twice`), now aligned: a branch may delete a
/// key twice; the second delete finds nothing, and the transaction succeeds
/// on both sides with the same answers.
#[test]
fn a_branch_may_delete_a_key_twice_as_in_etcd() {
    let etcd = start_etcd();
    let differ = Differ::new(&etcd, "delete-twice");
    let ops = [
        Op::Put { key: 0, value: "a".into(), lease: etcd_diff::ops::LeaseRef::None },
        Op::Txn { compares: vec![], success: vec![BranchOp::Delete(0), BranchOp::Delete(0)], failure: vec![] },
        Op::Txn {
            compares: vec![],
            success: vec![BranchOp::Get(1)],
            failure: vec![BranchOp::Delete(1), BranchOp::Delete(1)],
        },
    ];
    let outcome = differ.run(&ops, kv::Store::new());
    assert_eq!(outcome.first_difference, None, "{outcome:?}");
    let step = &outcome.steps[1];
    assert!(
        matches!(&step.model, Answer::Txn { succeeded: true, responses, .. } if responses.len() == 2),
        "kv's answer to a double delete: {}",
        step.model
    );
}
