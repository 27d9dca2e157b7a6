//! The store API as a process sees it: calls, replies and records, in the
//! lesson's vocabulary (`version` is store-wide, `keyVersion` per key).

use serde::{Deserialize, Serialize};

/// A key as a process reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub value: String,
    /// The store-wide version of the key's last write (etcd: mod revision).
    pub version: u64,
    /// The per-key write counter that restarts at 1 (etcd: version).
    pub key_version: u64,
}

impl Record {
    pub fn from_kv(kv: &kv::KeyValue) -> Record {
        Record { value: kv.value.clone(), version: kv.mod_revision, key_version: kv.version }
    }
}

/// A key as a prefix read lists it: its name, its record, and the version
/// that created it (etcd: create revision), which orders a queue of keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub key: String,
    pub value: String,
    /// The store-wide version of the key's last write (etcd: mod revision).
    pub version: u64,
    pub key_version: u64,
    /// The store-wide version of the write that created this incarnation of
    /// the key (etcd: create revision). A rewrite keeps it; a key deleted
    /// and created again gets a new one.
    pub create_version: u64,
}

impl Listed {
    pub fn from_kv(kv: &kv::KeyValue) -> Listed {
        Listed {
            key: kv.key.clone(),
            value: kv.value.clone(),
            version: kv.mod_revision,
            key_version: kv.version,
            create_version: kv.create_revision,
        }
    }
}

/// One call a process makes and then waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Call {
    Get {
        key: String,
    },
    /// `compareAndSwap(key, nextValue, currentValue, { version, ttlMs })`.
    #[serde(rename_all = "camelCase")]
    Cas {
        key: String,
        next_value: String,
        /// `None`: expect the key to be absent.
        current_value: Option<String>,
        version: Option<u64>,
        ttl_ms: Option<u64>,
    },
    Delete {
        key: String,
        version: Option<u64>,
    },
    #[serde(rename_all = "camelCase")]
    Watch {
        key: String,
        after_version: u64,
    },
    /// `list(prefix)`: every key that starts with `prefix`, oldest first.
    List {
        prefix: String,
    },
    /// Sleep `ms` of the process's own clock. Handled locally, no network.
    Sleep {
        ms: u64,
    },
}

impl Call {
    /// Store calls travel over the simulated network; sleeps do not.
    pub fn is_store_call(&self) -> bool {
        !matches!(self, Call::Sleep { .. })
    }

    /// A short, readable form for timelines: `cas("lock", "p1", null, {ttlMs: 1000})`.
    pub fn describe(&self) -> String {
        fn quoted(value: &Option<String>) -> String {
            value.as_ref().map_or("null".into(), |value| format!("{value:?}"))
        }
        match self {
            Call::Get { key } => format!("get({key:?})"),
            Call::Cas { key, next_value, current_value, version, ttl_ms } => {
                let mut options = Vec::new();
                if let Some(version) = version {
                    options.push(format!("version: {version}"));
                }
                if let Some(ttl_ms) = ttl_ms {
                    options.push(format!("ttlMs: {ttl_ms}"));
                }
                let options =
                    if options.is_empty() { String::new() } else { format!(", {{ {} }}", options.join(", ")) };
                format!("compareAndSwap({key:?}, {next_value:?}, {}{options})", quoted(current_value))
            }
            Call::Delete { key, version: Some(version) } => format!("delete({key:?}, {{ version: {version} }})"),
            Call::Delete { key, version: None } => format!("delete({key:?})"),
            Call::Watch { key, after_version } => format!("watch({key:?}, {after_version})"),
            Call::List { prefix } => format!("list({prefix:?})"),
            Call::Sleep { ms } => format!("sleep({ms})"),
        }
    }
}

/// A change of a key, as `watch` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchEvent {
    /// "put", "delete" or "expire".
    #[serde(rename = "type")]
    pub kind: String,
    pub key: String,
    pub value: Option<String>,
    pub version: u64,
}

impl WatchEvent {
    pub fn from_kv(event: &kv::Event) -> WatchEvent {
        WatchEvent {
            kind: match event.kind {
                kv::EventKind::Put => "put",
                kv::EventKind::Delete => "delete",
                kv::EventKind::Expire => "expire",
            }
            .to_string(),
            key: event.key.clone(),
            value: event.kv.as_ref().map(|kv| kv.value.clone()),
            version: event.revision,
        }
    }
}

/// What a call resolves to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "camelCase")]
pub enum Reply {
    Get {
        record: Option<Record>,
    },
    Cas {
        ok: bool,
        version: Option<u64>,
        current: Option<Record>,
    },
    Delete {
        ok: bool,
    },
    Watch {
        event: WatchEvent,
    },
    /// The keys under a prefix, oldest first, and the store's version when
    /// they were read (etcd: the header's revision).
    List {
        version: u64,
        records: Vec<Listed>,
    },
    Slept,
    /// The store refused the call (bad input or a limit); the caller's
    /// promise rejects with this message.
    Refused {
        message: String,
    },
}

impl Reply {
    pub fn describe(&self) -> String {
        fn record(record: &Option<Record>) -> String {
            record.as_ref().map_or("null".into(), |record| {
                format!(
                    "{{ value: {:?}, version: {}, keyVersion: {} }}",
                    record.value, record.version, record.key_version
                )
            })
        }
        match self {
            Reply::Get { record: value } => record(value),
            Reply::Cas { ok: true, version, .. } => format!("{{ ok: true, version: {} }}", version.unwrap_or(0)),
            Reply::Cas { current, .. } => format!("{{ ok: false, current: {} }}", record(current)),
            Reply::Delete { ok } => format!("{{ ok: {ok} }}"),
            Reply::Watch { event } => format!("{{ type: {:?}, version: {} }}", event.kind, event.version),
            Reply::List { version, records } => {
                let keys: Vec<String> = records
                    .iter()
                    .map(|record| format!("{:?} created {}", record.key, record.create_version))
                    .collect();
                format!("{{ version: {version}, records: [{}] }}", keys.join(", "))
            }
            Reply::Slept => "woke up".into(),
            Reply::Refused { message } => format!("error: {message}"),
        }
    }
}
