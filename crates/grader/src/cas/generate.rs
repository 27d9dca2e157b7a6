//! Random cas workloads from a seed, aimed at the cases that catch real
//! bugs: creating when absent (and when not), stale versions, the clock
//! landing exactly on a deadline (or one millisecond before), re-creating a
//! key right after it expired, rewriting a TTL key without `ttlMs`, value
//! compares on missing keys, deletes with stale versions.
//!
//! Half the workloads use plain keys and values (`a`, `b`, `x`, …); the
//! other half draw them from [`EXOTIC_KEYS`] and [`EXOTIC_VALUES`]: the
//! names a plain JavaScript object already has (`constructor`, `__proto__`,
//! `toString`), look-alikes (Latin and Cyrillic `a`, `é` composed and
//! decomposed, two 256-byte keys that differ in their last byte), non-ASCII
//! text, and values such as `"null"` or the empty string. Keys stay within
//! `kv`'s limits: at least one byte (etcd refuses an empty key), at most 256.
//!
//! TTLs reach both ends of what the README allows: 1 ms, and now and then
//! the longest, a day (`TTL_MS_MAX`), whose deadline the clock then lands on
//! like any other, or half way to it; these draw from a stream of their own
//! too.
//!
//! The generator runs `kv` alongside ([`Oracle`]) so it can aim: it knows
//! which keys are live, their values, their deadlines, and which earlier
//! answers carry the current or a stale version of each key.

use sim::rng::Rng;
use sim::Reply;

use super::answers::{version_in, Oracle};
use super::workload::{CasOp, CasWorkload, VersionFrom, TTL_MS_MAX};

const KEYS: [&str; 3] = ["a", "b", "c"];
const VALUES: [&str; 5] = ["x", "y", "z", "p1", "p2"];

/// Groups of keys that a store may confuse with each other or with what a
/// plain object already holds; an exotic workload uses one or two groups.
const EXOTIC_KEYS: [&[&str]; 8] = [
    &["__proto__", "constructor"],
    &["toString", "valueOf", "hasOwnProperty"],
    // Latin a, Cyrillic a (U+0430), capital A.
    &["a", "\u{430}", "A"],
    // é composed (U+00E9) and decomposed (e + U+0301).
    &["\u{e9}", "e\u{301}"],
    &["a", "a "],
    &["0", "00", "length"],
    &["\u{65e5}\u{672c}", "\u{1f511}", "k:,/~@+=%"],
    &[LONG_KEY_A, LONG_KEY_B],
];
/// Two keys of 256 bytes (`kv`'s limit) that differ only in the last byte.
const LONG_KEY_A: &str = concat!(
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkka",
);
const LONG_KEY_B: &str = concat!(
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkb",
);
/// Values an exotic workload adds to the plain ones.
const EXOTIC_VALUES: [&str; 9] = [
    "__proto__",
    "constructor",
    "null",
    "undefined",
    "X",
    "x ",
    "\u{65e5}\u{672c}\u{8a9e}",
    "\u{1f511}",
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv",
];

/// Operations per random workload: long enough for stories of several
/// lives of a key, short enough to read once shrunk.
pub const OPS_MIN: u64 = 24;
pub const OPS_MAX: u64 = 64;

struct Generator {
    rng: Rng,
    /// For the edges of the inputs (the longest TTL), apart from `rng`.
    edge_rng: Rng,
    oracle: Oracle,
    ops: Vec<CasOp>,
    keys: Vec<&'static str>,
    values: Vec<&'static str>,
    /// Every deadline a TTL write set, kept after a rewrite clears it: the
    /// clock landing there catches stores that keep the old TTL.
    deadlines_ms: Vec<u64>,
    /// Keys that the last advance expired.
    just_expired: Vec<String>,
}

/// The workload of the random test for one seed.
pub fn random_workload(seed: u64) -> CasWorkload {
    // Its own stream, apart from the plan's, as in the other exercises.
    let mut rng = Rng::new(seed ^ 0x6361_735F_6F70_7321);
    let plain_keys: &'static [&'static str] = if rng.chance(1, 4) {
        &KEYS[..1]
    } else if rng.chance(1, 2) {
        &KEYS[..2]
    } else {
        &KEYS
    };
    // Exotic inputs draw from a stream of their own, so that a plain
    // workload is the same as before exotic ones existed.
    let mut exotic_rng = Rng::new(seed ^ 0x6578_6F74_6963_6B79);
    let (keys, values) = if exotic_rng.chance(1, 2) {
        let mut keys: Vec<&'static str> = Vec::new();
        for _ in 0..exotic_rng.range(1, 2) {
            for key in *exotic_rng.pick(&EXOTIC_KEYS) {
                if !keys.contains(key) {
                    keys.push(key);
                }
            }
        }
        let mut values = VALUES.to_vec();
        values.extend(EXOTIC_VALUES);
        (keys, values)
    } else {
        (plain_keys.to_vec(), VALUES.to_vec())
    };
    let length = rng.range(OPS_MIN, OPS_MAX) as usize;
    let mut generator = Generator {
        rng,
        edge_rng: Rng::new(seed ^ 0x6564_6765_5F74_746C),
        oracle: Oracle::new(),
        ops: Vec::with_capacity(length),
        keys,
        values,
        deadlines_ms: Vec::new(),
        just_expired: Vec::new(),
    };
    while generator.ops.len() < length {
        let op = generator.next_op();
        generator.push(op);
    }
    let workload = CasWorkload { ops: generator.ops };
    debug_assert_eq!(workload.check_shape(), Ok(()));
    workload
}

