//! `Store` in JavaScript: an opaque handle on a `kv::Store`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js_types::{
    JsCasResult, JsDeleteResult, JsEvent, JsExpect, JsLease, JsRecord, JsSnapshot, JsWatchStart, JsWriteOptions,
};

/// The simulated etcd-style store, held in Rust; JS keeps only a handle.
#[wasm_bindgen(js_name = Store)]
pub struct WasmStore {
    store: kv::Store,
}

impl Default for WasmStore {
    fn default() -> Self {
        WasmStore::new()
    }
}

/// Plain objects: `null` for missing fields, objects for maps, numbers for u64.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| JsError::new(&format!("internal error while answering JavaScript: {error}")))
}

/// Reads an optional options object; `undefined` and `null` mean "none given".
fn from_js<T: DeserializeOwned + Default>(value: JsValue, what: &str, shape: &str) -> Result<T, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|error| JsError::new(&format!("{what}: {error}; pass an object like {shape}")))
}

fn store_error(call: &str, error: kv::StoreError) -> JsError {
    JsError::new(&format!("{call}: {error}"))
}

fn lease_choice(options: &JsWriteOptions) -> Result<kv::LeaseChoice, JsError> {
    match (options.ttl_ms, options.lease) {
        (Some(_), Some(_)) => Err(JsError::new("give either ttlMs or lease, not both")),
        (Some(ttl_ms), None) => Ok(kv::LeaseChoice::Ttl(ttl_ms)),
        (None, Some(id)) => Ok(kv::LeaseChoice::Lease(kv::LeaseId(id))),
        (None, None) => Ok(kv::LeaseChoice::None),
    }
}

impl WasmStore {
    fn record(&self, kv: &kv::KeyValue) -> JsRecord {
        JsRecord::from_kv(kv, self.store.key_ttl_remaining_ms(&kv.key))
    }

    fn record_of(&self, key: &str) -> Option<JsRecord> {
        self.store.get(key).map(|kv| self.record(kv))
    }

    fn cas(
        &mut self,
        key: &str,
        next_value: &str,
        expect: &JsExpect,
        options: &JsWriteOptions,
    ) -> Result<JsCasResult, JsError> {
        let mut wanted = match &expect.value {
            None => kv::Expect::absent(),
            Some(value) => kv::Expect::value(value.clone()),
        };
        if let Some(version) = expect.version {
            wanted = wanted.with_mod_revision(version);
        }
        let outcome = self
            .store
            .compare_and_swap(key, next_value, &wanted, lease_choice(options)?)
            .map_err(|error| store_error("compareAndSwap", error))?;
        let revision = self.store.revision();
        Ok(match outcome {
            kv::CasOutcome::Swapped { kv } => JsCasResult::swapped(self.record(&kv), revision),
            kv::CasOutcome::Mismatch { current } => {
                JsCasResult::mismatch(current.as_ref().map(|kv| self.record(kv)), revision)
            }
        })
    }
}

