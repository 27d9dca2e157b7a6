//! Transactions: compares, then the success or the failure branch, applied
//! atomically as one revision.

use crate::lease::LeaseId;
use crate::record::KeyValue;

/// What a compare looks at on its key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "target", content = "operand", rename_all = "snake_case")]
pub enum CompareTarget {
    /// The value. On a missing key a value compare is always false, whatever
    /// the operator (etcd cannot tell "missing" from "empty", so it refuses).
    Value(String),
    /// The per-key version; a missing key has version 0.
    Version(u64),
    /// The create revision; a missing key has 0, so `CreateRevision(0) ==`
    /// means "the key is absent".
    CreateRevision(u64),
    /// The mod revision; a missing key has 0.
    ModRevision(u64),
    /// The attached lease; `None` (etcd's 0) means "no lease".
    Lease(Option<LeaseId>),
}

/// The comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareOp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

/// One compare of a transaction: `key`'s `target` `op` operand.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Compare {
    pub key: String,
    pub op: CompareOp,
    pub target: CompareTarget,
}

impl Compare {
    pub fn new(key: impl Into<String>, op: CompareOp, target: CompareTarget) -> Self {
        Compare { key: key.into(), op, target }
    }

    /// "The key is absent" (etcd: `create_revision == 0`).
    pub fn absent(key: impl Into<String>) -> Self {
        Compare::new(key, CompareOp::Equal, CompareTarget::CreateRevision(0))
    }

    /// "The key's value equals `value`" (false on a missing key).
    pub fn value_is(key: impl Into<String>, value: impl Into<String>) -> Self {
        Compare::new(key, CompareOp::Equal, CompareTarget::Value(value.into()))
    }

    /// "The key's mod revision equals `revision`".
    pub fn mod_revision_is(key: impl Into<String>, revision: u64) -> Self {
        Compare::new(key, CompareOp::Equal, CompareTarget::ModRevision(revision))
    }

    pub(crate) fn holds(&self, current: Option<&KeyValue>) -> bool {
        fn ordered<T: Ord>(op: CompareOp, have: T, want: T) -> bool {
            match op {
                CompareOp::Equal => have == want,
                CompareOp::NotEqual => have != want,
                CompareOp::Greater => have > want,
                CompareOp::Less => have < want,
            }
        }
        match (&self.target, current) {
            (CompareTarget::Value(_), None) => false,
            (CompareTarget::Value(want), Some(kv)) => ordered(self.op, kv.value.as_bytes(), want.as_bytes()),
            (CompareTarget::Version(want), kv) => ordered(self.op, kv.map_or(0, |kv| kv.version), *want),
            (CompareTarget::CreateRevision(want), kv) => ordered(self.op, kv.map_or(0, |kv| kv.create_revision), *want),
            (CompareTarget::ModRevision(want), kv) => ordered(self.op, kv.map_or(0, |kv| kv.mod_revision), *want),
            (CompareTarget::Lease(want), kv) => {
                let have = kv.and_then(|kv| kv.lease).map_or(0, |id| id.0);
                ordered(self.op, have, want.map_or(0, |id| id.0))
            }
        }
    }
}

/// Which lease a put attaches its key to.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "arg", rename_all = "snake_case")]
pub enum LeaseChoice {
    /// No lease: the key never expires (a put without a lease detaches any).
    None,
    /// Attach to an existing lease. A key's private lease (from [`LeaseChoice::Ttl`])
    /// is refused with `LeaseKeyScoped`, except for that key itself, which
    /// keeps it (and its deadline) when written with it.
    Lease(LeaseId),
    /// The lesson's `ttlMs`: a private lease of this TTL, just for this key.
    /// Writing the key again replaces it; deleting the key drops it; no
    /// other key may attach to it.
    Ttl(u64),
}

/// One operation of a transaction branch. Ranges are single keys.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TxnOp {
    Get { key: String },
    Put { key: String, value: String, lease: LeaseChoice },
    Delete { key: String },
}

impl TxnOp {
    pub fn get(key: impl Into<String>) -> Self {
        TxnOp::Get { key: key.into() }
    }
    pub fn put(key: impl Into<String>, value: impl Into<String>, lease: LeaseChoice) -> Self {
        TxnOp::Put { key: key.into(), value: value.into(), lease }
    }
    pub fn delete(key: impl Into<String>) -> Self {
        TxnOp::Delete { key: key.into() }
    }
    pub(crate) fn key(&self) -> &str {
        match self {
            TxnOp::Get { key } | TxnOp::Put { key, .. } | TxnOp::Delete { key } => key,
        }
    }
}

/// A transaction: if every compare holds, run `success`, else `failure`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Txn {
    pub compares: Vec<Compare>,
    pub success: Vec<TxnOp>,
    pub failure: Vec<TxnOp>,
}

/// The answer to one operation, with the previous key where etcd gives it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OpResponse {
    Get { kv: Option<KeyValue> },
    Put { prev: Option<KeyValue> },
    Delete { deleted: u64, prev: Option<KeyValue> },
}

/// The answer to a transaction.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TxnResponse {
    pub succeeded: bool,
    /// The store's revision after the transaction (unchanged if nothing changed).
    pub revision: u64,
    pub responses: Vec<OpResponse>,
}