impl Generator {
    fn push(&mut self, op: CasOp) {
        let live_before: Vec<&str> = match op {
            CasOp::Advance { .. } => {
                self.keys.iter().copied().filter(|key| self.oracle.store().get(key).is_some()).collect()
            }
            _ => Vec::new(),
        };
        self.ops.push(op);
        let answer = self.oracle.apply(&self.ops).expect("generated versions come from answers that carry one");
        if let (Some(CasOp::Cas { ttl_ms: Some(ttl_ms), .. }), Reply::Cas { ok: true, .. }) = (self.ops.last(), answer)
        {
            self.deadlines_ms.push(self.oracle.now_ms() + ttl_ms);
        }
        self.just_expired =
            live_before.into_iter().filter(|key| self.oracle.store().get(key).is_none()).map(str::to_string).collect();
    }

    fn key(&mut self) -> String {
        self.rng.pick(&self.keys).to_string()
    }

    fn live_key(&mut self, live: bool) -> String {
        let matching: Vec<&str> =
            self.keys.iter().copied().filter(|key| self.oracle.store().get(key).is_some() == live).collect();
        if matching.is_empty() {
            self.key()
        } else {
            self.rng.pick(&matching).to_string()
        }
    }

    fn value(&mut self) -> String {
        if self.rng.chance(1, 15) {
            String::new()
        } else {
            self.rng.pick(&self.values).to_string()
        }
    }

    fn ttl_ms(&mut self) -> u64 {
        let ttl_ms = match self.rng.range(0, 9) {
            0 => 1,
            1..=3 => self.rng.range(1, 100),
            _ => self.rng.range(100, 2_000),
        };
        if self.edge_rng.chance(1, 30) {
            TTL_MS_MAX
        } else {
            ttl_ms
        }
    }

    /// The latest earlier operation whose answer shows the key's current version.
    fn current_source(&self, key: &str) -> Option<usize> {
        let revision = self.oracle.store().get(key)?.mod_revision;
        self.oracle.answers().iter().rposition(|answer| version_in(answer) == Some(revision))
    }

    /// An earlier answer with a version that is not the key's current one,
    /// preferring the key's own old versions.
    fn stale_source(&mut self, key: &str) -> Option<usize> {
        let current = self.oracle.store().get(key).map(|kv| kv.mod_revision);
        let stale: Vec<(usize, bool)> = self
            .oracle
            .answers()
            .iter()
            .enumerate()
            .filter(|(_, answer)| version_in(answer).is_some() && version_in(answer) != current)
            .map(|(index, _)| (index, self.ops[index].key() == Some(key)))
            .collect();
        let own: Vec<usize> = stale.iter().filter(|(_, own)| *own).map(|(index, _)| *index).collect();
        if !own.is_empty() && self.rng.chance(2, 3) {
            return Some(*self.rng.pick(&own));
        }
        (!stale.is_empty()).then(|| self.rng.pick(&stale).0)
    }

    fn version_of(&mut self, key: &str, percent_current: u64, percent_stale: u64) -> Option<VersionFrom> {
        // Now and then a version the store never handed out (0, for a store
        // that numbers from 1): a store that tests the option for truth
        // rather than presence takes it for no version at all.
        if self.edge_rng.chance(1, 25) {
            return Some(VersionFrom::Never);
        }
        let roll = self.rng.range(0, 99);
        if roll < percent_current {
            self.current_source(key).map(VersionFrom::Answer)
        } else if roll < percent_current + percent_stale {
            self.stale_source(key).map(VersionFrom::Answer)
        } else {
            None
        }
    }

    fn next_op(&mut self) -> CasOp {
        if !self.just_expired.is_empty() && self.rng.chance(2, 3) {
            // Right after a deadline: re-create the key, or read it.
            let key = self.rng.pick(&self.just_expired).clone();
            return if self.rng.chance(2, 3) { self.create(key) } else { CasOp::Get { key } };
        }
        match self.rng.range(0, 99) {
            0..=17 => self.advance(),
            18..=33 => {
                let key = self.key();
                CasOp::Get { key }
            }
            34..=50 => {
                let live = self.rng.chance(1, 3);
                let key = self.live_key(live);
                self.create(key)
            }
            51..=75 => self.compare_value(),
            _ => self.delete(),
        }
    }

