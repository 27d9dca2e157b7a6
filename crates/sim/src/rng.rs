//! The simulation's only source of randomness: a seeded SplitMix64 stream,
//! and a stable hash for choices that must not shift when others change.
//!
//! Why two: the fault plan is drawn from a stream once, up front. Per-call
//! latencies are instead derived by hashing (seed, process, call index), so
//! that when shrinking removes a fault or an operation, every other call keeps
//! exactly the latency it had, and the shrunk run stays the same story.

/// SplitMix64: tiny, fast, and good enough for schedules (not cryptography).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `low..=high` (inclusive). `low <= high` is required.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        assert!(low <= high, "empty range {low}..={high}");
        let span = high - low + 1;
        if span == 0 {
            return self.next_u64();
        }
        low + self.next_u64() % span
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.range(0, denominator - 1) < numerator
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as u64 - 1) as usize]
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stable hash of a few numbers, for per-call choices.
pub fn hash(parts: &[u64]) -> u64 {
    let mut state = 0x243F_6A88_85A3_08D3u64;
    for part in parts {
        state = mix(state ^ part.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
    state
}

/// `hash(parts)` mapped into `low..=high`.
pub fn hash_range(parts: &[u64], low: u64, high: u64) -> u64 {
    assert!(low <= high, "empty range {low}..={high}");
    low + hash(parts) % (high - low + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..5).scan(Rng::new(7), |rng, _| Some(rng.next_u64())).collect();
        let b: Vec<u64> = (0..5).scan(Rng::new(7), |rng, _| Some(rng.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(a, (0..5).scan(Rng::new(8), |rng, _| Some(rng.next_u64())).collect::<Vec<_>>());
    }

    #[test]
    fn ranges_stay_in_bounds_and_cover_them() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 4];
        for _ in 0..200 {
            let value = rng.range(10, 13);
            assert!((10..=13).contains(&value));
            seen[(value - 10) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
        assert!((5..=9).contains(&hash_range(&[1, 2, 3], 5, 9)));
        assert_eq!(hash(&[1, 2]), hash(&[1, 2]));
        assert_ne!(hash(&[1, 2]), hash(&[2, 1]));
    }
}
