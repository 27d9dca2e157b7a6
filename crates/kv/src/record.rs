//! What the store holds and what it reports about changes.

use crate::lease::LeaseId;

/// One key as etcd reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeyValue {
    pub key: String,
    pub value: String,
    /// The revision of the write that created this incarnation of the key.
    pub create_revision: u64,
    /// The revision of the latest write. Store-wide, so it never repeats: the
    /// right fencing token.
    pub mod_revision: u64,
    /// etcd's per-key write counter: 1 on create, +1 per write, and it starts
    /// again at 1 after a delete. Not a fencing token.
    pub version: u64,
    pub lease: Option<LeaseId>,
}

/// How a key changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Put,
    Delete,
    /// Deleted because its lease ran out.
    Expire,
}

/// One change of one key, as a watcher sees it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub kind: EventKind,
    pub key: String,
    /// The revision of the transaction that made this change.
    pub revision: u64,
    /// The virtual time of the change.
    pub at_ms: u64,
    /// The key after a put; `None` after a delete or expiry.
    pub kv: Option<KeyValue>,
}
