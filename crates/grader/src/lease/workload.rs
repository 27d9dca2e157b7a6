//! What the replicas do in a lease test: every replica runs the README's
//! loop (`campaign`, then `lead`, forever) on one key, starting at its own
//! moment; the test sets the TTL and how long one unit of work takes.
//! The JavaScript runner reads the same data (see `harness.rs`).

use serde::{Deserialize, Serialize};

use crate::grade::WorkloadText;

/// The lease's key in every lease test.
pub const LEASE_KEY: &str = "leader/bar";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseWorkload {
    /// The `ttlMs` every replica passes to `campaign` and `lead`.
    pub ttl_ms: u64,
    /// How long one `ctx.work()` takes on the replica's clock.
    pub work_ms: u64,
    /// One entry per replica (process): it sleeps this long before its
    /// first `campaign` (no sleep at all when 0).
    pub starts_ms: Vec<u64>,
}

impl WorkloadText for LeaseWorkload {
    /// `ttl1000.work50.start0,20,40`.
    fn encode(&self) -> String {
        let starts: Vec<String> = self.starts_ms.iter().map(u64::to_string).collect();
        format!("ttl{}.work{}.start{}", self.ttl_ms, self.work_ms, starts.join(","))
    }

    fn decode(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a lease workload (it looks like ttl1000.work50.start0,20,40)");
        let parts: Vec<&str> = text.split('.').collect();
        let [ttl, work, starts] = parts[..] else {
            return Err(bad());
        };
        let number = |text: &str| text.parse::<u64>().map_err(|_| bad());
        let ttl_ms = number(ttl.strip_prefix("ttl").ok_or_else(bad)?)?;
        let work_ms = number(work.strip_prefix("work").ok_or_else(bad)?)?;
        let starts = starts.strip_prefix("start").ok_or_else(bad)?;
        let starts_ms =
            if starts.is_empty() { Vec::new() } else { starts.split(',').map(number).collect::<Result<_, _>>()? };
        if ttl_ms == 0 || work_ms == 0 {
            return Err(format!("`{text}`: the TTL and the work time must be positive"));
        }
        Ok(LeaseWorkload { ttl_ms, work_ms, starts_ms })
    }
}

impl LeaseWorkload {
    /// Smaller workloads: longer units of work (fewer events for the same
    /// story, up to a quarter TTL so a leader still works between its checks),
    /// then a replica starting at once, or half as late.
    pub fn smaller(&self) -> Vec<LeaseWorkload> {
        let mut candidates = Vec::new();
        if self.work_ms * 2 <= self.ttl_ms / 4 {
            candidates.push(LeaseWorkload { work_ms: self.work_ms * 2, ..self.clone() });
        }
        for (index, start_ms) in self.starts_ms.iter().enumerate() {
            let halved_ms = start_ms / 2;
            let earlier = if halved_ms > 0 { vec![0, halved_ms] } else { vec![0] };
            for earlier_ms in earlier.into_iter().filter(|earlier_ms| earlier_ms < start_ms) {
                let mut smaller = self.clone();
                smaller.starts_ms[index] = earlier_ms;
                candidates.push(smaller);
            }
        }
        candidates
    }

    /// The workload without replica `index` (later replicas move up).
    pub fn without_process(&self, index: usize) -> LeaseWorkload {
        let mut smaller = self.clone();
        if index < smaller.starts_ms.len() {
            smaller.starts_ms.remove(index);
        }
        smaller
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let workload = LeaseWorkload { ttl_ms: 1_000, work_ms: 50, starts_ms: vec![0, 20, 40] };
        assert_eq!(workload.encode(), "ttl1000.work50.start0,20,40");
        assert_eq!(LeaseWorkload::decode(&workload.encode()), Ok(workload));
        let alone = LeaseWorkload { ttl_ms: 800, work_ms: 10, starts_ms: vec![] };
        assert_eq!(LeaseWorkload::decode(&alone.encode()), Ok(alone));
        assert!(LeaseWorkload::decode("ttl1000.work50").unwrap_err().contains("not a lease workload"));
        assert!(LeaseWorkload::decode("ttl0.work50.start0").is_err());
    }

    #[test]
    fn smaller_workloads_work_in_longer_units_and_start_earlier() {
        let workload = LeaseWorkload { ttl_ms: 1_000, work_ms: 200, starts_ms: vec![0, 40] };
        let starts: Vec<Vec<u64>> = workload.smaller().into_iter().map(|smaller| smaller.starts_ms).collect();
        assert_eq!(starts, vec![vec![0, 0], vec![0, 20]]);
        let longer_work = LeaseWorkload { work_ms: 50, ..workload };
        assert_eq!(longer_work.smaller()[0].work_ms, 100);
    }
}
