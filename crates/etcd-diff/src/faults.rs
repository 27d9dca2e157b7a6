//! Deliberately wrong models: `kv::Store` behind a shim that breaks one rule.
//! The differential test must catch each of them against the real etcd and
//! shrink the evidence to a few operations; that is the test of the test.

use kv::{
    CasOutcome, Event, Expect, KeyValue, LeaseChoice, LeaseId, LeaseInfo, OpResponse, Store, StoreError, Txn,
    TxnResponse,
};

use crate::model::Model;

/// Reports each key's per-key version where its mod revision belongs (the
/// lesson's classic fencing mistake, made by the store itself).
#[derive(Default)]
pub struct VersionAsModRevision(pub Store);

fn version_as_mod(mut kv: KeyValue) -> KeyValue {
    kv.mod_revision = kv.version;
    kv
}

fn version_as_mod_opt(kv: Option<KeyValue>) -> Option<KeyValue> {
    kv.map(version_as_mod)
}

impl Model for VersionAsModRevision {
    fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError> {
        self.0.put(key, value, lease).map(version_as_mod)
    }
    fn delete(&mut self, key: &str) -> Result<Option<KeyValue>, StoreError> {
        self.0.delete(key).map(version_as_mod_opt)
    }
    fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError> {
        self.0.delete_if(key, mod_revision).map(version_as_mod_opt)
    }
    fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError> {
        Ok(match self.0.compare_and_swap(key, next, expect, lease)? {
            CasOutcome::Swapped { kv } => CasOutcome::Swapped { kv: version_as_mod(kv) },
            CasOutcome::Mismatch { current } => CasOutcome::Mismatch { current: version_as_mod_opt(current) },
        })
    }
    fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError> {
        let mut response = self.0.txn(txn)?;
        for op in &mut response.responses {
            *op = match std::mem::replace(op, OpResponse::Get { kv: None }) {
                OpResponse::Get { kv } => OpResponse::Get { kv: version_as_mod_opt(kv) },
                OpResponse::Put { prev } => OpResponse::Put { prev: version_as_mod_opt(prev) },
                OpResponse::Delete { deleted, prev } => OpResponse::Delete { deleted, prev: version_as_mod_opt(prev) },
            };
        }
        Ok(response)
    }
    fn grant_lease(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError> {
        self.0.grant_lease(ttl_ms)
    }
    fn keep_alive(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        self.0.keep_alive(id)
    }
    fn revoke_lease(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        self.0.revoke_lease(id)
    }
    fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError> {
        self.0.advance_to(to_ms)
    }
    fn revision(&self) -> u64 {
        self.0.revision()
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        self.0.get(key).cloned().map(version_as_mod)
    }
    fn keys(&self) -> Vec<KeyValue> {
        self.0.keys().cloned().map(version_as_mod).collect()
    }
    fn lease_info(&self, id: LeaseId) -> Option<LeaseInfo> {
        self.0.lease_info(id)
    }
}

/// Bumps the store-wide revision on a transaction whose compares failed
/// (the rule says reads and failed compares never bump it). The shim only
/// inflates the revisions it reports, not the keys' create and mod
/// revisions: the store-wide revision is where the rule shows first.
#[derive(Default)]
pub struct BumpOnFailedTxn {
    inner: Store,
    /// Revisions added by failed transactions so far.
    extra: u64,
}

impl Model for BumpOnFailedTxn {
    fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError> {
        self.inner.put(key, value, lease)
    }
    fn delete(&mut self, key: &str) -> Result<Option<KeyValue>, StoreError> {
        self.inner.delete(key)
    }
    fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError> {
        let deleted = self.inner.delete_if(key, mod_revision)?;
        if deleted.is_none() {
            self.extra += 1;
        }
        Ok(deleted)
    }
    fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError> {
        let outcome = self.inner.compare_and_swap(key, next, expect, lease)?;
        if matches!(outcome, CasOutcome::Mismatch { .. }) {
            self.extra += 1;
        }
        Ok(outcome)
    }
    fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError> {
        let mut response = self.inner.txn(txn)?;
        if !response.succeeded {
            self.extra += 1;
        }
        response.revision += self.extra;
        Ok(response)
    }
    fn grant_lease(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError> {
        self.inner.grant_lease(ttl_ms)
    }
    fn keep_alive(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        self.inner.keep_alive(id)
    }
    fn revoke_lease(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        Ok(self.inner.revoke_lease(id)? + self.extra)
    }
    fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError> {
        self.inner.advance_to(to_ms)
    }
    fn revision(&self) -> u64 {
        self.inner.revision() + self.extra
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        self.inner.get(key).cloned()
    }
    fn keys(&self) -> Vec<KeyValue> {
        self.inner.keys().cloned().collect()
    }
    fn lease_info(&self, id: LeaseId) -> Option<LeaseInfo> {
        self.inner.lease_info(id)
    }
}
