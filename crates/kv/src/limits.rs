//! A limit on everything the store holds, so that no input can make it grow
//! without bound. Hitting a limit is a named [`crate::StoreError`].

/// The store's capacity limits. [`Limits::default`] suits the lesson.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    pub keys_max: usize,
    pub key_bytes_max: usize,
    pub value_bytes_max: usize,
    pub ttl_ms_min: u64,
    pub ttl_ms_max: u64,
    pub leases_max: usize,
    pub watchers_max: usize,
    pub txn_ops_max: usize,
    /// How many change events are kept for watches that start in the past.
    pub history_events_max: usize,
    /// The most bytes (keys and values together) one read of a prefix returns.
    pub range_bytes_max: usize,
    /// The largest virtual time, so that `now + ttl` can never overflow.
    pub time_ms_max: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            keys_max: 1_000,
            key_bytes_max: 256,
            value_bytes_max: 4_096,
            ttl_ms_min: 1,
            ttl_ms_max: 86_400_000,
            leases_max: 1_000,
            watchers_max: 1_000,
            txn_ops_max: 16,
            history_events_max: 4_096,
            range_bytes_max: 4_096,
            time_ms_max: 1 << 50,
        }
    }
}
