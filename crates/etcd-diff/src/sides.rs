//! The two sides of the comparison. Each applies an [`Op`] its own way and
//! reports the answer in the shared form of [`crate::answer`].

use kv::{
    CasOutcome, Compare, CompareOp, CompareTarget, Expect, KeyValue, LeaseChoice, LeaseId, OpResponse, StoreError, Txn,
    TxnOp,
};
use serde_json::{json, Map, Value};

use crate::answer::{Answer, Kv, LeaseState, LeaseTag, OpAnswer, Refused, State};
use crate::etcd::{b64, int, unb64, Etcd, Refusal};
use crate::model::Model;
use crate::ops::{key_name, BranchOp, Cmp, LeaseRef, Op, Rev, Target};

/// What both sides can do with a sequence.
pub trait Side {
    fn apply(&mut self, op: &Op) -> Answer;
    /// Every key of the sequence and the revision.
    fn state(&mut self) -> State;
    /// The sequence's leases that are still alive.
    fn leases(&mut self) -> Vec<LeaseState>;
}

/// A lease id that kv never hands out in a test (its ids count from 1).
const KV_NEVER_GRANTED: u64 = 1 << 40;
/// A lease id that etcd is vanishingly unlikely to hand out.
const ETCD_NEVER_GRANTED: i64 = 0x0bad_1ea5_e000_0001;

// ----- the model ----------------------------------------------------------

/// The model side: a fresh store (or a shim around one), revisions counted
/// from its starting revision 1.
pub struct KvSide<M: Model> {
    pub model: M,
    slots: Vec<LeaseId>,
}

impl<M: Model> KvSide<M> {
    pub fn new(model: M) -> Self {
        KvSide { model, slots: Vec::new() }
    }

    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    pub fn slot_id(&self, slot: usize) -> Option<LeaseId> {
        self.slots.get(slot).copied()
    }

    /// The key's current value in the shared form (the generator reads it).
    pub fn current(&self, key: usize) -> Option<Kv> {
        self.model.get(&key_name(key)).map(|kv| self.normalize(&kv))
    }

    pub fn revision_delta(&self) -> i64 {
        self.model.revision() as i64 - 1
    }

    fn rev(&self, rev: Rev) -> u64 {
        if rev.0 == 0 {
            0
        } else {
            1 + rev.0
        }
    }

    fn lease_id(&self, lease: LeaseRef) -> Option<LeaseId> {
        match lease {
            LeaseRef::None => None,
            LeaseRef::Slot(slot) => Some(self.slots.get(slot).copied().unwrap_or(LeaseId(KV_NEVER_GRANTED))),
        }
    }

    fn lease_choice(&self, lease: LeaseRef) -> LeaseChoice {
        self.lease_id(lease).map_or(LeaseChoice::None, LeaseChoice::Lease)
    }

    pub fn normalize(&self, kv: &KeyValue) -> Kv {
        let lease = match kv.lease {
            None => LeaseTag::None,
            Some(id) => match self.slots.iter().position(|slot| *slot == id) {
                Some(slot) => LeaseTag::Slot(slot),
                None => LeaseTag::Unknown(id.0 as i64),
            },
        };
        Kv {
            key: kv.key.clone(),
            value: kv.value.clone(),
            create: kv.create_revision as i64 - 1,
            modified: kv.mod_revision as i64 - 1,
            version: kv.version as i64,
            lease,
        }
    }

    fn normalize_opt(&self, kv: Option<&KeyValue>) -> Option<Kv> {
        kv.map(|kv| self.normalize(kv))
    }

    fn branch(&self, ops: &[BranchOp]) -> Vec<TxnOp> {
        ops.iter()
            .map(|op| match op {
                BranchOp::Get(key) => TxnOp::get(key_name(*key)),
                BranchOp::Put(key, value, lease) => {
                    TxnOp::put(key_name(*key), value.clone(), self.lease_choice(*lease))
                }
                BranchOp::Delete(key) => TxnOp::delete(key_name(*key)),
            })
            .collect()
    }

