//! The operations a random sequence is made of, written so that they mean
//! the same on both sides: keys are indexes into the sequence's own key
//! prefix, leases are slots (the n-th grant of the sequence), and revisions
//! are counted from the sequence's starting revision.

use std::fmt;

use kv::CompareOp;

/// Keys per sequence: few, so that operations collide on them.
pub const KEYS: usize = 3;
/// Values: few and short, so that value compares sometimes hold; the empty
/// value is there because the gateway omits it on the wire.
pub const VALUES: [&str; 4] = ["", "a", "b", "ab"];

/// The name of key `index` inside a sequence's prefix.
pub fn key_name(index: usize) -> String {
    format!("k{index}")
}

/// Which lease a put attaches its key to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseRef {
    None,
    /// The lease from the sequence's n-th grant; a slot that was never
    /// granted (after shrinking removed the grant) names a lease that does
    /// not exist on either side.
    Slot(usize),
}

/// A revision operand: 0 is the absolute 0 ("no such key"); n > 0 is the
/// sequence's starting revision + n, on each side its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rev(pub u64);

/// What a compare looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Value(String),
    Version(u64),
    Create(Rev),
    Mod(Rev),
    /// Only with `Equal` / `NotEqual`: lease ids differ between the sides,
    /// so their order means nothing (divergence `lease-ids`).
    Lease(LeaseRef),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cmp {
    pub key: usize,
    pub op: CompareOp,
    pub target: Target,
}

/// One operation inside a transaction branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BranchOp {
    Get(usize),
    Put(usize, String, LeaseRef),
    Delete(usize),
}

/// One step of a sequence, applied to both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// kv: `Store::put` (answers the key as written); etcd: put, then a read.
    Put {
        key: usize,
        value: String,
        lease: LeaseRef,
    },
    /// kv: a one-put `Store::txn` (answers the previous key); etcd: put with `prev_kv`.
    PutPrev {
        key: usize,
        value: String,
        lease: LeaseRef,
    },
    Get {
        key: usize,
    },
    /// kv: `Store::delete`; etcd: delete-range of one key with `prev_kv`.
    Delete {
        key: usize,
    },
    /// kv: `Store::delete_if`; etcd: txn `create > 0 [&& mod == m]` then delete.
    DeleteIf {
        key: usize,
        mod_revision: Option<Rev>,
    },
    /// kv: `Store::compare_and_swap`; etcd: txn `value == v` (or `create == 0`
    /// for "absent") `[&& mod == m]`, then put + read, else read.
    Cas {
        key: usize,
        expect_value: Option<String>,
        expect_mod: Option<Rev>,
        next: String,
        lease: LeaseRef,
    },
    /// A general transaction.
    Txn {
        compares: Vec<Cmp>,
        success: Vec<BranchOp>,
        failure: Vec<BranchOp>,
    },
    /// A lease of whole seconds (kv: `grant_lease(secs * 1000)`).
    Grant {
        ttl_s: u64,
    },
    KeepAlive {
        slot: usize,
    },
    Revoke {
        slot: usize,
    },
}

impl fmt::Display for LeaseRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseRef::None => write!(f, "none"),
            LeaseRef::Slot(slot) => write!(f, "L{slot}"),
        }
    }
}

impl fmt::Display for Rev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            write!(f, "0")
        } else {
            write!(f, "base+{}", self.0)
        }
    }
}

fn op_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Equal => "==",
        CompareOp::NotEqual => "!=",
        CompareOp::Greater => ">",
        CompareOp::Less => "<",
    }
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = key_name(self.key);
        let symbol = op_symbol(self.op);
        match &self.target {
            Target::Value(value) => write!(f, "{key}.value {symbol} {value:?}"),
            Target::Version(version) => write!(f, "{key}.version {symbol} {version}"),
            Target::Create(rev) => write!(f, "{key}.create {symbol} {rev}"),
            Target::Mod(rev) => write!(f, "{key}.mod {symbol} {rev}"),
            Target::Lease(lease) => write!(f, "{key}.lease {symbol} {lease}"),
        }
    }
}

impl fmt::Display for BranchOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BranchOp::Get(key) => write!(f, "get {}", key_name(*key)),
            BranchOp::Put(key, value, LeaseRef::None) => write!(f, "put {}={value:?}", key_name(*key)),
            BranchOp::Put(key, value, lease) => write!(f, "put {}={value:?} lease={lease}", key_name(*key)),
            BranchOp::Delete(key) => write!(f, "delete {}", key_name(*key)),
        }
    }
}

fn list<T: fmt::Display>(items: &[T]) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lease_suffix = |lease: &LeaseRef| match lease {
            LeaseRef::None => String::new(),
            lease => format!(" lease={lease}"),
        };
        match self {
            Op::Put { key, value, lease } => write!(f, "put {}={value:?}{}", key_name(*key), lease_suffix(lease)),
            Op::PutPrev { key, value, lease } => {
                write!(f, "put(prev) {}={value:?}{}", key_name(*key), lease_suffix(lease))
            }
            Op::Get { key } => write!(f, "get {}", key_name(*key)),
            Op::Delete { key } => write!(f, "delete {}", key_name(*key)),
            Op::DeleteIf { key, mod_revision: None } => write!(f, "delete_if {} exists", key_name(*key)),
            Op::DeleteIf { key, mod_revision: Some(rev) } => write!(f, "delete_if {}.mod == {rev}", key_name(*key)),
            Op::Cas { key, expect_value, expect_mod, next, lease } => {
                let key = key_name(*key);
                match expect_value {
                    None => write!(f, "cas if {key} absent")?,
                    Some(value) => write!(f, "cas if {key}.value == {value:?}")?,
                }
                if let Some(rev) = expect_mod {
                    write!(f, " && {key}.mod == {rev}")?;
                }
                write!(f, " then put {key}={next:?}{}", lease_suffix(lease))
            }
            Op::Txn { compares, success, failure } => {
                write!(f, "txn if [{}] then [{}] else [{}]", list(compares), list(success), list(failure))
            }
            Op::Grant { ttl_s } => write!(f, "grant {ttl_s}s"),
            Op::KeepAlive { slot } => write!(f, "keep_alive L{slot}"),
            Op::Revoke { slot } => write!(f, "revoke L{slot}"),
        }
    }
}

/// splitmix64: small, seedable, and the same on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
