//! What each process does in a lock test: a short script of steps that the
//! harness turns into calls of the learner's `tryLock`, `lock` and `unlock`.
//! The JavaScript runner interprets the same scripts the same way.

use serde::{Deserialize, Serialize};

use crate::grade::WorkloadText;

/// The lock's key in every lock test.
pub const LOCK_KEY: &str = "locks/bar";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum LockStep {
    /// `tryLock(ctx, key, ttlMs)`.
    #[serde(rename_all = "camelCase")]
    TryLock { ttl_ms: u64 },
    /// `lock(ctx, key, ttlMs)`.
    #[serde(rename_all = "camelCase")]
    Lock { ttl_ms: u64 },
    /// Work while holding: sleep `ms` (skipped if the last attempt failed).
    Hold { ms: u64 },
    /// `unlock(ctx, key, version)` with the version of the last acquire
    /// (skipped if the process holds nothing).
    Unlock,
    /// Do nothing for `ms`.
    Sleep { ms: u64 },
}

/// One script per process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockWorkload {
    pub scripts: Vec<Vec<LockStep>>,
}

impl WorkloadText for LockWorkload {
    /// `L1000,H300,U/S50,T1000`: processes split by `/`, steps by `,`.
    fn encode(&self) -> String {
        let step = |step: &LockStep| match step {
            LockStep::TryLock { ttl_ms } => format!("T{ttl_ms}"),
            LockStep::Lock { ttl_ms } => format!("L{ttl_ms}"),
            LockStep::Hold { ms } => format!("H{ms}"),
            LockStep::Unlock => "U".into(),
            LockStep::Sleep { ms } => format!("S{ms}"),
        };
        self.scripts
            .iter()
            .map(|script| script.iter().map(step).collect::<Vec<_>>().join(","))
            .collect::<Vec<_>>()
            .join("/")
    }

    fn decode(text: &str) -> Result<Self, String> {
        let step = |word: &str| -> Result<LockStep, String> {
            let (tag, number) = word.split_at(word.chars().next().map_or(0, char::len_utf8));
            let value = || number.parse::<u64>().map_err(|_| format!("`{word}` is not a lock step"));
            Ok(match tag {
                "T" => LockStep::TryLock { ttl_ms: value()? },
                "L" => LockStep::Lock { ttl_ms: value()? },
                "H" => LockStep::Hold { ms: value()? },
                "U" if number.is_empty() => LockStep::Unlock,
                "S" => LockStep::Sleep { ms: value()? },
                _ => return Err(format!("`{word}` is not a lock step")),
            })
        };
        let scripts = text
            .split('/')
            .map(|script| if script.is_empty() { Ok(Vec::new()) } else { script.split(',').map(step).collect() })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LockWorkload { scripts })
    }
}

impl LockWorkload {
    /// Smaller workloads: one step fewer anywhere, or a hold or sleep halved.
    pub fn smaller(&self) -> Vec<LockWorkload> {
        let mut candidates = Vec::new();
        for (index, script) in self.scripts.iter().enumerate() {
            for position in (0..script.len()).rev() {
                let mut shorter = self.clone();
                shorter.scripts[index].remove(position);
                candidates.push(shorter);
            }
            for (position, step) in script.iter().enumerate() {
                let halved = match step {
                    LockStep::Hold { ms } if *ms > 1 => Some(LockStep::Hold { ms: ms / 2 }),
                    LockStep::Sleep { ms } if *ms > 1 => Some(LockStep::Sleep { ms: ms / 2 }),
                    _ => None,
                };
                if let Some(halved) = halved {
                    let mut shorter = self.clone();
                    shorter.scripts[index][position] = halved;
                    candidates.push(shorter);
                }
            }
        }
        candidates
    }

    /// The workload without process `index` (later processes move up).
    pub fn without_process(&self, index: usize) -> LockWorkload {
        let mut smaller = self.clone();
        if index < smaller.scripts.len() {
            smaller.scripts.remove(index);
        }
        smaller
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let workload = LockWorkload {
            scripts: vec![
                vec![LockStep::Lock { ttl_ms: 1000 }, LockStep::Hold { ms: 300 }, LockStep::Unlock],
                vec![],
                vec![LockStep::Sleep { ms: 50 }, LockStep::TryLock { ttl_ms: 700 }],
            ],
        };
        assert_eq!(workload.encode(), "L1000,H300,U//S50,T700");
        assert_eq!(LockWorkload::decode(&workload.encode()), Ok(workload));
        assert!(LockWorkload::decode("L1000,X").unwrap_err().contains("`X`"));
    }
}