    fn compare(&self, cmp: &Cmp) -> Compare {
        let target = match &cmp.target {
            Target::Value(value) => CompareTarget::Value(value.clone()),
            Target::Version(version) => CompareTarget::Version(*version),
            Target::Create(rev) => CompareTarget::CreateRevision(self.rev(*rev)),
            Target::Mod(rev) => CompareTarget::ModRevision(self.rev(*rev)),
            Target::Lease(lease) => CompareTarget::Lease(self.lease_id(*lease)),
        };
        Compare::new(key_name(cmp.key), cmp.op, target)
    }

    fn responses(&self, responses: &[OpResponse]) -> Vec<OpAnswer> {
        responses
            .iter()
            .map(|response| match response {
                OpResponse::Get { kv } => OpAnswer::Get { kv: self.normalize_opt(kv.as_ref()) },
                OpResponse::Put { prev } => OpAnswer::Put { prev: self.normalize_opt(prev.as_ref()) },
                OpResponse::Delete { deleted, prev } => {
                    OpAnswer::Delete { deleted: *deleted as i64, prev: self.normalize_opt(prev.as_ref()) }
                }
            })
            .collect()
    }

    fn try_apply(&mut self, op: &Op) -> Result<Answer, StoreError> {
        Ok(match op {
            Op::Put { key, value, lease } => {
                let kv = self.model.put(&key_name(*key), value, self.lease_choice(*lease))?;
                Answer::Put { revision: self.revision_delta(), kv: Some(self.normalize(&kv)) }
            }
            Op::PutPrev { key, value, lease } => {
                let txn = Txn {
                    compares: vec![],
                    success: vec![TxnOp::put(key_name(*key), value.clone(), self.lease_choice(*lease))],
                    failure: vec![],
                };
                let response = self.model.txn(&txn)?;
                let prev = match response.responses.first() {
                    Some(OpResponse::Put { prev }) => self.normalize_opt(prev.as_ref()),
                    other => panic!("kv answered a put with {other:?}"),
                };
                Answer::PutPrev { revision: response.revision as i64 - 1, prev }
            }
            Op::Get { key } => Answer::Get { kv: self.current(*key) },
            Op::Delete { key } => {
                let prev = self.model.delete(&key_name(*key))?;
                Answer::Delete { revision: self.revision_delta(), prev: self.normalize_opt(prev.as_ref()) }
            }
            Op::DeleteIf { key, mod_revision } => {
                let deleted = self.model.delete_if(&key_name(*key), mod_revision.map(|rev| self.rev(rev)))?;
                Answer::DeleteIf { revision: self.revision_delta(), deleted: self.normalize_opt(deleted.as_ref()) }
            }
            Op::Cas { key, expect_value, expect_mod, next, lease } => {
                let expect = Expect { value: expect_value.clone(), mod_revision: expect_mod.map(|rev| self.rev(rev)) };
                let outcome = self.model.compare_and_swap(&key_name(*key), next, &expect, self.lease_choice(*lease))?;
                let (swapped, kv) = match outcome {
                    CasOutcome::Swapped { kv } => (true, Some(self.normalize(&kv))),
                    CasOutcome::Mismatch { current } => (false, self.normalize_opt(current.as_ref())),
                };
                Answer::Cas { revision: self.revision_delta(), swapped, kv }
            }
            Op::Txn { compares, success, failure } => {
                let txn = Txn {
                    compares: compares.iter().map(|cmp| self.compare(cmp)).collect(),
                    success: self.branch(success),
                    failure: self.branch(failure),
                };
                let response = self.model.txn(&txn)?;
                Answer::Txn {
                    revision: response.revision as i64 - 1,
                    succeeded: response.succeeded,
                    responses: self.responses(&response.responses),
                }
            }
            Op::Grant { ttl_s } => {
                let id = self.model.grant_lease(ttl_s * 1000)?;
                self.slots.push(id);
                let info = self.model.lease_info(id).expect("a lease just granted is alive");
                Answer::Grant { ttl_ms: info.granted_ttl_ms as i64 }
            }
            Op::KeepAlive { slot } => {
                let id = self.lease_id(LeaseRef::Slot(*slot)).expect("a slot names a lease");
                Answer::KeepAlive { ttl_ms: self.model.keep_alive(id)? as i64 }
            }
            Op::Revoke { slot } => {
                let id = self.lease_id(LeaseRef::Slot(*slot)).expect("a slot names a lease");
                Answer::Revoke { revision: self.model.revoke_lease(id)? as i64 - 1 }
            }
        })
    }
}

