//! Leases: a TTL that one or more keys hang on. When a lease runs out every
//! key attached to it is deleted in one revision, as in etcd.

use std::collections::BTreeSet;

/// A lease's id. Ids are handed out 1, 2, 3 … and never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct LeaseId(pub u64);

/// What [`crate::Store::lease_info`] reports about a live lease.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LeaseInfo {
    pub id: LeaseId,
    /// The TTL the lease was granted with.
    pub granted_ttl_ms: u64,
    /// Time left until it expires, measured on the store's clock.
    pub remaining_ms: u64,
    /// The keys attached to it, in key order.
    pub keys: Vec<String>,
    /// True for the private lease behind a `ttl_ms` write of one key.
    pub key_scoped: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Lease {
    pub(crate) ttl_ms: u64,
    pub(crate) deadline_ms: u64,
    pub(crate) keys: BTreeSet<String>,
    /// A key-scoped lease belongs to the single key written with `ttl_ms`; it
    /// is dropped as soon as that key stops using it.
    pub(crate) key_scoped: bool,
}
