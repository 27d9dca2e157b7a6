//! The election exercise's rules (see `check.rs` for how each is checked).

use crate::rules::{Rule, NO_ERRORS};

pub const RULES: &[Rule] = &[
    Rule { id: "one-leader", statement: "At most one process leads at a time: `campaign` returns to nobody while another process's leadership lasts (until that process calls `resign` or crashes, or its key leaves the store).", why: "Two leaders at once is what an election exists to prevent." },
    Rule { id: "queue-order", statement: "`campaign` returns the caller's own key, `prefix + ctx.name`, and only once that key is the oldest in the queue (the lowest create version under the prefix).", why: "Candidates take office in the order they joined; a process that jumps the queue leads beside the rightful leader." },
    Rule { id: "wake-one", statement: "A candidate's departure wakes at most one waiter: each waiter watches only the key just ahead of it, never sleeps while an older key is ahead of its own, and makes at most 4 store calls in `campaign` for each change of the queue, and 4 before the first.", why: "If every waiter watches the leader, each change of leader wakes them all to read the queue at once (the thundering herd)." },
    Rule { id: "resign-deletes", statement: "`resign` deletes the caller's own key (it never writes it), and nobody else's, and returns once the store has answered: `true` if its delete removed that key, `false` if the key was already gone.", why: "A key left behind holds up the whole queue until its TTL runs out." },
    Rule { id: "no-overwrite", statement: "Nobody writes or deletes another candidate's key: a candidate's key, `prefix + name`, is changed only by that candidate.", why: "A candidate that rewrites or deletes the key ahead of it (to push out a leader it thinks is stuck, say) ends a leadership that its holder still believes in: two processes then lead at once." },
    Rule { id: "key-has-ttl", statement: "Every write of a candidate's key carries a TTL (`campaign` is given `ttlMs`).", why: "A key that never expires stays in the queue for ever once its owner crashes, and holds up every candidate behind it." },
    Rule { id: "no-stuck-waiter", statement: "When the key ahead of a waiter goes away, the queue moves on: on a calm network the oldest candidate takes office within a few round trips, and nobody is left waiting when nothing more can happen.", why: "A waiter that missed its predecessor's departure, or watches the wrong key, waits forever or until some TTL runs out." },
    NO_ERRORS,
];