fn refused_kv(error: StoreError) -> Refused {
    match error {
        StoreError::LeaseNotFound { .. } => Refused::LeaseNotFound,
        StoreError::DuplicateKeyInTxn { .. } => Refused::DuplicateKeyInTxn,
        other => Refused::Other(other.to_string()),
    }
}

impl<M: Model> Side for KvSide<M> {
    fn apply(&mut self, op: &Op) -> Answer {
        self.try_apply(op).unwrap_or_else(|error| Answer::Refused(refused_kv(error)))
    }

    fn state(&mut self) -> State {
        let keys = self.model.keys().iter().map(|kv| self.normalize(kv)).collect();
        State { revision: self.revision_delta(), keys }
    }

    fn leases(&mut self) -> Vec<LeaseState> {
        (0..self.slots.len())
            .filter_map(|slot| {
                let info = self.model.lease_info(self.slots[slot])?;
                let mut keys = info.keys.clone();
                keys.sort();
                Some(LeaseState {
                    slot,
                    granted_ttl_ms: info.granted_ttl_ms as i64,
                    keys,
                    remaining_plausible: info.remaining_ms <= info.granted_ttl_ms
                        && info.remaining_ms + 2000 >= info.granted_ttl_ms,
                })
            })
            .collect()
    }
}

// ----- etcd ---------------------------------------------------------------

/// The etcd side: keys under the sequence's own prefix, revisions counted
/// from the revision etcd had when the sequence started.
pub struct EtcdSide<'a> {
    etcd: &'a Etcd,
    prefix: String,
    base: i64,
    slots: Vec<i64>,
}

fn compare_op_name(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Equal => "EQUAL",
        CompareOp::NotEqual => "NOT_EQUAL",
        CompareOp::Greater => "GREATER",
        CompareOp::Less => "LESS",
    }
}

fn refused_etcd(refusal: Refusal) -> Refused {
    if refusal.message.contains("requested lease not found") {
        Refused::LeaseNotFound
    } else if refusal.message.contains("duplicate key given in txn request") {
        Refused::DuplicateKeyInTxn
    } else {
        Refused::Other(format!("HTTP {}: {}", refusal.status, refusal.message))
    }
}

/// The end of a prefix range: the prefix with its last byte incremented.
fn prefix_end(prefix: &str) -> String {
    let mut bytes = prefix.as_bytes().to_vec();
    let last = bytes.last_mut().expect("a non-empty prefix");
    *last += 1;
    String::from_utf8(bytes).expect("an ASCII prefix")
}

impl<'a> EtcdSide<'a> {
    /// Starts a sequence under `prefix` (which must be fresh), taking etcd's
    /// current revision as its base.
    pub fn new(etcd: &'a Etcd, prefix: String) -> Self {
        assert!(prefix.ends_with('/'), "prefixes end with /");
        let base = etcd.revision();
        EtcdSide { etcd, prefix, base, slots: Vec::new() }
    }

