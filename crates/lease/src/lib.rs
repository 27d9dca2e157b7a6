//! The lease, fencing and election exercises in Rust: the reference
//! solutions and the classic mistakes, written against [`sim::Ctx`] exactly as
//! a learner writes `lease.js`, `fencing.js` and `election.js`, so the grader
//! runs all of them the same way.
//!
//! The design decision the reference embodies: a lease is only as good as
//! the holder's own clock says. The holder measures its validity window from
//! the moment it *sent* its last successful acquire or renew (the store
//! started the TTL no earlier), renews halfway through the TTL, stops working
//! a quarter TTL before the store could expire it, and steps down the moment
//! a renewal fails. A worker that receives the leader's requests trusts
//! nothing but the store: it applies a request only if the lock's current
//! record names the sender at the sender's version, and applies each request
//! id at most once. The election queue (`election`) puts candidates in line
//! by the version that created their keys, each waiting on the one ahead.

pub mod election;
pub mod fencing;
pub mod join;
pub mod leader;

pub use election::{ElectionVariant, Leadership};
pub use fencing::{FencingVariant, Request, WorkerMemory};
pub use join::join_all;
pub use leader::{LeaderCtx, Lease, LeaseVariant};
