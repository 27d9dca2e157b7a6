//! One case per store rule: a short script and a snapshot of what the store
//! answered. Refresh the snapshots with `UPDATE_EXPECT=1 cargo test -p kv
//! --test rules`, then read every changed line: a snapshot that records a
//! bug is a bug. The script language is documented in `script/mod.rs`; it
//! also checks, on every line, that the invariants hold and that reads,
//! errors and failed compares change nothing.

mod script;

use expect_test::{expect, Expect};

fn check(script: &str, expected: Expect) {
    expected.assert_eq(&script::run(script));
}

#[test]
fn revision_starts_at_one_and_each_changing_write_adds_exactly_one() {
    check(
        r#"
        rev
        get a
        put a 1
        rev
        # Writing the same value again is still a write.
        put a 1
        rev
        del a
        rev
        # Deleting a missing key changes nothing, so the revision stays.
        del a
        rev
        "#,
        expect![[r#"
            rev                          -> 1
            get a                        -> absent
            put a 1                      -> a="1" create=2 mod=2 ver=1
            rev                          -> 2
            put a 1                      -> a="1" create=2 mod=3 ver=2
            rev                          -> 3
            del a                        -> deleted a="1" create=2 mod=3 ver=2 (rev now 4)
            rev                          -> 4
            del a                        -> nothing deleted (rev 4)
            rev                          -> 4
        "#]],
    );
}

#[test]
fn reads_and_failed_compare_and_swap_do_not_bump_the_revision() {
    check(
        r#"
        put a 1
        get a
        get missing
        state
        cas a 2 =0
        cas a 2 absent
        # A failed CAS that would have written with a TTL does not even use up a lease id.
        cas a 2 =0 ttl=100
        cas b 2 =0
        txn when a.value=0 then put a 2 else get a
        rev
        cas a 2 =1
        rev
        "#,
        expect![[r#"
            put a 1                      -> a="1" create=2 mod=2 ver=1
            get a                        -> a="1" create=2 mod=2 ver=1
            get missing                  -> absent
            state                        -> rev=2 t=0 keys=[a="1" create=2 mod=2 ver=1] leases=[] watchers=0
            cas a 2 =0                   -> mismatch, current a="1" create=2 mod=2 ver=1
            cas a 2 absent               -> mismatch, current a="1" create=2 mod=2 ver=1
            cas a 2 =0 ttl=100           -> mismatch, current a="1" create=2 mod=2 ver=1
            cas b 2 =0                   -> mismatch, current absent
            txn when a.value=0 then put a 2 else get a -> else rev=2 [get a="1" create=2 mod=2 ver=1]
            rev                          -> 2
            cas a 2 =1                   -> swapped a="2" create=2 mod=3 ver=2
            rev                          -> 3
        "#]],
    );
}

#[test]
fn create_and_mod_revision_and_version_through_create_update_delete_recreate() {
    check(
        r#"
        put a x
        put b y
        put a x2
        put a x3
        del a
        get a
        # A re-created key is a new incarnation: new create revision, version from 1.
        put a again
        get b
        "#,
        expect![[r#"
            put a x                      -> a="x" create=2 mod=2 ver=1
            put b y                      -> b="y" create=3 mod=3 ver=1
            put a x2                     -> a="x2" create=2 mod=4 ver=2
            put a x3                     -> a="x3" create=2 mod=5 ver=3
            del a                        -> deleted a="x3" create=2 mod=5 ver=3 (rev now 6)
            get a                        -> absent
            put a again                  -> a="again" create=7 mod=7 ver=1
            get b                        -> b="y" create=3 mod=3 ver=1
        "#]],
    );
}

#[test]
fn cas_expecting_absent_succeeds_only_when_the_key_is_absent() {
    check(
        r#"
        cas lock me absent
        cas lock you absent
        del lock
        cas lock you absent
        "#,
        expect![[r#"
            cas lock me absent           -> swapped lock="me" create=2 mod=2 ver=1
            cas lock you absent          -> mismatch, current lock="me" create=2 mod=2 ver=1
            del lock                     -> deleted lock="me" create=2 mod=2 ver=1 (rev now 3)
            cas lock you absent          -> swapped lock="you" create=4 mod=4 ver=1
        "#]],
    );
}

#[test]
fn a_value_compare_on_a_missing_key_always_fails() {
    check(
        r#"
        cas a x =old
        # Not even the empty value matches a missing key.
        cas a x =
        txn when a.value="" then put a x else get a
        txn when a.value!=zzz then put a x else get a
        txn when a.value>"" then put a x else get a
        # Once the key exists with an empty value, the empty value matches.
        put a ""
        cas a x =
        "#,
        expect![[r#"
            cas a x =old                 -> mismatch, current absent
            cas a x =                    -> mismatch, current absent
            txn when a.value="" then put a x else get a -> else rev=1 [get absent]
            txn when a.value!=zzz then put a x else get a -> else rev=1 [get absent]
            txn when a.value>"" then put a x else get a -> else rev=1 [get absent]
            put a ""                     -> a="" create=2 mod=2 ver=1
            cas a x =                    -> swapped a="x" create=2 mod=3 ver=2
        "#]],
    );
}

#[test]
fn cas_with_a_mod_revision_compare() {
    check(
        r#"
        put a 1
        put a 2
        # The value matches but the revision is stale: no swap.
        cas a 3 =2 rev=2
        cas a 3 =2 rev=3
        # The revision matches but the value does not: no swap either.
        cas a 4 =2 rev=4
        "#,
        expect![[r#"
            put a 1                      -> a="1" create=2 mod=2 ver=1
            put a 2                      -> a="2" create=2 mod=3 ver=2
            cas a 3 =2 rev=2             -> mismatch, current a="2" create=2 mod=3 ver=2
            cas a 3 =2 rev=3             -> swapped a="3" create=2 mod=4 ver=3
            cas a 4 =2 rev=4             -> mismatch, current a="3" create=2 mod=4 ver=3
        "#]],
    );
}

#[test]
fn versioned_unlock_with_a_stale_revision_deletes_nothing() {
    check(
        r#"
        # Holder 1 takes the lock (mod revision 2), then stalls past its TTL.
        put lock holder1 ttl=100
        advance 100
        # Holder 2 takes the lock; holder 1 wakes up and unlocks with its revision.
        put lock holder2 ttl=100
        del lock rev=2
        get lock
        del lock rev=4
        get lock
        # A guarded delete of a missing key deletes nothing.
        del lock rev=4
        "#,
        expect![[r#"
            put lock holder1 ttl=100     -> lock="holder1" create=2 mod=2 ver=1 lease=1
            advance 100                  -> t=100 rev=3 [Expire lock @3 t=100]
            put lock holder2 ttl=100     -> lock="holder2" create=4 mod=4 ver=1 lease=2
            del lock rev=2               -> nothing deleted (rev 4)
            get lock                     -> lock="holder2" create=4 mod=4 ver=1 lease=2
            del lock rev=4               -> deleted lock="holder2" create=4 mod=4 ver=1 lease=2 (rev now 5)
            get lock                     -> absent
            del lock rev=4               -> nothing deleted (rev 5)
        "#]],
    );
}

#[test]
fn ttl_expiry_deletes_the_key_as_one_revision_and_reads_see_it_absent() {
    check(
        r#"
        put a x ttl=100
        put b y
        advance 99
        ttl a
        get a
        advance 1
        get a
        ttl a
        rev
        state
        "#,
        expect![[r#"
            put a x ttl=100              -> a="x" create=2 mod=2 ver=1 lease=1
            put b y                      -> b="y" create=3 mod=3 ver=1
            advance 99                   -> t=99 rev=3 []
            ttl a                        -> 1 ms left
            get a                        -> a="x" create=2 mod=2 ver=1 lease=1
            advance 1                    -> t=100 rev=4 [Expire a @4 t=100]
            get a                        -> absent
            ttl a                        -> no lease
            rev                          -> 4
            state                        -> rev=4 t=100 keys=[b="y" create=3 mod=3 ver=1] leases=[] watchers=0
        "#]],
    );
}

#[test]
fn a_lease_with_several_keys_expires_them_all_in_one_revision() {
    check(
        r#"
        grant 100
        put a 1 lease=1
        put b 2 lease=1
        put c 3 lease=1
        put d 4
        lease 1
        advance 100
        rev
        state
        lease 1
        "#,
        expect![[r#"
            grant 100                    -> lease 1
            put a 1 lease=1              -> a="1" create=2 mod=2 ver=1 lease=1
            put b 2 lease=1              -> b="2" create=3 mod=3 ver=1 lease=1
            put c 3 lease=1              -> c="3" create=4 mod=4 ver=1 lease=1
            put d 4                      -> d="4" create=5 mod=5 ver=1
            lease 1                      -> granted 100 ms, 100 ms left, keys ["a", "b", "c"]
            advance 100                  -> t=100 rev=6 [Expire a @6 t=100, Expire b @6 t=100, Expire c @6 t=100]
            rev                          -> 6
            state                        -> rev=6 t=100 keys=[d="4" create=5 mod=5 ver=1] leases=[] watchers=0
            lease 1                      -> no such lease
        "#]],
    );
}

#[test]
fn leases_expire_in_deadline_order_each_at_its_own_time() {
    check(
        r#"
        grant 30
        grant 10
        grant 10
        put a 1 lease=1
        put b 2 lease=2
        put c 3 lease=3
        # Leases 2 and 3 share a deadline: they expire in id order, one revision each.
        advance 100
        "#,
        expect![[r#"
            grant 30                     -> lease 1
            grant 10                     -> lease 2
            grant 10                     -> lease 3
            put a 1 lease=1              -> a="1" create=2 mod=2 ver=1 lease=1
            put b 2 lease=2              -> b="2" create=3 mod=3 ver=1 lease=2
            put c 3 lease=3              -> c="3" create=4 mod=4 ver=1 lease=3
            advance 100                  -> t=100 rev=7 [Expire b @5 t=10, Expire c @6 t=10, Expire a @7 t=30]
        "#]],
    );
}

#[test]
fn keep_alive_restarts_the_lease_from_now() {
    check(
        r#"
        grant 100
        put a x lease=1
        advance 60
        keepalive 1
        lease 1
        advance 60
        get a
        lease 1
        advance 40
        get a
        keepalive 1
        "#,
        expect![[r#"
            grant 100                    -> lease 1
            put a x lease=1              -> a="x" create=2 mod=2 ver=1 lease=1
            advance 60                   -> t=60 rev=2 []
            keepalive 1                  -> ttl 100
            lease 1                      -> granted 100 ms, 100 ms left, keys ["a"]
            advance 60                   -> t=120 rev=2 []
            get a                        -> a="x" create=2 mod=2 ver=1 lease=1
            lease 1                      -> granted 100 ms, 40 ms left, keys ["a"]
            advance 40                   -> t=160 rev=3 [Expire a @3 t=160]
            get a                        -> absent
            keepalive 1                  -> error: lease 1 does not exist (never granted, expired or revoked); grant a new one
        "#]],
    );
}

#[test]
fn revoke_deletes_the_lease_keys_in_one_revision() {
    check(
        r#"
        grant 100
        grant 100
        put a 1 lease=1
        put b 2 lease=1
        watch a 3
        revoke 1
        fired
        state
        revoke 1
        # Revoking a lease without keys changes no key, so no revision.
        revoke 2
        rev
        "#,
        expect![[r#"
            grant 100                    -> lease 1
            grant 100                    -> lease 2
            put a 1 lease=1              -> a="1" create=2 mod=2 ver=1 lease=1
            put b 2 lease=1              -> b="2" create=3 mod=3 ver=1 lease=1
            watch a 3                    -> waiting #1
            revoke 1                     -> rev 4
            fired                        -> [#1 Delete a @4 t=0]
            state                        -> rev=4 t=0 keys=[] leases=[2:100ms[]] watchers=0
            revoke 1                     -> error: lease 1 does not exist (never granted, expired or revoked); grant a new one
            revoke 2                     -> rev 4
            rev                          -> 4
        "#]],
    );
}

#[test]
fn a_put_moves_a_key_between_leases() {
    check(
        r#"
        grant 100
        grant 500
        put a x lease=1
        put a y lease=2
        lease 1
        lease 2
        # A put without a lease detaches the key: it no longer expires.
        put a z
        lease 2
        advance 1000
        get a
        put b x lease=9
        "#,
        expect![[r#"
            grant 100                    -> lease 1
            grant 500                    -> lease 2
            put a x lease=1              -> a="x" create=2 mod=2 ver=1 lease=1
            put a y lease=2              -> a="y" create=2 mod=3 ver=2 lease=2
            lease 1                      -> granted 100 ms, 100 ms left, keys []
            lease 2                      -> granted 500 ms, 500 ms left, keys ["a"]
            put a z                      -> a="z" create=2 mod=4 ver=3
            lease 2                      -> granted 500 ms, 500 ms left, keys []
            advance 1000                 -> t=1000 rev=4 []
            get a                        -> a="z" create=2 mod=4 ver=3
            put b x lease=9              -> error: lease 9 does not exist (never granted, expired or revoked); grant a new one
        "#]],
    );
}

#[test]
fn a_ttl_write_has_a_private_lease_replaced_by_the_next_write() {
    check(
        r#"
        put a x ttl=100
        lease 1
        advance 50
        put a y ttl=100
        lease 1
        lease 2
        advance 60
        get a
        # Writing without a TTL drops the private lease.
        put a z
        lease 2
        advance 1000
        get a
        "#,
        expect![[r#"
            put a x ttl=100              -> a="x" create=2 mod=2 ver=1 lease=1
            lease 1                      -> granted 100 ms, 100 ms left, keys ["a"], key-scoped
            advance 50                   -> t=50 rev=2 []
            put a y ttl=100              -> a="y" create=2 mod=3 ver=2 lease=2
            lease 1                      -> no such lease
            lease 2                      -> granted 100 ms, 100 ms left, keys ["a"], key-scoped
            advance 60                   -> t=110 rev=3 []
            get a                        -> a="y" create=2 mod=3 ver=2 lease=2
            put a z                      -> a="z" create=2 mod=4 ver=3
            lease 2                      -> no such lease
            advance 1000                 -> t=1110 rev=4 []
            get a                        -> a="z" create=2 mod=4 ver=3
        "#]],
    );
}

#[test]
fn a_private_lease_cannot_be_shared_by_another_key() {
    check(
        r#"
        put a x ttl=100
        put b y lease=1
        txn then put b y lease=1
        get b
        # The key itself may be written again on its own lease, which it keeps.
        advance 40
        put a y lease=1
        lease 1
        del a
        lease 1
        "#,
        expect![[r#"
            put a x ttl=100              -> a="x" create=2 mod=2 ver=1 lease=1
            put b y lease=1              -> error: lease 1 belongs to key "a" alone (it came from a write with a TTL); to share a lease between keys, grant one and attach each key to it
            txn then put b y lease=1     -> error: lease 1 belongs to key "a" alone (it came from a write with a TTL); to share a lease between keys, grant one and attach each key to it
            get b                        -> absent
            advance 40                   -> t=40 rev=2 []
            put a y lease=1              -> a="y" create=2 mod=3 ver=2 lease=1
            lease 1                      -> granted 100 ms, 60 ms left, keys ["a"], key-scoped
            del a                        -> deleted a="y" create=2 mod=3 ver=2 lease=1 (rev now 4)
            lease 1                      -> no such lease
        "#]],
    );
}

#[test]
fn fencing_token_is_the_mod_revision_which_never_repeats_while_version_restarts() {
    check(
        r#"
        put lock a ttl=10
        put lock a ttl=10
        advance 10
        put lock b ttl=10
        advance 10
        put lock c ttl=10
        del lock
        put lock d
        "#,
        expect![[r#"
            put lock a ttl=10            -> lock="a" create=2 mod=2 ver=1 lease=1
            put lock a ttl=10            -> lock="a" create=2 mod=3 ver=2 lease=2
            advance 10                   -> t=10 rev=4 [Expire lock @4 t=10]
            put lock b ttl=10            -> lock="b" create=5 mod=5 ver=1 lease=3
            advance 10                   -> t=20 rev=6 [Expire lock @6 t=20]
            put lock c ttl=10            -> lock="c" create=7 mod=7 ver=1 lease=4
            del lock                     -> deleted lock="c" create=7 mod=7 ver=1 lease=4 (rev now 8)
            put lock d                   -> lock="d" create=9 mod=9 ver=1
        "#]],
    );
}

#[test]
fn watch_from_history_is_ready_and_otherwise_waits_for_the_next_change() {
    check(
        r#"
        put a 1
        put b 1
        put a 2
        watch a 1
        watch a 2
        watch a 4
        watch b 3
        watch c 1
        put b 2
        del a
        fired
        fired
        put c 1
        fired
        "#,
        expect![[r#"
            put a 1                      -> a="1" create=2 mod=2 ver=1
            put b 1                      -> b="1" create=3 mod=3 ver=1
            put a 2                      -> a="2" create=2 mod=4 ver=2
            watch a 1                    -> ready Put a @2 t=0
            watch a 2                    -> ready Put a @4 t=0
            watch a 4                    -> waiting #1
            watch b 3                    -> waiting #2
            watch c 1                    -> waiting #3
            put b 2                      -> b="2" create=3 mod=5 ver=2
            del a                        -> deleted a="2" create=2 mod=4 ver=2 (rev now 6)
            fired                        -> [#2 Put b @5 t=0, #1 Delete a @6 t=0]
            fired                        -> []
            put c 1                      -> c="1" create=7 mod=7 ver=1
            fired                        -> [#3 Put c @7 t=0]
        "#]],
    );
}

#[test]
fn watch_is_fired_by_expiry() {
    check(
        r#"
        put a x ttl=100
        watch a 2
        advance 99
        fired
        advance 1
        fired
        watch a 2
        "#,
        expect![[r#"
            put a x ttl=100              -> a="x" create=2 mod=2 ver=1 lease=1
            watch a 2                    -> waiting #1
            advance 99                   -> t=99 rev=2 []
            fired                        -> []
            advance 1                    -> t=100 rev=3 [Expire a @3 t=100]
            fired                        -> [#1 Expire a @3 t=100]
            watch a 2                    -> ready Expire a @3 t=100
        "#]],
    );
}

#[test]
fn every_watcher_of_a_key_fires_once_in_revision_order() {
    check(
        r#"
        watch a 1
        watch a 1
        watch b 1
        txn then put a 1 ; put b 1
        put a 2
        fired
        state
        "#,
        expect![[r#"
            watch a 1                    -> waiting #1
            watch a 1                    -> waiting #2
            watch b 1                    -> waiting #3
            txn then put a 1 ; put b 1   -> then rev=2 [put (prev absent), put (prev absent)]
            put a 2                      -> a="2" create=2 mod=3 ver=2
            fired                        -> [#1 Put a @2 t=0, #2 Put a @2 t=0, #3 Put b @2 t=0]
            state                        -> rev=3 t=0 keys=[a="2" create=2 mod=3 ver=2, b="1" create=2 mod=2 ver=1] leases=[] watchers=0
        "#]],
    );
}

#[test]
fn a_watch_after_a_future_revision_waits_until_past_it() {
    check(
        r#"
        put a 1
        watch a 5
        put a 2
        put a 3
        put a 4
        fired
        put a 5
        fired
        "#,
        expect![[r#"
            put a 1                      -> a="1" create=2 mod=2 ver=1
            watch a 5                    -> waiting #1
            put a 2                      -> a="2" create=2 mod=3 ver=2
            put a 3                      -> a="3" create=2 mod=4 ver=3
            put a 4                      -> a="4" create=2 mod=5 ver=4
            fired                        -> []
            put a 5                      -> a="5" create=2 mod=6 ver=5
            fired                        -> [#1 Put a @6 t=0]
        "#]],
    );
}

#[test]
fn cancel_watch_stops_it() {
    check(
        r#"
        watch a 1
        state
        cancel 1
        state
        put a 1
        fired
        cancel 1
        # A watch that has fired is no longer waiting either.
        watch b 1
        put b 1
        cancel 2
        fired
        "#,
        expect![[r#"
            watch a 1                    -> waiting #1
            state                        -> rev=1 t=0 keys=[] leases=[] watchers=1
            cancel 1                     -> cancelled
            state                        -> rev=1 t=0 keys=[] leases=[] watchers=0
            put a 1                      -> a="1" create=2 mod=2 ver=1
            fired                        -> []
            cancel 1                     -> not waiting
            watch b 1                    -> waiting #2
            put b 1                      -> b="1" create=3 mod=3 ver=1
            cancel 2                     -> not waiting
            fired                        -> [#2 Put b @3 t=0]
        "#]],
    );
}

#[test]
fn txn_writes_several_keys_in_one_revision() {
    check(
        r#"
        put b old
        txn when a.create=0 then put a 1 ; del b ; get a else get a
        get a
        txn when a.create=0 then put a 2 else get a ; put c 1
        get c
        # A branch of reads only changes nothing.
        txn then get a ; get zz
        rev
        "#,
        expect![[r#"
            put b old                    -> b="old" create=2 mod=2 ver=1
            txn when a.create=0 then put a 1 ; del b ; get a else get a -> then rev=3 [put (prev absent), del 1, get a="1" create=3 mod=3 ver=1]
            get a                        -> a="1" create=3 mod=3 ver=1
            txn when a.create=0 then put a 2 else get a ; put c 1 -> else rev=4 [get a="1" create=3 mod=3 ver=1, put (prev absent)]
            get c                        -> c="1" create=4 mod=4 ver=1
            txn then get a ; get zz      -> then rev=4 [get a="1" create=3 mod=3 ver=1, get absent]
            rev                          -> 4
        "#]],
    );
}

#[test]
fn txn_compares_each_target_and_operator() {
    check(
        r#"
        grant 100
        put a x lease=1
        put a y lease=1
        txn when a.version=2 a.create=2 a.mod=3 a.lease=1 a.value=y then get a
        # One compare that does not hold sends the whole transaction to `else`.
        txn when a.version=2 a.create=2 a.mod=3 a.lease=1 a.value=x then get a
        txn when a.version>1 a.version<3 a.version!=1 then get a
        txn when a.mod>4 then get a else get a
        txn when a.create<3 then get a else get a
        txn when a.lease=0 then get a else get a
        txn when a.value<z a.value>x then get a
        # A missing key has version, create and mod revision 0 and no lease.
        txn when b.version=0 b.create=0 b.mod=0 b.lease=0 then get b
        "#,
        expect![[r#"
            grant 100                    -> lease 1
            put a x lease=1              -> a="x" create=2 mod=2 ver=1 lease=1
            put a y lease=1              -> a="y" create=2 mod=3 ver=2 lease=1
            txn when a.version=2 a.create=2 a.mod=3 a.lease=1 a.value=y then get a -> then rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when a.version=2 a.create=2 a.mod=3 a.lease=1 a.value=x then get a -> else rev=3 []
            txn when a.version>1 a.version<3 a.version!=1 then get a -> then rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when a.mod>4 then get a else get a -> else rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when a.create<3 then get a else get a -> then rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when a.lease=0 then get a else get a -> else rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when a.value<z a.value>x then get a -> then rev=3 [get a="y" create=2 mod=3 ver=2 lease=1]
            txn when b.version=0 b.create=0 b.mod=0 b.lease=0 then get b -> then rev=3 [get absent]
        "#]],
    );
}

#[test]
fn limit_keys() {
    check(
        r#"
        limits keys_max=2
        put a 1
        put b 1
        put c 1
        txn then put c 1
        # Overwriting an existing key does not add one.
        put a 2
        # Deleting one key makes room for another in the same transaction.
        txn then del a ; put c 1
        state
        "#,
        expect![[r#"
            limits keys_max=2
            put a 1                      -> a="1" create=2 mod=2 ver=1
            put b 1                      -> b="1" create=3 mod=3 ver=1
            put c 1                      -> error: the store already holds 2 keys, its limit; delete some first
            txn then put c 1             -> error: the store already holds 2 keys, its limit; delete some first
            put a 2                      -> a="2" create=2 mod=4 ver=2
            txn then del a ; put c 1     -> then rev=5 [del 1, put (prev absent)]
            state                        -> rev=5 t=0 keys=[b="1" create=3 mod=3 ver=1, c="1" create=5 mod=5 ver=1] leases=[] watchers=0
        "#]],
    );
}

#[test]
fn limit_key_length_and_empty_key() {
    check(
        r#"
        limits key_bytes_max=4
        put abcd 1
        put abcde 1
        put "" 1
        get abcde
        watch abcde 1
        watch "" 1
        txn when abcde.mod=0 then get a
        txn then get abcde
        del abcde
        "#,
        expect![[r#"
            limits key_bytes_max=4
            put abcd 1                   -> abcd="1" create=2 mod=2 ver=1
            put abcde 1                  -> error: the key is 5 bytes long; keys may be at most 4 bytes
            put "" 1                     -> error: the key is empty; give every key at least one character
            get abcde                    -> absent
            watch abcde 1                -> error: the key is 5 bytes long; keys may be at most 4 bytes
            watch "" 1                   -> error: the key is empty; give every key at least one character
            txn when abcde.mod=0 then get a -> error: the key is 5 bytes long; keys may be at most 4 bytes
            txn then get abcde           -> error: the key is 5 bytes long; keys may be at most 4 bytes
            del abcde                    -> error: the key is 5 bytes long; keys may be at most 4 bytes
        "#]],
    );
}

#[test]
fn limit_value_size() {
    check(
        r#"
        limits value_bytes_max=3
        put a abc
        put a abcd
        cas a abcd =abc
        # The branch that does not run is checked too.
        txn when a.value=nope then get a else put a abcd
        get a
        "#,
        expect![[r#"
            limits value_bytes_max=3
            put a abc                    -> a="abc" create=2 mod=2 ver=1
            put a abcd                   -> error: the value is 4 bytes long; values may be at most 3 bytes
            cas a abcd =abc              -> error: the value is 4 bytes long; values may be at most 3 bytes
            txn when a.value=nope then get a else put a abcd -> error: the value is 4 bytes long; values may be at most 3 bytes
            get a                        -> a="abc" create=2 mod=2 ver=1
        "#]],
    );
}

#[test]
fn limit_ttl_range() {
    check(
        r#"
        limits ttl_ms_min=10 ttl_ms_max=100
        grant 9
        grant 101
        put a x ttl=0
        put a x ttl=9
        put a x ttl=101
        cas a x absent ttl=101
        grant 10
        grant 100
        put a x ttl=10
        "#,
        expect![[r#"
            limits ttl_ms_min=10 ttl_ms_max=100
            grant 9                      -> error: a TTL of 9 ms is out of range; use a whole number of milliseconds from 10 to 100
            grant 101                    -> error: a TTL of 101 ms is out of range; use a whole number of milliseconds from 10 to 100
            put a x ttl=0                -> error: a TTL of 0 ms is out of range; use a whole number of milliseconds from 10 to 100
            put a x ttl=9                -> error: a TTL of 9 ms is out of range; use a whole number of milliseconds from 10 to 100
            put a x ttl=101              -> error: a TTL of 101 ms is out of range; use a whole number of milliseconds from 10 to 100
            cas a x absent ttl=101       -> error: a TTL of 101 ms is out of range; use a whole number of milliseconds from 10 to 100
            grant 10                     -> lease 1
            grant 100                    -> lease 2
            put a x ttl=10               -> a="x" create=2 mod=2 ver=1 lease=3
        "#]],
    );
}

#[test]
fn limit_leases() {
    check(
        r#"
        limits leases_max=2
        grant 100
        grant 100
        grant 100
        put a x ttl=10
        revoke 1
        put a x ttl=10
        # Writing the key with a new TTL swaps its private lease: no extra lease.
        put a y ttl=10
        txn then put b y ttl=10
        # Deleting the key frees its private lease in the same transaction.
        txn then del a ; put b y ttl=10
        state
        "#,
        expect![[r#"
            limits leases_max=2
            grant 100                    -> lease 1
            grant 100                    -> lease 2
            grant 100                    -> error: 2 leases are already live, the limit; revoke some first
            put a x ttl=10               -> error: 2 leases are already live, the limit; revoke some first
            revoke 1                     -> rev 1
            put a x ttl=10               -> a="x" create=2 mod=2 ver=1 lease=3
            put a y ttl=10               -> a="y" create=2 mod=3 ver=2 lease=4
            txn then put b y ttl=10      -> error: 2 leases are already live, the limit; revoke some first
            txn then del a ; put b y ttl=10 -> then rev=4 [del 1, put (prev absent)]
            state                        -> rev=4 t=0 keys=[b="y" create=4 mod=4 ver=1 lease=5] leases=[2:100ms[], 5:10ms["b"]] watchers=0
        "#]],
    );
}

#[test]
fn limit_watchers() {
    check(
        r#"
        limits watchers_max=1
        put a 1
        watch a 2
        watch b 1
        # A watch answered from history does not wait, so the limit does not apply.
        watch a 1
        cancel 1
        watch b 1
        "#,
        expect![[r#"
            limits watchers_max=1
            put a 1                      -> a="1" create=2 mod=2 ver=1
            watch a 2                    -> waiting #1
            watch b 1                    -> error: 1 watchers are already waiting, the limit; cancel some first
            watch a 1                    -> ready Put a @2 t=0
            cancel 1                     -> cancelled
            watch b 1                    -> waiting #2
        "#]],
    );
}

#[test]
fn limit_txn_ops() {
    check(
        r#"
        limits txn_ops_max=2
        txn then put a 1 ; put b 2 ; put c 3
        txn when a.mod=0 then get a else put a 1 ; put b 2 ; put c 3
        txn when a.mod=0 b.mod=0 c.mod=0 then get a
        txn when a.mod=0 b.mod=0 then put a 1 ; put b 2
        "#,
        expect![[r#"
            limits txn_ops_max=2
            txn then put a 1 ; put b 2 ; put c 3 -> error: the transaction has 3 operations; at most 2 are allowed
            txn when a.mod=0 then get a else put a 1 ; put b 2 ; put c 3 -> error: the transaction has 3 operations; at most 2 are allowed
            txn when a.mod=0 b.mod=0 c.mod=0 then get a -> error: the transaction has 3 operations; at most 2 are allowed
            txn when a.mod=0 b.mod=0 then put a 1 ; put b 2 -> then rev=2 [put (prev absent), put (prev absent)]
        "#]],
    );
}

#[test]
fn duplicate_key_in_txn_is_refused() {
    check(
        r#"
        txn then put a 1 ; put a 2
        txn then put a 1 ; del a
        txn then del a ; put a 1
        txn when a.mod=0 then get a else put a 3 ; put a 4
        # Reading a key the transaction writes is fine; the read sees the write.
        txn then put a 1 ; get a
        # Deleting a key twice is allowed, as in etcd: the second finds nothing,
        # and the transaction is still one revision.
        txn then del a ; del a
        get a
        "#,
        expect![[r#"
            txn then put a 1 ; put a 2   -> error: the transaction writes key "a" more than once (two puts, or a put and a delete); write each key once
            txn then put a 1 ; del a     -> error: the transaction writes key "a" more than once (two puts, or a put and a delete); write each key once
            txn then del a ; put a 1     -> error: the transaction writes key "a" more than once (two puts, or a put and a delete); write each key once
            txn when a.mod=0 then get a else put a 3 ; put a 4 -> error: the transaction writes key "a" more than once (two puts, or a put and a delete); write each key once
            txn then put a 1 ; get a     -> then rev=2 [put (prev absent), get a="1" create=2 mod=2 ver=1]
            txn then del a ; del a       -> then rev=3 [del 1, del 0]
            get a                        -> absent
        "#]],
    );
}

#[test]
fn clock_backwards_and_time_out_of_range() {
    check(
        r#"
        limits time_ms_max=1000
        put a x ttl=500
        advance 10
        at 5
        at 10
        at 1001
        advance 991
        at 1000
        get a
        advance 0
        "#,
        expect![[r#"
            limits time_ms_max=1000
            put a x ttl=500              -> a="x" create=2 mod=2 ver=1 lease=1
            advance 10                   -> t=10 rev=2 []
            at 5                         -> error: the clock is at 10 ms and cannot move back to 5 ms
            at 10                        -> t=10 rev=2 []
            at 1001                      -> error: time 1001 ms is past the largest time the store accepts (1000 ms)
            advance 991                  -> error: time 1001 ms is past the largest time the store accepts (1000 ms)
            at 1000                      -> t=1000 rev=3 [Expire a @3 t=500]
            get a                        -> absent
            advance 0                    -> t=1000 rev=3 []
        "#]],
    );
}

#[test]
fn watch_before_the_kept_history_is_compacted() {
    check(
        r#"
        limits history_events_max=2
        put a 1
        put a 2
        put a 3
        watch a 1
        watch a 2
        watch b 2
        state
        "#,
        expect![[r#"
            limits history_events_max=2
            put a 1                      -> a="1" create=2 mod=2 ver=1
            put a 2                      -> a="2" create=2 mod=3 ver=2
            put a 3                      -> a="3" create=2 mod=4 ver=3
            watch a 1                    -> error: revision 1 is older than the kept history (compacted up to 2); read the key again and watch from its current revision
            watch a 2                    -> ready Put a @3 t=0
            watch b 2                    -> waiting #1
            state                        -> rev=4 t=0 keys=[a="3" create=2 mod=4 ver=3] leases=[] watchers=1
        "#]],
    );
}

#[test]
fn advance_reports_every_expiry_even_beyond_the_kept_history() {
    check(
        r#"
        limits history_events_max=1
        grant 10
        put a 1 lease=1
        put b 2 lease=1
        put c 3 lease=1
        advance 10
        "#,
        expect![[r#"
            limits history_events_max=1
            grant 10                     -> lease 1
            put a 1 lease=1              -> a="1" create=2 mod=2 ver=1 lease=1
            put b 2 lease=1              -> b="2" create=3 mod=3 ver=1 lease=1
            put c 3 lease=1              -> c="3" create=4 mod=4 ver=1 lease=1
            advance 10                   -> t=10 rev=5 [Expire a @5 t=10, Expire b @5 t=10, Expire c @5 t=10]
        "#]],
    );
}

#[test]
fn a_lease_id_is_never_reused() {
    check(
        r#"
        grant 10
        put a x ttl=10
        revoke 1
        advance 10
        grant 10
        lease 1
        lease 2
        "#,
        expect![[r#"
            grant 10                     -> lease 1
            put a x ttl=10               -> a="x" create=2 mod=2 ver=1 lease=2
            revoke 1                     -> rev 2
            advance 10                   -> t=10 rev=3 [Expire a @3 t=10]
            grant 10                     -> lease 3
            lease 1                      -> no such lease
            lease 2                      -> no such lease
        "#]],
    );
}

// Limits that would break the store's invariants are a programming error in
// the caller, refused when the store is made rather than misbehaving later.

#[test]
#[should_panic(expected = "ttl_ms_min must be at least 1 ms")]
fn limits_with_a_zero_minimum_ttl_are_refused() {
    // A zero TTL would put a key's deadline at the moment it is written.
    kv::Store::with_limits(kv::Limits { ttl_ms_min: 0, ..kv::Limits::default() });
}

#[test]
#[should_panic(expected = "ttl_ms_min must not exceed ttl_ms_max")]
fn limits_with_an_empty_ttl_range_are_refused() {
    kv::Store::with_limits(kv::Limits { ttl_ms_min: 10, ttl_ms_max: 9, ..kv::Limits::default() });
}

#[test]
#[should_panic(expected = "time_ms_max + ttl_ms_max must fit in a u64")]
fn limits_whose_deadlines_could_overflow_are_refused() {
    kv::Store::with_limits(kv::Limits { time_ms_max: u64::MAX, ..kv::Limits::default() });
}