    pub fn base(&self) -> i64 {
        self.base
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn slot_id(&self, slot: usize) -> Option<i64> {
        self.slots.get(slot).copied()
    }

    pub fn full_key(&self, key: usize) -> String {
        format!("{}{}", self.prefix, key_name(key))
    }

    fn key(&self, key: usize) -> String {
        b64(&self.full_key(key))
    }

    fn rev(&self, rev: Rev) -> String {
        if rev.0 == 0 {
            "0".into()
        } else {
            (self.base + rev.0 as i64).to_string()
        }
    }

    fn lease_id(&self, lease: LeaseRef) -> i64 {
        match lease {
            LeaseRef::None => 0,
            LeaseRef::Slot(slot) => self.slots.get(slot).copied().unwrap_or(ETCD_NEVER_GRANTED),
        }
    }

    pub fn delta(&self, revision: &Value) -> i64 {
        int(revision) - self.base
    }

    /// One key as etcd sent it, in the shared form.
    pub fn normalize(&self, kv: &Value) -> Kv {
        let full = unb64(&kv["key"]);
        let key = full
            .strip_prefix(&self.prefix)
            .unwrap_or_else(|| panic!("etcd answered key {full:?} outside prefix {}", self.prefix))
            .to_string();
        let lease = match int(&kv["lease"]) {
            0 => LeaseTag::None,
            id => match self.slots.iter().position(|slot| *slot == id) {
                Some(slot) => LeaseTag::Slot(slot),
                None => LeaseTag::Unknown(id),
            },
        };
        Kv {
            key,
            value: unb64(&kv["value"]),
            create: int(&kv["create_revision"]) - self.base,
            modified: int(&kv["mod_revision"]) - self.base,
            version: int(&kv["version"]),
            lease,
        }
    }

    /// The first key of a list field (`kvs`, `prev_kvs`), if any.
    fn first(&self, list: &Value) -> Option<Kv> {
        list.as_array().and_then(|list| list.first()).map(|kv| self.normalize(kv))
    }

    fn put_body(&self, key: usize, value: &str, lease: LeaseRef, prev_kv: bool) -> Value {
        let mut body = Map::new();
        body.insert("key".into(), json!(self.key(key)));
        body.insert("value".into(), json!(b64(value)));
        let lease = self.lease_id(lease);
        if lease != 0 {
            body.insert("lease".into(), json!(lease.to_string()));
        }
        if prev_kv {
            body.insert("prev_kv".into(), json!(true));
        }
        Value::Object(body)
    }

    fn branch_op(&self, op: &BranchOp) -> Value {
        match op {
            BranchOp::Get(key) => json!({ "request_range": { "key": self.key(*key) } }),
            BranchOp::Put(key, value, lease) => json!({ "request_put": self.put_body(*key, value, *lease, true) }),
            BranchOp::Delete(key) => json!({ "request_delete_range": { "key": self.key(*key), "prev_kv": true } }),
        }
    }

    fn compare(&self, cmp: &Cmp) -> Value {
        let mut body = Map::new();
        body.insert("key".into(), json!(self.key(cmp.key)));
        body.insert("result".into(), json!(compare_op_name(cmp.op)));
        let (target, field, operand) = match &cmp.target {
            Target::Value(value) => ("VALUE", "value", json!(b64(value))),
            Target::Version(version) => ("VERSION", "version", json!(version.to_string())),
            Target::Create(rev) => ("CREATE", "create_revision", json!(self.rev(*rev))),
            Target::Mod(rev) => ("MOD", "mod_revision", json!(self.rev(*rev))),
            Target::Lease(lease) => ("LEASE", "lease", json!(self.lease_id(*lease).to_string())),
        };
        body.insert("target".into(), json!(target));
        body.insert(field.into(), operand);
        Value::Object(body)
    }

    fn txn(&self, compares: Vec<Value>, success: Vec<Value>, failure: Vec<Value>) -> Result<Value, Refusal> {
        self.etcd.call("/v3/kv/txn", json!({ "compare": compares, "success": success, "failure": failure }))
    }

    fn range(&self, key: usize) -> Option<Kv> {
        let answer = self.etcd.call("/v3/kv/range", json!({ "key": self.key(key) })).expect("a range is never refused");
        self.first(&answer["kvs"])
    }

    fn responses(&self, ops: &[BranchOp], answer: &Value) -> Vec<OpAnswer> {
        let responses = answer["responses"].as_array().cloned().unwrap_or_default();
        assert_eq!(responses.len(), ops.len(), "etcd answered {} responses for {} ops", responses.len(), ops.len());
        ops.iter()
            .zip(&responses)
            .map(|(op, response)| match op {
                BranchOp::Get(_) => OpAnswer::Get { kv: self.first(&response["response_range"]["kvs"]) },
                BranchOp::Put(..) => {
                    let prev = &response["response_put"]["prev_kv"];
                    OpAnswer::Put { prev: prev.is_object().then(|| self.normalize(prev)) }
                }
                BranchOp::Delete(_) => {
                    let delete = &response["response_delete_range"];
                    OpAnswer::Delete { deleted: int(&delete["deleted"]), prev: self.first(&delete["prev_kvs"]) }
                }
            })
            .collect()
    }

    fn try_apply(&mut self, op: &Op) -> Result<Answer, Refusal> {
        Ok(match op {
            Op::Put { key, value, lease } => {
                let answer = self.etcd.call("/v3/kv/put", self.put_body(*key, value, *lease, false))?;
                Answer::Put { revision: self.delta(&answer["header"]["revision"]), kv: self.range(*key) }
            }
            Op::PutPrev { key, value, lease } => {
                let answer = self.etcd.call("/v3/kv/put", self.put_body(*key, value, *lease, true))?;
                let prev = &answer["prev_kv"];
                Answer::PutPrev {
                    revision: self.delta(&answer["header"]["revision"]),
                    prev: prev.is_object().then(|| self.normalize(prev)),
                }
            }
            Op::Get { key } => Answer::Get { kv: self.range(*key) },
            Op::Delete { key } => {
                let answer = self.etcd.call("/v3/kv/deleterange", json!({ "key": self.key(*key), "prev_kv": true }))?;
                Answer::Delete {
                    revision: self.delta(&answer["header"]["revision"]),
                    prev: self.first(&answer["prev_kvs"]),
                }
            }
            Op::DeleteIf { key, mod_revision } => {
                let mut compares =
                    vec![self.compare(&Cmp { key: *key, op: CompareOp::Greater, target: Target::Create(Rev(0)) })];
                if let Some(rev) = mod_revision {
                    compares.push(self.compare(&Cmp { key: *key, op: CompareOp::Equal, target: Target::Mod(*rev) }));
                }
                let delete = self.branch_op(&BranchOp::Delete(*key));
                let answer = self.txn(compares, vec![delete], vec![])?;
                let deleted = if answer["succeeded"].as_bool().unwrap_or(false) {
                    self.first(&answer["responses"][0]["response_delete_range"]["prev_kvs"])
                } else {
                    None
                };
                Answer::DeleteIf { revision: self.delta(&answer["header"]["revision"]), deleted }
            }
            Op::Cas { key, expect_value, expect_mod, next, lease } => {
                let mut compares = vec![match expect_value {
                    Some(value) => {
                        self.compare(&Cmp { key: *key, op: CompareOp::Equal, target: Target::Value(value.clone()) })
                    }
                    None => self.compare(&Cmp { key: *key, op: CompareOp::Equal, target: Target::Create(Rev(0)) }),
                }];
                if let Some(rev) = expect_mod {
                    compares.push(self.compare(&Cmp { key: *key, op: CompareOp::Equal, target: Target::Mod(*rev) }));
                }
                let put = json!({ "request_put": self.put_body(*key, next, *lease, false) });
                let read = self.branch_op(&BranchOp::Get(*key));
                let answer = self.txn(compares, vec![put, read.clone()], vec![read])?;
                let swapped = answer["succeeded"].as_bool().unwrap_or(false);
                let read_index = if swapped { 1 } else { 0 };
                let kv = self.first(&answer["responses"][read_index]["response_range"]["kvs"]);
                Answer::Cas { revision: self.delta(&answer["header"]["revision"]), swapped, kv }
            }
            Op::Txn { compares, success, failure } => {
                let answer = self.txn(
                    compares.iter().map(|cmp| self.compare(cmp)).collect(),
                    success.iter().map(|op| self.branch_op(op)).collect(),
                    failure.iter().map(|op| self.branch_op(op)).collect(),
                )?;
                let succeeded = answer["succeeded"].as_bool().unwrap_or(false);
                let branch = if succeeded { success } else { failure };
                Answer::Txn {
                    revision: self.delta(&answer["header"]["revision"]),
                    succeeded,
                    responses: self.responses(branch, &answer),
                }
            }
            Op::Grant { ttl_s } => {
                let answer = self.etcd.call("/v3/lease/grant", json!({ "TTL": ttl_s.to_string() }))?;
                if let Some(error) = answer["error"].as_str().filter(|error| !error.is_empty()) {
                    return Err(Refusal { status: 200, message: error.to_string() });
                }
                self.slots.push(int(&answer["ID"]));
                Answer::Grant { ttl_ms: int(&answer["TTL"]) * 1000 }
            }
            Op::KeepAlive { slot } => {
                let id = self.lease_id(LeaseRef::Slot(*slot));
                let answer = self.etcd.call("/v3/lease/keepalive", json!({ "ID": id.to_string() }))?;
                // A lease that is gone answers TTL 0 (omitted), not an error.
                match int(&answer["result"]["TTL"]) {
                    ttl if ttl <= 0 => Answer::Refused(Refused::LeaseNotFound),
                    ttl => Answer::KeepAlive { ttl_ms: ttl * 1000 },
                }
            }
            Op::Revoke { slot } => {
                let id = self.lease_id(LeaseRef::Slot(*slot));
                let answer = self.etcd.call("/v3/lease/revoke", json!({ "ID": id.to_string() }))?;
                Answer::Revoke { revision: self.delta(&answer["header"]["revision"]) }
            }
        })
    }

    /// Revokes the sequence's leases, so that none expires during a later
    /// sequence and bumps its revisions.
    pub fn cleanup(&mut self) {
        for id in std::mem::take(&mut self.slots) {
            let _ = self.etcd.call("/v3/lease/revoke", json!({ "ID": id.to_string() }));
        }
    }

    /// Every key under the prefix, at `revision` if given (etcd keeps history).
    pub fn keys_at(&self, revision: Option<i64>) -> (i64, Vec<Kv>) {
        let mut body = json!({ "key": b64(&self.prefix), "range_end": b64(&prefix_end(&self.prefix)) });
        if let Some(revision) = revision {
            body["revision"] = json!(revision.to_string());
        }
        let answer = self.etcd.call("/v3/kv/range", body).expect("a prefix range is never refused");
        let keys =
            answer["kvs"].as_array().map(|kvs| kvs.iter().map(|kv| self.normalize(kv)).collect()).unwrap_or_default();
        (self.delta(&answer["header"]["revision"]), keys)
    }

    /// etcd's view of one lease: `None` when it is gone, else the remaining
    /// and granted TTL in seconds and the attached keys (without prefix).
    pub fn time_to_live(&self, id: i64) -> Option<(i64, i64, Vec<String>)> {
        let answer = self
            .etcd
            .call("/v3/lease/timetolive", json!({ "ID": id.to_string(), "keys": true }))
            .expect("timetolive is never refused");
        let remaining = int(&answer["TTL"]);
        if remaining < 0 {
            return None;
        }
        let mut keys: Vec<String> = answer["keys"]
            .as_array()
            .map(|keys| {
                keys.iter()
                    .map(|key| {
                        let full = unb64(key);
                        full.strip_prefix(&self.prefix).map(str::to_string).unwrap_or(full)
                    })
                    .collect()
            })
            .unwrap_or_default();
        keys.sort();
        Some((remaining, int(&answer["grantedTTL"]), keys))
    }
}

impl Side for EtcdSide<'_> {
    fn apply(&mut self, op: &Op) -> Answer {
        self.try_apply(op).unwrap_or_else(|refusal| Answer::Refused(refused_etcd(refusal)))
    }

    fn state(&mut self) -> State {
        let (revision, keys) = self.keys_at(None);
        State { revision, keys }
    }

    fn leases(&mut self) -> Vec<LeaseState> {
        (0..self.slots.len())
            .filter_map(|slot| {
                let (remaining, granted, keys) = self.time_to_live(self.slots[slot])?;
                Some(LeaseState {
                    slot,
                    granted_ttl_ms: granted * 1000,
                    keys,
                    remaining_plausible: remaining <= granted && remaining + 2 >= granted,
                })
            })
            .collect()
    }
}
