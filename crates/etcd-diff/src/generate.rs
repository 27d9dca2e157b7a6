//! Random operation sequences, from a seed.
//!
//! The generator keeps a shadow `kv::Store` so that it can aim its operands
//! at what is really there (a key's current value, version and revisions,
//! ± 1), which makes compares hold about half of the time instead of almost
//! never. The operands are then fixed numbers, so a sequence means the same
//! on replay and after shrinking.
//!
//! What it never generates, by name (see [`crate::DIVERGENCES`]):
//! `min-ttl` (TTLs are whole seconds, at least 10 s so that nothing expires
//! mid-sequence), `key-scoped-ttl` (no `LeaseChoice::Ttl`), `lease-ids`
//! (leases are named by slot; lease compares use only == and !=), `ranges`
//! (single keys only) and `limits` (far inside kv's limits).

use kv::{CompareOp, Store};

use crate::ops::{BranchOp, Cmp, LeaseRef, Op, Rev, Rng, Target, KEYS, VALUES};
use crate::sides::{KvSide, Side};

/// How many leases a sequence grants at most.
const SLOTS_MAX: usize = 4;
/// Granted TTLs, in seconds. Skips `min-ttl` (nothing below 2 s) and keeps
/// every lease alive for the whole sequence: expiry is checked on its own,
/// in real time.
const TTLS_S: [u64; 4] = [10, 30, 60, 3600];

/// The sequence for `seed`: 1 to `len_max` operations.
pub fn generate(seed: u64, len_max: usize) -> Vec<Op> {
    let mut rng = Rng::new(seed);
    let len = 1 + rng.below(len_max.max(1));
    let mut shadow = KvSide::new(Store::new());
    let mut ops = Vec::with_capacity(len);
    for _ in 0..len {
        let op = Generator { rng: &mut rng, shadow: &shadow }.op();
        shadow.apply(&op);
        ops.push(op);
    }
    ops
}

struct Generator<'a> {
    rng: &'a mut Rng,
    shadow: &'a KvSide<Store>,
}

