//! Each process's own clock: the store's time, running a few percent fast
//! or slow, plus forward jumps. Never backwards, as the lesson promises.

use crate::plan::{Fault, Plan, ProcessIndex};

/// One process's clock, fixed for a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalClock {
    /// Local ms per 100 store ms (100: exact).
    rate_percent: u64,
    /// `(store time, forward ms)`, sorted by time.
    jumps: Vec<(u64, u64)>,
}

impl LocalClock {
    pub fn for_process(plan: &Plan, process: ProcessIndex) -> LocalClock {
        let mut rate_percent = 100;
        let mut jumps = Vec::new();
        for fault in plan.faults.iter().filter(|fault| fault.process() == process) {
            match fault {
                // Clamp so a clock always moves forward at a sane pace.
                Fault::ClockDrift { percent, .. } => rate_percent = (100 + i64::from(*percent)).clamp(50, 200) as u64,
                Fault::ClockJump { at_ms, forward_ms, .. } => jumps.push((*at_ms, *forward_ms)),
                _ => {}
            }
        }
        jumps.sort_unstable();
        LocalClock { rate_percent, jumps }
    }

    /// The process's reading at store time `store_ms`.
    pub fn local_at(&self, store_ms: u64) -> u64 {
        // Saturating: a plan's times are bounded (Plan::check), and a reading past u64 would wrap to a small one.
        let jumped = self
            .jumps
            .iter()
            .take_while(|(at, _)| *at <= store_ms)
            .fold(0u64, |sum, (_, forward)| sum.saturating_add(*forward));
        (store_ms.saturating_mul(self.rate_percent) / 100).saturating_add(jumped)
    }

    /// The first store time at or after `from_store_ms` when the local clock
    /// reads at least `target_local_ms` (for `sleep`).
    pub fn store_time_reaching(&self, from_store_ms: u64, target_local_ms: u64) -> u64 {
        if self.local_at(from_store_ms) >= target_local_ms {
            return from_store_ms;
        }
        // The clock advances at least rate_percent/100 per store ms, so this
        // upper bound reaches the target even without jumps.
        let (mut low, mut high) =
            (from_store_ms, from_store_ms + (target_local_ms * 100).div_ceil(self.rate_percent) + 1);
        debug_assert!(self.local_at(high) >= target_local_ms);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.local_at(middle) >= target_local_ms {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        low
    }

    pub fn jumps(&self) -> &[(u64, u64)] {
        &self.jumps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(faults: Vec<Fault>) -> LocalClock {
        LocalClock::for_process(&Plan { faults, ..Plan::calm(1, 1) }, 0)
    }

    #[test]
    fn exact_drifting_and_jumping_clocks() {
        assert_eq!(clock(vec![]).local_at(1234), 1234);
        let fast = clock(vec![Fault::ClockDrift { process: 0, percent: 10 }]);
        assert_eq!(fast.local_at(1000), 1100);
        let slow = clock(vec![Fault::ClockDrift { process: 0, percent: -10 }]);
        assert_eq!(slow.local_at(1000), 900);
        let jumpy = clock(vec![Fault::ClockJump { process: 0, at_ms: 500, forward_ms: 300 }]);
        assert_eq!((jumpy.local_at(499), jumpy.local_at(500)), (499, 800));
    }

    #[test]
    fn sleeping_wakes_at_the_first_store_time_the_local_clock_reaches() {
        let slow = clock(vec![Fault::ClockDrift { process: 0, percent: -10 }]);
        let wake = slow.store_time_reaching(0, 900);
        assert_eq!(wake, 1000);
        assert!(slow.local_at(wake - 1) < 900);
        let jumpy = clock(vec![Fault::ClockJump { process: 0, at_ms: 500, forward_ms: 300 }]);
        // Sleeping 600 from 0 ends at the jump, which carries the clock to 800.
        assert_eq!(jumpy.store_time_reaching(0, 600), 500);
        assert_eq!(jumpy.store_time_reaching(700, 600), 700);
    }
}