#[wasm_bindgen(js_class = Store)]
impl WasmStore {
    /// An empty store at revision 1 and time 0.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmStore {
        WasmStore { store: kv::Store::new() }
    }

    /// The store-wide revision: 1 when empty, +1 per write that changed something.
    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> f64 {
        self.store.revision() as f64
    }

    /// The store's virtual time in milliseconds.
    #[wasm_bindgen(getter, js_name = nowMs)]
    pub fn now_ms(&self) -> f64 {
        self.store.now_ms() as f64
    }

    /// `{ key, value, version, keyVersion, createVersion, lease, ttlLeftMs }` or `null`.
    pub fn get(&self, key: &str) -> Result<JsValue, JsError> {
        to_js(&self.record_of(key))
    }

    /// Writes `nextValue` if the key matches `expect`:
    /// `{ value: null }` (absent) or `{ value: "old" }`, optionally with `version`.
    /// `options`: `{ ttlMs }` or `{ lease }`.
    #[wasm_bindgen(js_name = compareAndSwap)]
    pub fn compare_and_swap(
        &mut self,
        key: &str,
        next_value: &str,
        expect: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsError> {
        let expect: JsExpect =
            from_js(expect, "compareAndSwap's expectation", "{ value: null } or { value: \"old\", version: 7 }")?;
        let options: JsWriteOptions = from_js(options, "compareAndSwap's options", "{ ttlMs: 2000 }")?;
        to_js(&self.cas(key, next_value, &expect, &options)?)
    }

    /// Writes unconditionally. `options`: `{ ttlMs }` or `{ lease }`.
    pub fn put(&mut self, key: &str, value: &str, options: JsValue) -> Result<JsValue, JsError> {
        let options: JsWriteOptions = from_js(options, "put's options", "{ ttlMs: 2000 }")?;
        let kv = self.store.put(key, value, lease_choice(&options)?).map_err(|error| store_error("put", error))?;
        to_js(&self.record(&kv))
    }

    /// Deletes the key if it exists and, when `version` is given, was last
    /// written at that version. `{ ok, previous, revision }`.
    pub fn delete(&mut self, key: &str, version: Option<f64>) -> Result<JsValue, JsError> {
        let version = version.map(|v| whole_number("delete's version", v)).transpose()?;
        let previous = self.store.delete_if(key, version).map_err(|error| store_error("delete", error))?;
        let previous = previous.map(|kv| JsRecord::from_kv(&kv, None));
        to_js(&JsDeleteResult { ok: previous.is_some(), previous, revision: self.store.revision() })
    }

    /// Moves the virtual clock forward; returns the expiry events, oldest first.
    #[wasm_bindgen(js_name = advanceBy)]
    pub fn advance_by(&mut self, delta_ms: f64) -> Result<JsValue, JsError> {
        let delta_ms = whole_number("advanceBy's milliseconds", delta_ms)?;
        let events = self.store.advance_by(delta_ms).map_err(|error| store_error("advanceBy", error))?;
        to_js(&events.iter().map(|event| JsEvent::from_event(event, None)).collect::<Vec<_>>())
    }

    /// Starts a watch for the first change of `key` after `afterVersion`.
    pub fn watch(&mut self, key: &str, after_version: f64) -> Result<JsValue, JsError> {
        let after_version = whole_number("watch's afterVersion", after_version)?;
        let start = self.store.watch(key, after_version).map_err(|error| store_error("watch", error))?;
        to_js(&match start {
            kv::WatchStart::Ready { event } => {
                JsWatchStart { ready: true, event: Some(JsEvent::from_event(&event, None)), watch: None }
            }
            kv::WatchStart::Waiting { watch } => JsWatchStart { ready: false, event: None, watch: Some(watch.0) },
        })
    }

    /// Stops a waiting watch; false if it had already fired or been cancelled.
    #[wasm_bindgen(js_name = cancelWatch)]
    pub fn cancel_watch(&mut self, watch: f64) -> Result<bool, JsError> {
        Ok(self.store.cancel_watch(kv::WatchId(whole_number("cancelWatch's id", watch)?)))
    }

    /// The watches that fired since the last call, in version order, each
    /// event carrying the `watch` it woke.
    #[wasm_bindgen(js_name = takeFired)]
    pub fn take_fired(&mut self) -> Result<JsValue, JsError> {
        let fired = self.store.take_fired();
        to_js(&fired.iter().map(|(id, event)| JsEvent::from_event(event, Some(id.0))).collect::<Vec<_>>())
    }

    /// Grants a lease of `ttlMs`; returns its id.
    #[wasm_bindgen(js_name = grantLease)]
    pub fn grant_lease(&mut self, ttl_ms: f64) -> Result<f64, JsError> {
        let ttl_ms = whole_number("grantLease's ttlMs", ttl_ms)?;
        let id = self.store.grant_lease(ttl_ms).map_err(|error| store_error("grantLease", error))?;
        Ok(id.0 as f64)
    }

    /// Restarts a lease's TTL from now; returns the TTL.
    #[wasm_bindgen(js_name = keepAlive)]
    pub fn keep_alive(&mut self, lease: f64) -> Result<f64, JsError> {
        let ttl_ms = self
            .store
            .keep_alive(kv::LeaseId(whole_number("keepAlive's lease", lease)?))
            .map_err(|error| store_error("keepAlive", error))?;
        Ok(ttl_ms as f64)
    }

    /// Revokes a lease, deleting its keys in one revision.
    #[wasm_bindgen(js_name = revokeLease)]
    pub fn revoke_lease(&mut self, lease: f64) -> Result<f64, JsError> {
        let revision = self
            .store
            .revoke_lease(kv::LeaseId(whole_number("revokeLease's lease", lease)?))
            .map_err(|error| store_error("revokeLease", error))?;
        Ok(revision as f64)
    }

    /// Everything a view needs, in one call:
    /// `{ revision, nowMs, keys: [record…], leases: [...], waitingWatchers }`.
    pub fn snapshot(&self) -> Result<JsValue, JsError> {
        to_js(&self.snapshot_value())
    }
}

impl WasmStore {
    fn snapshot_value(&self) -> JsSnapshot {
        JsSnapshot {
            revision: self.store.revision(),
            now_ms: self.store.now_ms(),
            keys: self.store.keys().map(|kv| self.record(kv)).collect(),
            leases: self
                .store
                .leases()
                .into_iter()
                .map(|lease| JsLease {
                    id: lease.id.0,
                    granted_ttl_ms: lease.granted_ttl_ms,
                    ttl_left_ms: lease.remaining_ms,
                    keys: lease.keys,
                })
                .collect(),
            waiting_watchers: self.store.waiting_watchers(),
        }
    }
}

/// JS numbers are f64: refuse fractions, negatives and NaN with a clear message.
fn whole_number(what: &str, value: f64) -> Result<u64, JsError> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
        Ok(value as u64)
    } else {
        Err(JsError::new(&format!("{what} must be a whole number of 0 or more, got {value}")))
    }
}
