//! The model side's interface: exactly the `kv::Store` calls the test makes,
//! as a trait, so that a deliberately wrong shim (see [`crate::faults`]) can
//! stand in for the store and the test can show it catches it.

use kv::{CasOutcome, Event, Expect, KeyValue, LeaseChoice, LeaseId, LeaseInfo, Store, StoreError, Txn, TxnResponse};

pub trait Model {
    fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError>;
    fn delete(&mut self, key: &str) -> Result<Option<KeyValue>, StoreError>;
    fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError>;
    fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError>;
    fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError>;
    fn grant_lease(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError>;
    fn keep_alive(&mut self, id: LeaseId) -> Result<u64, StoreError>;
    fn revoke_lease(&mut self, id: LeaseId) -> Result<u64, StoreError>;
    fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError>;
    fn revision(&self) -> u64;
    fn get(&self, key: &str) -> Option<KeyValue>;
    fn keys(&self) -> Vec<KeyValue>;
    fn lease_info(&self, id: LeaseId) -> Option<LeaseInfo>;
}

impl Model for Store {
    fn put(&mut self, key: &str, value: &str, lease: LeaseChoice) -> Result<KeyValue, StoreError> {
        Store::put(self, key, value, lease)
    }
    fn delete(&mut self, key: &str) -> Result<Option<KeyValue>, StoreError> {
        Store::delete(self, key)
    }
    fn delete_if(&mut self, key: &str, mod_revision: Option<u64>) -> Result<Option<KeyValue>, StoreError> {
        Store::delete_if(self, key, mod_revision)
    }
    fn compare_and_swap(
        &mut self,
        key: &str,
        next: &str,
        expect: &Expect,
        lease: LeaseChoice,
    ) -> Result<CasOutcome, StoreError> {
        Store::compare_and_swap(self, key, next, expect, lease)
    }
    fn txn(&mut self, txn: &Txn) -> Result<TxnResponse, StoreError> {
        Store::txn(self, txn)
    }
    fn grant_lease(&mut self, ttl_ms: u64) -> Result<LeaseId, StoreError> {
        Store::grant_lease(self, ttl_ms)
    }
    fn keep_alive(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        Store::keep_alive(self, id)
    }
    fn revoke_lease(&mut self, id: LeaseId) -> Result<u64, StoreError> {
        Store::revoke_lease(self, id)
    }
    fn advance_to(&mut self, to_ms: u64) -> Result<Vec<Event>, StoreError> {
        Store::advance_to(self, to_ms)
    }
    fn revision(&self) -> u64 {
        Store::revision(self)
    }
    fn get(&self, key: &str) -> Option<KeyValue> {
        Store::get(self, key).cloned()
    }
    fn keys(&self) -> Vec<KeyValue> {
        Store::keys(self).cloned().collect()
    }
    fn lease_info(&self, id: LeaseId) -> Option<LeaseInfo> {
        Store::lease_info(self, id)
    }
}
