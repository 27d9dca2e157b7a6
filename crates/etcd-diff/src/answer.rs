//! What each side answered, in a form both sides can be compared in:
//! revisions as deltas from the sequence's starting revision, keys without
//! the sequence's prefix, leases as slots, TTLs in milliseconds.
//!
//! Every field here is one the model claims to reproduce; two answers are
//! equal exactly when the model agrees with etcd.

use std::fmt;

/// A key as reported by a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kv {
    pub key: String,
    pub value: String,
    /// Create revision − the sequence's starting revision.
    pub create: i64,
    /// Mod revision − the sequence's starting revision.
    pub modified: i64,
    pub version: i64,
    pub lease: LeaseTag,
}

/// Which lease a key is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseTag {
    None,
    /// The sequence's n-th grant.
    Slot(usize),
    /// An id the sequence never granted (raw, so it will not match the other side).
    Unknown(i64),
}

/// Why a side refused an operation, by kind (the wording differs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    LeaseNotFound,
    DuplicateKeyInTxn,
    Other(String),
}

/// One response inside a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpAnswer {
    Get { kv: Option<Kv> },
    Put { prev: Option<Kv> },
    Delete { deleted: i64, prev: Option<Kv> },
}

/// The answer to one [`crate::ops::Op`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The key as written.
    Put {
        revision: i64,
        kv: Option<Kv>,
    },
    PutPrev {
        revision: i64,
        prev: Option<Kv>,
    },
    Get {
        kv: Option<Kv>,
    },
    Delete {
        revision: i64,
        prev: Option<Kv>,
    },
    DeleteIf {
        revision: i64,
        deleted: Option<Kv>,
    },
    /// `kv` is the key as written when swapped, else what is there.
    Cas {
        revision: i64,
        swapped: bool,
        kv: Option<Kv>,
    },
    Txn {
        revision: i64,
        succeeded: bool,
        responses: Vec<OpAnswer>,
    },
    Grant {
        ttl_ms: i64,
    },
    KeepAlive {
        ttl_ms: i64,
    },
    Revoke {
        revision: i64,
    },
    Refused(Refused),
}

/// Every key of the sequence, and the revision, after an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub revision: i64,
    pub keys: Vec<Kv>,
}

/// A lease at the end of a sequence, if it is still alive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseState {
    pub slot: usize,
    pub granted_ttl_ms: i64,
    /// Attached keys, sorted.
    pub keys: Vec<String>,
    /// Remaining TTL within 2 s below the granted one. kv's clock does not
    /// move during a sequence and etcd's does, so only this much is compared
    /// (divergence `expiry-timing`).
    pub remaining_plausible: bool,
}

impl fmt::Display for LeaseTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseTag::None => Ok(()),
            LeaseTag::Slot(slot) => write!(f, " lease=L{slot}"),
            LeaseTag::Unknown(raw) => write!(f, " lease=?{raw}"),
        }
    }
}

impl fmt::Display for Kv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?} create=base+{} mod=base+{} version={}{}",
            self.key, self.value, self.create, self.modified, self.version, self.lease
        )
    }
}

struct OptKv<'a>(&'a Option<Kv>);

impl fmt::Display for OptKv<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => write!(f, "none"),
            Some(kv) => write!(f, "{{{kv}}}"),
        }
    }
}

impl fmt::Display for OpAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpAnswer::Get { kv } => write!(f, "get {}", OptKv(kv)),
            OpAnswer::Put { prev } => write!(f, "put prev={}", OptKv(prev)),
            OpAnswer::Delete { deleted, prev } => write!(f, "delete deleted={deleted} prev={}", OptKv(prev)),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Put { revision, kv } => write!(f, "revision=base+{revision} kv={}", OptKv(kv)),
            Answer::PutPrev { revision, prev } => write!(f, "revision=base+{revision} prev={}", OptKv(prev)),
            Answer::Get { kv } => write!(f, "kv={}", OptKv(kv)),
            Answer::Delete { revision, prev } => write!(f, "revision=base+{revision} prev={}", OptKv(prev)),
            Answer::DeleteIf { revision, deleted } => write!(f, "revision=base+{revision} deleted={}", OptKv(deleted)),
            Answer::Cas { revision, swapped, kv } => {
                write!(f, "revision=base+{revision} swapped={swapped} kv={}", OptKv(kv))
            }
            Answer::Txn { revision, succeeded, responses } => {
                let responses: Vec<String> = responses.iter().map(ToString::to_string).collect();
                write!(f, "revision=base+{revision} succeeded={succeeded} responses=[{}]", responses.join("; "))
            }
            Answer::Grant { ttl_ms } => write!(f, "granted ttl={ttl_ms}ms"),
            Answer::KeepAlive { ttl_ms } => write!(f, "kept alive ttl={ttl_ms}ms"),
            Answer::Revoke { revision } => write!(f, "revoked, revision=base+{revision}"),
            Answer::Refused(refused) => write!(f, "refused: {refused:?}"),
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self.keys.iter().map(ToString::to_string).collect();
        write!(f, "revision=base+{} keys=[{}]", self.revision, keys.join("; "))
    }
}

impl fmt::Display for LeaseState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "L{} granted={}ms keys={:?}{}",
            self.slot,
            self.granted_ttl_ms,
            self.keys,
            if self.remaining_plausible { "" } else { " remaining TTL implausible" }
        )
    }
}