    fn advance(&mut self) -> CasOp {
        let now_ms = self.oracle.now_ms();
        let ahead: Vec<u64> = self.deadlines_ms.iter().copied().filter(|deadline_ms| *deadline_ms > now_ms).collect();
        if !ahead.is_empty() && self.rng.chance(2, 3) {
            let deadline_ms = *self.rng.pick(&ahead);
            let just_before = deadline_ms - now_ms > 1 && self.rng.chance(1, 4);
            // Half way to a far deadline, now and then: a store that cuts long TTLs short shows it there.
            if deadline_ms - now_ms > 10 * 60_000 && self.edge_rng.chance(1, 2) {
                return CasOp::Advance { ms: (deadline_ms - now_ms) / 2 };
            }
            return CasOp::Advance { ms: deadline_ms - now_ms - u64::from(just_before) };
        }
        let ms = if self.rng.chance(1, 3) { self.rng.range(1, 50) } else { self.rng.range(50, 1_500) };
        CasOp::Advance { ms }
    }

    fn create(&mut self, key: String) -> CasOp {
        let next_value = self.value();
        let ttl_ms = self.rng.chance(1, 2).then(|| self.ttl_ms());
        // A version on a create never holds; it is there to catch stores that ignore it.
        let version_of = if self.rng.chance(1, 12) { self.stale_source(&key).map(VersionFrom::Answer) } else { None };
        CasOp::Cas { key, next_value, current_value: None, version_of, ttl_ms }
    }

    fn compare_value(&mut self) -> CasOp {
        let live = self.rng.chance(4, 5);
        let key = self.live_key(live);
        let next_value = self.value();
        let ttl_ms = self.rng.chance(2, 5).then(|| self.ttl_ms());
        let live_value = self.oracle.store().get(&key).map(|kv| kv.value.clone());
        let (current_value, version_of) = match live_value {
            Some(value) => {
                let current_value = if self.rng.chance(3, 4) { value } else { self.value() };
                (current_value, self.version_of(&key, 35, 20))
            }
            None => {
                // A value compare on a missing key: it must fail, whatever the value.
                let current_value =
                    if self.rng.chance(1, 6) { String::new() } else { self.rng.pick(&self.values).to_string() };
                (current_value, self.version_of(&key, 0, 10))
            }
        };
        CasOp::Cas { key, next_value, current_value: Some(current_value), version_of, ttl_ms }
    }

    fn delete(&mut self) -> CasOp {
        let live = self.rng.chance(4, 5);
        let key = self.live_key(live);
        let version_of = self.version_of(&key, 35, 25);
        CasOp::Delete { key, version_of }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::WorkloadText;

    #[test]
    fn random_workloads_round_trip_through_their_tokens_and_reach_exotic_keys() {
        let mut seen_keys = std::collections::BTreeSet::new();
        for seed in 1..=400 {
            let workload = random_workload(seed);
            assert_eq!(workload.check_shape(), Ok(()), "seed {seed}");
            let text = workload.encode();
            assert!(!text.contains(':'), "seed {seed}: {text}");
            assert_eq!(CasWorkload::decode(&text).as_ref(), Ok(&workload), "seed {seed}");
            seen_keys.extend(workload.ops.iter().filter_map(|op| op.key().map(str::to_string)));
        }
        for key in ["__proto__", "constructor", "toString", "\u{430}", "e\u{301}", LONG_KEY_A, "a "] {
            assert!(seen_keys.contains(key), "no workload used the key {key:?}");
        }
    }

    #[test]
    fn random_workloads_reach_the_edges_of_every_input() {
        let ops: Vec<CasOp> = (1..=400).flat_map(|seed| random_workload(seed).ops).collect();
        let ttls: Vec<u64> = ops
            .iter()
            .filter_map(|op| match op {
                CasOp::Cas { ttl_ms, .. } => *ttl_ms,
                _ => None,
            })
            .collect();
        assert!(ttls.contains(&1), "no TTL of 1 ms");
        assert!(ttls.contains(&TTL_MS_MAX), "no TTL of a day");
        // The clock lands on a day-long TTL's deadline.
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Advance { ms } if *ms >= TTL_MS_MAX - 2_000)),
            "no advance to a day's deadline"
        );
        let empty = |value: &Option<String>| value.as_deref() == Some("");
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Cas { current_value, .. } if empty(current_value))),
            "no currentValue \"\""
        );
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Cas { next_value, .. } if next_value.is_empty())),
            "no nextValue \"\""
        );
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Cas { current_value: None, version_of: Some(_), .. })),
            "no create with a version"
        );
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Delete { version_of: None, .. })),
            "no delete without a version"
        );
        let never = Some(VersionFrom::Never);
        assert!(
            ops.iter()
                .any(|op| matches!(op, CasOp::Cas { current_value: Some(_), version_of, .. } if *version_of == never)),
            "no compare with a version the store never handed out"
        );
        assert!(
            ops.iter().any(|op| matches!(op, CasOp::Delete { version_of, .. } if *version_of == never)),
            "no delete with a version the store never handed out"
        );
    }
}
