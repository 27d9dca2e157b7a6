//! Errors are for misuse and bad input; domain outcomes (a compare that did
//! not match, a key that is absent) are values, never errors.

use std::fmt;

/// Why the store refused a request. Every variant says what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum StoreError {
    /// The key is empty.
    EmptyKey,
    /// The key is longer than the limit.
    KeyTooLong { bytes: usize, bytes_max: usize },
    /// The value is larger than the limit.
    ValueTooLarge { bytes: usize, bytes_max: usize },
    /// Creating this key would exceed the number of keys the store holds.
    TooManyKeys { keys_max: usize },
    /// A TTL outside the accepted range.
    TtlOutOfRange { ttl_ms: u64, ttl_ms_min: u64, ttl_ms_max: u64 },
    /// A lease id that was never granted, or has expired or been revoked.
    LeaseNotFound { lease: u64 },
    /// The lease is the private lease of another key's `ttl_ms` write, which
    /// no other key may share.
    LeaseKeyScoped { lease: u64, key: String },
    /// Granting would exceed the number of live leases.
    TooManyLeases { leases_max: usize },
    /// Registering would exceed the number of waiting watchers.
    TooManyWatchers { watchers_max: usize },
    /// A watch id that is not waiting (already fired or cancelled).
    WatchNotFound { watch: u64 },
    /// A read of a prefix would return more bytes than the limit.
    RangeTooLarge { prefix: String, bytes_max: usize },
    /// The requested revision is older than the history the store keeps.
    Compacted { after_revision: u64, compacted_revision: u64 },
    /// A transaction with more operations than the limit.
    TooManyOps { ops: usize, ops_max: usize },
    /// A transaction that writes the same key twice (etcd refuses these too).
    DuplicateKeyInTxn { key: String },
    /// The clock was asked to move backwards.
    ClockBackwards { now_ms: u64, to_ms: u64 },
    /// The clock would pass the largest time the store accepts.
    TimeOutOfRange { to_ms: u64, time_ms_max: u64 },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::EmptyKey => write!(f, "the key is empty; give every key at least one character"),
            StoreError::KeyTooLong { bytes, bytes_max } => {
                write!(f, "the key is {bytes} bytes long; keys may be at most {bytes_max} bytes")
            }
            StoreError::ValueTooLarge { bytes, bytes_max } => {
                write!(f, "the value is {bytes} bytes long; values may be at most {bytes_max} bytes")
            }
            StoreError::TooManyKeys { keys_max } => {
                write!(f, "the store already holds {keys_max} keys, its limit; delete some first")
            }
            StoreError::TtlOutOfRange { ttl_ms, ttl_ms_min, ttl_ms_max } => write!(
                f,
                "a TTL of {ttl_ms} ms is out of range; use a whole number of milliseconds from {ttl_ms_min} to {ttl_ms_max}"
            ),
            StoreError::LeaseNotFound { lease } => {
                write!(f, "lease {lease} does not exist (never granted, expired or revoked); grant a new one")
            }
            StoreError::LeaseKeyScoped { lease, key } => write!(
                f,
                "lease {lease} belongs to key {key:?} alone (it came from a write with a TTL); to share a lease between keys, grant one and attach each key to it"
            ),
            StoreError::TooManyLeases { leases_max } => {
                write!(f, "{leases_max} leases are already live, the limit; revoke some first")
            }
            StoreError::TooManyWatchers { watchers_max } => {
                write!(f, "{watchers_max} watchers are already waiting, the limit; cancel some first")
            }
            StoreError::RangeTooLarge { prefix, bytes_max } => write!(
                f,
                "the keys under {prefix:?} and their values come to more than {bytes_max} bytes, the most one list returns; keep fewer or smaller keys under it"
            ),
            StoreError::WatchNotFound { watch } => write!(f, "watch {watch} is not waiting (it fired or was cancelled)"),
            StoreError::Compacted { after_revision, compacted_revision } => write!(
                f,
                "revision {after_revision} is older than the kept history (compacted up to {compacted_revision}); read the key again and watch from its current revision"
            ),
            StoreError::TooManyOps { ops, ops_max } => {
                write!(f, "the transaction has {ops} operations; at most {ops_max} are allowed")
            }
            StoreError::DuplicateKeyInTxn { key } => {
                write!(f, "the transaction writes key {key:?} more than once (two puts, or a put and a delete); write each key once")
            }
            StoreError::ClockBackwards { now_ms, to_ms } => {
                write!(f, "the clock is at {now_ms} ms and cannot move back to {to_ms} ms")
            }
            StoreError::TimeOutOfRange { to_ms, time_ms_max } => {
                write!(f, "time {to_ms} ms is past the largest time the store accepts ({time_ms_max} ms)")
            }
        }
    }
}

impl std::error::Error for StoreError {}
