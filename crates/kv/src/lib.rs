//! The simulated key-value store at the heart of every leaselab exercise.
//!
//! It models the parts of etcd v3 that ownership election relies on, so that
//! what a learner practises here is what they meet on a real cluster:
//!
//! - one store-wide **revision**, starting at 1, bumped by exactly one for every
//!   transaction that changes something (reads and failed compares never bump it);
//! - per key: value, create revision, mod revision, per-key **version** (1 on
//!   create, +1 per write, back to nothing on delete) and an optional lease;
//! - **transactions** with compares on value, version, create/mod revision and
//!   lease; a `VALUE` compare on a missing key always fails, exactly as in etcd;
//! - **leases** on a virtual clock that the caller advances ([`Store::advance_to`]);
//!   expiry deletes every attached key in one revision;
//! - **watches**: "tell me about the first change of key K after revision R",
//!   answered from history when it already happened, so no wake-up is missed.
//!
//! The design decision this crate embodies: the store is a pure state machine.
//! It does no I/O, reads no real clock and draws no random numbers; time only
//! moves when the caller says so. That is what lets the simulation replay a run
//! byte for byte and lets the browser and the command line agree.
//!
//! Deliberate differences from etcd are listed in `ARCHITECTURE.md`
//! (millisecond TTLs with no 2 s minimum, key-scoped leases for the lesson's
//! `ttlMs` writes, no ranges but one read of a prefix).

mod error;
mod lease;
mod limits;
mod record;
mod store;
mod txn;
mod watch;

pub use error::StoreError;
pub use lease::{LeaseId, LeaseInfo};
pub use limits::Limits;
pub use record::{Event, EventKind, KeyValue};
pub use store::{CasOutcome, Expect, Store};
pub use txn::{Compare, CompareOp, CompareTarget, LeaseChoice, OpResponse, Txn, TxnOp, TxnResponse};
pub use watch::{WatchId, WatchStart};
