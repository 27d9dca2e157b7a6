//! The prefix read that the election queue is built on: every key under a
//! prefix, oldest incarnation first, and nothing else.

use kv::{LeaseChoice, Store, StoreError};

fn keys_and_creates(store: &Store, prefix: &str) -> Vec<(String, u64)> {
    store.range_prefix(prefix).expect("a valid prefix").into_iter().map(|kv| (kv.key, kv.create_revision)).collect()
}

#[test]
fn keys_under_a_prefix_come_in_create_order_not_key_order() {
    let mut store = Store::new();
    store.put("election/p3", "p3", LeaseChoice::None).unwrap(); // rev 2
    store.put("election/p1", "p1", LeaseChoice::None).unwrap(); // rev 3
    store.put("elections", "not under the prefix", LeaseChoice::None).unwrap();
    store.put("election0", "not under it either", LeaseChoice::None).unwrap();
    store.put("electio", "nor this", LeaseChoice::None).unwrap();
    store.put("election/p2", "p2", LeaseChoice::None).unwrap(); // rev 7
    let revision = store.revision();
    assert_eq!(
        keys_and_creates(&store, "election/"),
        vec![("election/p3".into(), 2), ("election/p1".into(), 3), ("election/p2".into(), 7)]
    );
    assert_eq!(store.revision(), revision, "a read does not bump the revision");
}

#[test]
fn a_rewrite_keeps_the_place_in_the_queue_and_a_re_create_goes_last() {
    let mut store = Store::new();
    store.put("q/a", "a", LeaseChoice::None).unwrap(); // rev 2
    store.put("q/b", "b", LeaseChoice::None).unwrap(); // rev 3
    store.put("q/a", "a again", LeaseChoice::None).unwrap(); // rev 4: same incarnation
    assert_eq!(keys_and_creates(&store, "q/"), vec![("q/a".into(), 2), ("q/b".into(), 3)]);
    store.delete("q/a").unwrap(); // rev 5
    store.put("q/a", "a", LeaseChoice::None).unwrap(); // rev 6: a new incarnation
    assert_eq!(keys_and_creates(&store, "q/"), vec![("q/b".into(), 3), ("q/a".into(), 6)]);
}

#[test]
fn expired_keys_leave_the_prefix() {
    let mut store = Store::new();
    store.put("q/a", "a", LeaseChoice::Ttl(100)).unwrap();
    store.put("q/b", "b", LeaseChoice::Ttl(300)).unwrap();
    store.advance_to(100).unwrap();
    assert_eq!(keys_and_creates(&store, "q/"), vec![("q/b".into(), 3)]);
    store.advance_to(300).unwrap();
    assert_eq!(keys_and_creates(&store, "q/"), vec![]);
}

#[test]
fn an_empty_or_oversized_prefix_is_refused() {
    let store = Store::new();
    assert_eq!(store.range_prefix(""), Err(StoreError::EmptyKey));
    let long = "k".repeat(store.limits().key_bytes_max + 1);
    assert!(matches!(store.range_prefix(&long), Err(StoreError::KeyTooLong { .. })));
}

#[test]
fn a_prefix_holding_more_than_the_limit_is_refused_by_name() {
    let mut store = Store::with_limits(kv::Limits { range_bytes_max: 10, ..kv::Limits::default() });
    store.put("q/a", "1234", LeaseChoice::None).unwrap(); // 3 + 4 bytes
    assert_eq!(keys_and_creates(&store, "q/").len(), 1);
    store.put("q/b", "1", LeaseChoice::None).unwrap(); // 4 more: 11 in all
    let refused = store.range_prefix("q/").unwrap_err();
    assert_eq!(refused, StoreError::RangeTooLarge { prefix: "q/".into(), bytes_max: 10 });
    assert!(refused.to_string().contains("more than 10 bytes"), "{refused}");
    assert_eq!(keys_and_creates(&store, "q/a").len(), 1, "a narrower prefix still reads");
}
