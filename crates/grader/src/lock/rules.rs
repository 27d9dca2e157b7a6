//! The lock exercise's rules (see `check.rs` for how each is checked).

use crate::rules::{Rule, NO_ERRORS};

pub const RULES: &[Rule] = &[
    Rule { id: "value-is-name", statement: "`lock` and `tryLock` write the lock with the process's name, `ctx.name`, as its value.", why: "The value tells everyone who holds the lock; a shared word hides it." },
    Rule { id: "lock-has-ttl", statement: "Every write of the lock carries the TTL the caller passed, `ttlMs` (a write between calls, the one the latest `lock` or `tryLock` was given).", why: "A holder that crashes must not keep the lock forever, nor for far longer than asked." },
    Rule { id: "try-lock-once", statement: "`tryLock` makes one attempt (one compareAndSwap of the key) and never waits: no `sleep` or `watch` before it has the lock, none that it waits for after (a keep-alive it starts is fine), and no reading the key again and again (at most 3 store calls in all).", why: "A caller uses tryLock precisely when it must not be held up." },
    Rule { id: "no-overwrite", statement: "Nobody writes the lock key while another process holds it.", why: "Two holders at once is exactly what a lock exists to prevent." },
    Rule { id: "unlock-only-own", statement: "`unlock` only ever deletes the caller's own lock (the version it acquired).", why: "After a TTL expiry someone else may hold the key; deleting it frees their lock." },
    Rule { id: "acquire-is-real", statement: "`lock` and `tryLock` return the version of a lock this process holds (one its compareAndSwap took in this call, or one it still holds), and `tryLock` never returns null after taking the lock.", why: "A caller that is told it holds the lock acts as the owner." },
    Rule { id: "unlock-deletes", statement: "`unlock` releases the lock by deleting the key, `delete(key, { version })`; it never writes the key.", why: "A key that is written over still looks held to everyone waiting for it." },
    Rule { id: "unlock-answer", statement: "`unlock` answers true exactly when it released the lock, and never leaves its own live lock behind.", why: "A caller that believes it released the lock walks away; a forgotten lock blocks everyone until its TTL." },
    Rule { id: "wait-by-watch", statement: "While blocked, `lock` waits with `watch`: it never sleeps while the key is held, and it makes at most 4 store calls for each change of the key, and 4 before the first.", why: "Polling loads the store for every waiter and wakes late." },
    Rule { id: "prompt-wakeup", statement: "On a calm network, a freed lock is taken by a waiting process within a few round trips.", why: "A lock that sits free while others wait is lost availability." },
    Rule { id: "liveness", statement: "Nobody is left waiting when nothing more can happen.", why: "A waiter that missed its wake-up never gets the lock." },
    NO_ERRORS,
];
