//! The fencing exercise's rules (see `check.rs` for how each is checked).

use crate::rules::{Rule, NO_ERRORS};

pub const RULES: &[Rule] = &[
    Rule { id: "fence-current", statement: "An accepted request's owner and version were the lock's record at some moment during the call.", why: "A request from a deposed leader must not be applied." },
    Rule { id: "at-most-once", statement: "Each request id is accepted at most once.", why: "A retried or duplicated request must not be applied twice." },
    Rule { id: "accept-current", statement: "A request is accepted if its owner and version were the lock's record throughout the call and its id had not been accepted before.", why: "A worker that rejects the real leader's requests does no work at all." },
    Rule { id: "worker-reads-only", statement: "The worker never writes or deletes the lock key: it reads the lock's record and decides.", why: "A worker that rewrites the record changes the lease it is judging: the leader's renewals and release then fail, and the lock loses its TTL." },
    Rule { id: "answers", statement: "Every call of `handleRequest` returns.", why: "A worker that never answers holds its caller up forever." },
    NO_ERRORS,
];
