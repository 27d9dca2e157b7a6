//! What happens in a fencing test: leaders (trusted harness code, processes
//! p1 … pN) take, renew and release the lock and send requests stamped with
//! the version they last obtained; the worker (the last process) receives
//! those requests at scripted moments and hands each to the learner's
//! `handleRequest`. The JavaScript runner reads the same data (see
//! `harness.rs`).

use serde::{Deserialize, Serialize};

use crate::grade::WorkloadText;

/// The lock's key in every fencing test.
pub const LOCK_KEY: &str = "leader/bar";

/// One step of a leader's script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum LeaderStep {
    /// Take the lock, waiting (by watch) while someone else holds it.
    #[serde(rename_all = "camelCase")]
    Acquire {
        ttl_ms: u64,
    },
    /// Renew with the version it holds (skipped if it holds nothing).
    #[serde(rename_all = "camelCase")]
    Renew {
        ttl_ms: u64,
    },
    /// Delete its own lock by version (skipped if it holds nothing).
    Release,
    /// Send request `r<request>`, stamped with the version it believes it
    /// holds (skipped if it believes it holds nothing).
    Send {
        request: u32,
    },
    Sleep {
        ms: u64,
    },
}

/// The worker receives request `r<request>` when its own clock reads `at_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub at_ms: u64,
    pub request: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FencingWorkload {
    /// One script per leader: processes 0 .. leaders.len().
    pub leaders: Vec<Vec<LeaderStep>>,
    /// The worker (process `leaders.len()`) gets these, in this order when
    /// several fall on the same moment.
    pub deliveries: Vec<Delivery>,
}

/// The id a request carries: `r1`, `r2`, ….
pub fn request_id(request: u32) -> String {
    format!("r{request}")
}

impl WorkloadText for FencingWorkload {
    /// `A1000,M1,S300,N1000,M2,R/S50,A1000|1@100,1@100,2@500`: leaders split
    /// by `/`, their steps by `,` (A acquire, N renew, R release, M send,
    /// S sleep), then `|` and the deliveries `request@atMs`.
    fn encode(&self) -> String {
        let step = |step: &LeaderStep| match step {
            LeaderStep::Acquire { ttl_ms } => format!("A{ttl_ms}"),
            LeaderStep::Renew { ttl_ms } => format!("N{ttl_ms}"),
            LeaderStep::Release => "R".into(),
            LeaderStep::Send { request } => format!("M{request}"),
            LeaderStep::Sleep { ms } => format!("S{ms}"),
        };
        let leaders: Vec<String> =
            self.leaders.iter().map(|script| script.iter().map(step).collect::<Vec<_>>().join(",")).collect();
        let deliveries: Vec<String> =
            self.deliveries.iter().map(|delivery| format!("{}@{}", delivery.request, delivery.at_ms)).collect();
        format!("{}|{}", leaders.join("/"), deliveries.join(","))
    }

    fn decode(text: &str) -> Result<Self, String> {
        let Some((leaders, deliveries)) = text.split_once('|') else {
            return Err(format!("`{text}` is not a fencing workload (it looks like A1000,M1,R|1@100)"));
        };
        let step = |word: &str| -> Result<LeaderStep, String> {
            let (tag, number) = word.split_at(word.chars().next().map_or(0, char::len_utf8));
            let bad = || format!("`{word}` is not a leader step");
            let value = || number.parse::<u64>().map_err(|_| bad());
            Ok(match tag {
                "A" => LeaderStep::Acquire { ttl_ms: value()? },
                "N" => LeaderStep::Renew { ttl_ms: value()? },
                "R" if number.is_empty() => LeaderStep::Release,
                "M" => LeaderStep::Send { request: number.parse().map_err(|_| bad())? },
                "S" => LeaderStep::Sleep { ms: value()? },
                _ => return Err(bad()),
            })
        };
        let leaders = leaders
            .split('/')
            .map(|script| if script.is_empty() { Ok(Vec::new()) } else { script.split(',').map(step).collect() })
            .collect::<Result<Vec<_>, _>>()?;
        let delivery = |word: &str| -> Result<Delivery, String> {
            let bad = || format!("`{word}` is not a delivery (request@atMs)");
            let (request, at_ms) = word.split_once('@').ok_or_else(bad)?;
            Ok(Delivery { at_ms: at_ms.parse().map_err(|_| bad())?, request: request.parse().map_err(|_| bad())? })
        };
        let deliveries = if deliveries.is_empty() {
            Vec::new()
        } else {
            deliveries.split(',').map(delivery).collect::<Result<_, _>>()?
        };
        Ok(FencingWorkload { leaders, deliveries })
    }
}

impl FencingWorkload {
    /// The worker's process index.
    pub fn worker(&self) -> u32 {
        self.leaders.len() as u32
    }

    /// Smaller workloads: one delivery fewer, one leader step fewer, a sleep
    /// halved, a delivery earlier.
    pub fn smaller(&self) -> Vec<FencingWorkload> {
        let mut candidates = Vec::new();
        for position in (0..self.deliveries.len()).rev() {
            let mut smaller = self.clone();
            smaller.deliveries.remove(position);
            candidates.push(smaller);
        }
        for (index, script) in self.leaders.iter().enumerate() {
            for position in (0..script.len()).rev() {
                let mut smaller = self.clone();
                smaller.leaders[index].remove(position);
                candidates.push(smaller);
            }
            for (position, step) in script.iter().enumerate() {
                if let LeaderStep::Sleep { ms } = step {
                    if *ms > 1 {
                        let mut smaller = self.clone();
                        smaller.leaders[index][position] = LeaderStep::Sleep { ms: ms / 2 };
                        candidates.push(smaller);
                    }
                }
            }
        }
        for (position, delivery) in self.deliveries.iter().enumerate() {
            if delivery.at_ms > 1 {
                let mut smaller = self.clone();
                smaller.deliveries[position].at_ms = delivery.at_ms / 2;
                candidates.push(smaller);
            }
        }
        candidates
    }

    /// The workload without process `index`. Removing a leader drops its
    /// script (its requests are then never sent); the worker cannot be
    /// removed, so removing it leaves the workload as it is and the run
    /// without a worker passes, which the shrinker rejects.
    pub fn without_process(&self, index: usize) -> FencingWorkload {
        let mut smaller = self.clone();
        if index < smaller.leaders.len() {
            smaller.leaders.remove(index);
        }
        smaller
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let workload = FencingWorkload {
            leaders: vec![
                vec![
                    LeaderStep::Acquire { ttl_ms: 1000 },
                    LeaderStep::Send { request: 1 },
                    LeaderStep::Sleep { ms: 300 },
                    LeaderStep::Renew { ttl_ms: 1000 },
                    LeaderStep::Release,
                ],
                vec![],
            ],
            deliveries: vec![Delivery { at_ms: 100, request: 1 }, Delivery { at_ms: 100, request: 1 }],
        };
        assert_eq!(workload.encode(), "A1000,M1,S300,N1000,R/|1@100,1@100");
        assert_eq!(FencingWorkload::decode(&workload.encode()), Ok(workload));
        assert!(FencingWorkload::decode("A1000,X|").unwrap_err().contains("`X`"));
        assert!(FencingWorkload::decode("A1000|1@").unwrap_err().contains("`1@`"));
        assert!(FencingWorkload::decode("A1000").is_err());
    }
}