impl Generator<'_> {
    fn key(&mut self) -> usize {
        self.rng.below(KEYS)
    }

    fn value(&mut self) -> String {
        self.rng.pick(&VALUES).to_string()
    }

    /// Mostly no lease; else a lease of the sequence, now and then one that
    /// was never granted (both sides must refuse it alike).
    fn lease(&mut self) -> LeaseRef {
        let slots = self.shadow.slot_count();
        let roll = self.rng.below(100);
        if slots == 0 {
            if roll < 92 {
                LeaseRef::None
            } else {
                LeaseRef::Slot(0)
            }
        } else if roll < 55 {
            LeaseRef::None
        } else if roll < 96 {
            LeaseRef::Slot(self.rng.below(slots))
        } else {
            LeaseRef::Slot(slots)
        }
    }

    fn slot(&mut self) -> usize {
        let slots = self.shadow.slot_count();
        if slots > 0 && self.rng.percent(90) {
            self.rng.below(slots)
        } else {
            slots
        }
    }

    /// A revision operand near `current` (a key's create or mod revision).
    fn rev(&mut self, current: Option<i64>) -> Rev {
        let now = self.shadow.revision_delta().max(0) as u64;
        let current = current.map(|rev| rev.max(0) as u64);
        Rev(match self.rng.below(7) {
            0 => 0,
            1 | 2 => current.unwrap_or(now),
            3 => current.unwrap_or(now) + 1,
            4 => current.unwrap_or(now).saturating_sub(1),
            5 => now,
            _ => self.rng.below(now as usize + 2) as u64,
        })
    }

    /// An expected value: usually the key's own, else any.
    fn value_near(&mut self, key: usize) -> String {
        match self.shadow.current(key) {
            Some(kv) if self.rng.percent(60) => kv.value,
            _ => self.value(),
        }
    }

    fn compare_op(&mut self) -> CompareOp {
        match self.rng.below(20) {
            0..=10 => CompareOp::Equal,
            11..=13 => CompareOp::NotEqual,
            14..=16 => CompareOp::Greater,
            _ => CompareOp::Less,
        }
    }

    fn compare(&mut self) -> Cmp {
        let key = self.key();
        let current = self.shadow.current(key);
        let (op, target) = match self.rng.below(10) {
            0..=2 => (self.compare_op(), Target::Value(self.value_near(key))),
            3 | 4 => {
                let version = current.as_ref().map_or(0, |kv| kv.version) as u64;
                let version = match self.rng.below(4) {
                    0 | 1 => version,
                    2 => version + 1,
                    _ => version.saturating_sub(1),
                };
                (self.compare_op(), Target::Version(version))
            }
            5 | 6 => (self.compare_op(), Target::Create(self.rev(current.as_ref().map(|kv| kv.create)))),
            7 | 8 => (self.compare_op(), Target::Mod(self.rev(current.as_ref().map(|kv| kv.modified)))),
            _ => {
                // `lease-ids`: ids are unrelated between the sides, so only
                // equality means the same on both.
                let op = if self.rng.percent(70) { CompareOp::Equal } else { CompareOp::NotEqual };
                let lease = match current.map(|kv| kv.lease) {
                    Some(crate::answer::LeaseTag::Slot(slot)) if self.rng.percent(50) => LeaseRef::Slot(slot),
                    _ => self.lease(),
                };
                (op, Target::Lease(lease))
            }
        };
        Cmp { key, op, target }
    }

    fn branch(&mut self, len_max: usize) -> Vec<BranchOp> {
        let len = self.rng.below(len_max + 1);
        let mut ops = Vec::with_capacity(len);
        for _ in 0..len {
            let key = self.key();
            // Duplicates are generated too: two puts, or a put and a delete, of
            // one key are refused by both sides; two deletes are accepted by both.
            let op = match self.rng.below(20) {
                0..=5 => BranchOp::Get(key),
                6..=14 => BranchOp::Put(key, self.value(), self.lease()),
                _ => BranchOp::Delete(key),
            };
            ops.push(op);
        }
        ops
    }

    fn op(&mut self) -> Op {
        let slots = self.shadow.slot_count();
        match self.rng.below(100) {
            0..=13 => Op::Put { key: self.key(), value: self.value(), lease: self.lease() },
            14..=23 => Op::PutPrev { key: self.key(), value: self.value(), lease: self.lease() },
            24..=27 => Op::Get { key: self.key() },
            28..=33 => Op::Delete { key: self.key() },
            34..=41 => {
                let key = self.key();
                let mod_revision = if self.rng.percent(60) {
                    let current = self.shadow.current(key).map(|kv| kv.modified);
                    Some(self.rev(current))
                } else {
                    None
                };
                Op::DeleteIf { key, mod_revision }
            }
            42..=59 => {
                let key = self.key();
                let current = self.shadow.current(key);
                let absent_percent = if current.is_some() { 15 } else { 75 };
                let expect_value = if self.rng.percent(absent_percent) { None } else { Some(self.value_near(key)) };
                let expect_mod =
                    if self.rng.percent(35) { Some(self.rev(current.as_ref().map(|kv| kv.modified))) } else { None };
                Op::Cas { key, expect_value, expect_mod, next: self.value(), lease: self.lease() }
            }
            60..=81 => {
                let compares_len = match self.rng.below(10) {
                    0 => 0,
                    1..=5 => 1,
                    _ => 2,
                };
                let compares = (0..compares_len).map(|_| self.compare()).collect();
                Op::Txn { compares, success: self.branch(3), failure: self.branch(2) }
            }
            82..=89 if slots < SLOTS_MAX => Op::Grant { ttl_s: *self.rng.pick(&TTLS_S) },
            82..=89 => Op::Put { key: self.key(), value: self.value(), lease: self.lease() },
            90..=94 => Op::KeepAlive { slot: self.slot() },
            _ => Op::Revoke { slot: self.slot() },
        }
    }
}
