//! The cas exercise's rules (see `check.rs` for how each is checked): the
//! store's answers are compared with `kv`'s, and a difference is named by
//! the first rule below that explains it.

use crate::rules::{Rule, NO_ERRORS};

pub const RULES: &[Rule] = &[
    Rule {
        id: "ttl-expiry",
        statement: "A key written with ttlMs disappears exactly when its TTL has passed, not before and not after.",
        why: "Locks and leases are built on expiry; a key that lingers or vanishes early breaks them.",
    },
    Rule {
        id: "ttl-cleared",
        statement: "Rewriting a key without ttlMs removes its old TTL.",
        why: "A value written to last must not expire on an earlier write's deadline.",
    },
    Rule {
        id: "expect-absent",
        statement: "`currentValue: null` succeeds exactly when the key is absent.",
        why: "Create-if-absent is how an owner is elected; it must never overwrite a live key.",
    },
    Rule {
        id: "missing-key-value",
        statement: "A value compare on a missing key fails.",
        why: "Comparing with a value that is not there must not look like a match.",
    },
    Rule {
        id: "value-compare",
        statement: "`compareAndSwap` succeeds exactly when the current value equals `currentValue`.",
        why: "The compare is the whole point of compare-and-swap.",
    },
    Rule {
        id: "version-compare",
        statement: "With a `version` option, the write succeeds only if the key's version is that version.",
        why: "Versions tell writes with the same value apart.",
    },
    Rule {
        id: "versioned-delete",
        statement: "`delete(key, { version })` deletes only if the key's version is that version.",
        why: "A versioned delete is how an owner releases only its own lock.",
    },
    Rule {
        id: "delete-answer",
        statement: "`delete` answers true exactly when it removed the key.",
        why: "Callers decide what to do next from that answer.",
    },
    Rule {
        id: "failed-cas-changes-nothing",
        statement: "A failed compareAndSwap changes nothing: not the value, not a version.",
        why: "A failed attempt must not disturb the current owner.",
    },
    Rule {
        id: "key-version",
        statement: "`keyVersion` counts the writes since the key was (re)created, starting at 1.",
        why: "It is the per-key counter etcd calls version.",
    },
    Rule {
        id: "read-state",
        statement: "`get` shows the value and presence the writes so far imply.",
        why: "Every decision starts with a read.",
    },
    Rule {
        id: "read-version",
        statement: "A record read later carries the version its last write returned.",
        why: "A version read back must match the one the writer holds, or versioned operations fail.",
    },
    Rule {
        id: "version-unique",
        statement: "Every successful write returns a version never handed out before.",
        why: "A version that repeats cannot tell two writes apart.",
    },
    Rule {
        id: "version-increases",
        statement: "Each successful write's version is greater than every version before it.",
        why: "Fencing tokens must only grow.",
    },
    Rule {
        id: "answer-shape",
        statement: "Answers have the documented shape: `{ ok: true, version }` or `{ ok: false, current }`.",
        why: "Callers read those fields.",
    },
    NO_ERRORS,
];
