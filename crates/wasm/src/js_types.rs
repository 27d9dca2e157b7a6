//! The plain objects JavaScript sees, in the lesson's camelCase vocabulary,
//! and their conversions from the `kv` types.
//!
//! Numbers cross as JS numbers (f64): every revision, time and TTL in the
//! store stays far below 2^53 because `Limits::time_ms_max` is 2^50 and a
//! revision grows by one per write, so no precision is lost.

use serde::{Deserialize, Serialize};

/// A key as JS sees it.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsRecord {
    pub key: String,
    pub value: String,
    /// Store-wide number of the key's last write (etcd: mod revision).
    pub version: u64,
    /// Per-key write counter, 1 on create (etcd: version). Not a fencing token.
    pub key_version: u64,
    /// Store-wide number of the write that created this incarnation (etcd: create revision).
    pub create_version: u64,
    /// The lease the key hangs on, if any.
    pub lease: Option<u64>,
    /// Milliseconds until the key expires, if it has a TTL.
    pub ttl_left_ms: Option<u64>,
}

impl JsRecord {
    pub fn from_kv(kv: &kv::KeyValue, ttl_left_ms: Option<u64>) -> Self {
        JsRecord {
            key: kv.key.clone(),
            value: kv.value.clone(),
            version: kv.mod_revision,
            key_version: kv.version,
            create_version: kv.create_revision,
            lease: kv.lease.map(|id| id.0),
            ttl_left_ms,
        }
    }
}

/// The answer to a compare-and-swap, shaped like the exercises' API:
/// `{ ok: true, version, record, revision }` or `{ ok: false, current, revision }`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum JsCasResult {
    Swapped {
        ok: bool,
        /// The new version: the store-wide number of this write.
        version: u64,
        record: JsRecord,
        /// The store's revision after the call.
        revision: u64,
    },
    Mismatch {
        ok: bool,
        /// What is there now (`null` for an absent key).
        current: Option<JsRecord>,
        revision: u64,
    },
}

impl JsCasResult {
    pub fn swapped(record: JsRecord, revision: u64) -> Self {
        JsCasResult::Swapped { ok: true, version: record.version, record, revision }
    }
    pub fn mismatch(current: Option<JsRecord>, revision: u64) -> Self {
        JsCasResult::Mismatch { ok: false, current, revision }
    }
}

/// What a CAS expects, as JS passes it: `{ value: "old" }`, `{ value: null }`
/// for "absent", optionally with `version` (the store-wide version).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsExpect {
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub version: Option<u64>,
}

/// Options of a write: `{ ttlMs }`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsWriteOptions {
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    #[serde(default)]
    pub lease: Option<u64>,
}

/// The answer to a delete: `{ ok, previous, revision }`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsDeleteResult {
    pub ok: bool,
    pub previous: Option<JsRecord>,
    pub revision: u64,
}

/// One change of one key.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsEvent {
    /// "put", "delete" or "expire".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub key: String,
    /// The store-wide version of the change.
    pub version: u64,
    pub at_ms: u64,
    /// The value after a put; null after a delete or expiry.
    pub value: Option<String>,
    /// The watch this event woke, if it was delivered to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<u64>,
}

impl JsEvent {
    pub fn from_event(event: &kv::Event, watch: Option<u64>) -> Self {
        JsEvent {
            kind: match event.kind {
                kv::EventKind::Put => "put",
                kv::EventKind::Delete => "delete",
                kv::EventKind::Expire => "expire",
            },
            key: event.key.clone(),
            version: event.revision,
            at_ms: event.at_ms,
            value: event.kv.as_ref().map(|kv| kv.value.clone()),
            watch,
        }
    }
}

/// Starting a watch: `{ ready: true, event }` or `{ ready: false, watch }`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsWatchStart {
    pub ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<JsEvent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<u64>,
}

/// A live lease.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsLease {
    pub id: u64,
    pub granted_ttl_ms: u64,
    pub ttl_left_ms: u64,
    pub keys: Vec<String>,
}

/// The whole visible state, for views that redraw from it.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JsSnapshot {
    pub revision: u64,
    pub now_ms: u64,
    pub keys: Vec<JsRecord>,
    pub leases: Vec<JsLease>,
    pub waiting_watchers: usize,
}
