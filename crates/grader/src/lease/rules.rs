//! The lease exercise's rules (see `check.rs` for how each is checked).

use crate::rules::{Rule, NO_ERRORS};

pub const RULES: &[Rule] = &[
    Rule { id: "value-is-name", statement: "Every write of the lease key has the replica's name, `ctx.name`, as its value.", why: "The value tells everyone who leads; a shared word hides it." },
    Rule { id: "campaign-holds", statement: "`campaign` returns only once this replica holds the lease: its own write of the key succeeded during the call, or it still holds it.", why: "Code that returns from campaign without the lease, and waits elsewhere, leads without holding anything." },
    Rule { id: "wait-by-watch", statement: "While someone holds the key, `campaign` waits with `watch`: it never sleeps while the key is held, and it makes at most 4 store calls for each change of the key, and 4 before the first; `lead`, while another replica holds the key, is held to the same number of store calls.", why: "Polling loads the store for every waiting replica and wakes late." },
    Rule { id: "stop-after-failed-renewal", statement: "When a renewal sent during the current tenure fails, `lead` returns at once: after the failed reply, no store call and no new sleep before it returns, and no work until the replica acquires the lease again.", why: "A failed renewal means someone else may now hold the lease." },
    Rule { id: "work-while-holder", statement: "Each unit of work starts only while the store shows this replica as the holder.", why: "Work done by a replica that is not the holder may run alongside the real leader's." },
    Rule { id: "work-within-validity", statement: "Every `ctx.work()` starts while your clock reads less than validFrom + 0.75 × ttlMs, validFrom being the time on your clock when the last successful acquire or renew was sent: check right before each unit of work, after every `await` (a renewal's reply may come after the window it opened has closed).", why: "The lease may expire in the store before the reply reaches you; the margin covers delays and the work's own duration." },
    Rule { id: "renew-on-time", statement: "Renew once half the TTL has passed: on a network with no pauses, delayed messages or clock jumps, `lead` neither works nor idles once validFrom + ttlMs/2 + ttlMs/10 + one round trip has passed on your clock with no renewal in flight (a unit of work already under way may end after it).", why: "A leader that renews late loses its lease on a healthy network." },
    Rule { id: "renew-not-too-often", statement: "Send a renewal no earlier than validFrom + ttlMs/2 on your clock.", why: "Renewing constantly loads the store for nothing." },
    Rule { id: "no-overwrite", statement: "Nobody writes the lease key while another replica holds it.", why: "Taking a live lease from its holder makes two leaders." },
    Rule { id: "no-spurious-loss", statement: "With no faults but clock drift, the lease never expires and `lead` never returns.", why: "A leader that loses its lease on a healthy network causes needless failovers." },
    Rule { id: "failover", statement: "On a network with no pauses or delayed messages, after the holder crashes, another replica holds the lease within ttlMs plus three round trips.", why: "Failover time is downtime." },
    Rule { id: "runs-to-horizon", statement: "The run reaches its horizon: no replica stuck waiting with nothing left to happen.", why: "A replica that stops campaigning leaves the group without a leader." },
    NO_ERRORS,
];
