//! What each process does in an election test: a short script that the
//! harness turns into calls of the learner's `campaign` and `resign`. The
//! JavaScript runner reads the same scripts the same way.

use serde::{Deserialize, Serialize};

use crate::grade::WorkloadText;

/// The prefix every candidate's key lives under; a key is `prefix + name`.
pub const ELECTION_PREFIX: &str = "election/";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "camelCase")]
pub enum ElectionStep {
    /// Do nothing for `ms` (a candidate that joins later).
    Sleep { ms: u64 },
    /// `campaign(ctx, prefix, ttlMs)`: returns once this process leads.
    #[serde(rename_all = "camelCase")]
    Campaign { ttl_ms: u64 },
    /// Lead for `ms` (skipped unless the last campaign returned).
    Lead { ms: u64 },
    /// `resign(ctx, leadership)` (skipped unless leading).
    Resign,
}

impl ElectionStep {
    /// The step's letter and number in a replay token.
    fn letter_and_number(&self) -> (char, Option<u64>) {
        match self {
            ElectionStep::Sleep { ms } => ('S', Some(*ms)),
            ElectionStep::Campaign { ttl_ms } => ('C', Some(*ttl_ms)),
            ElectionStep::Lead { ms } => ('L', Some(*ms)),
            ElectionStep::Resign => ('R', None),
        }
    }

    fn from_word(word: &str) -> Result<ElectionStep, String> {
        let wrong = || format!("`{word}` is not an election step (S<ms>, C<ttlMs>, L<ms> or R)");
        let mut chars = word.chars();
        let letter = chars.next().ok_or_else(wrong)?;
        let rest = chars.as_str();
        if letter == 'R' {
            return if rest.is_empty() { Ok(ElectionStep::Resign) } else { Err(wrong()) };
        }
        let number: u64 = rest.parse().map_err(|_| wrong())?;
        match letter {
            'S' => Ok(ElectionStep::Sleep { ms: number }),
            'C' => Ok(ElectionStep::Campaign { ttl_ms: number }),
            'L' => Ok(ElectionStep::Lead { ms: number }),
            _ => Err(wrong()),
        }
    }

    /// The same step with its time halved, if that makes it shorter.
    fn halved(&self) -> Option<ElectionStep> {
        match self {
            ElectionStep::Sleep { ms } if *ms > 1 => Some(ElectionStep::Sleep { ms: ms / 2 }),
            ElectionStep::Lead { ms } if *ms > 1 => Some(ElectionStep::Lead { ms: ms / 2 }),
            _ => None,
        }
    }
}

/// One script per process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionWorkload {
    pub scripts: Vec<Vec<ElectionStep>>,
}

impl WorkloadText for ElectionWorkload {
    /// `C4000,L200,R/S300,C4000,L100,R`: a script per process, split by `/`.
    fn encode(&self) -> String {
        let mut text = String::new();
        for (index, script) in self.scripts.iter().enumerate() {
            if index > 0 {
                text.push('/');
            }
            for (position, step) in script.iter().enumerate() {
                if position > 0 {
                    text.push(',');
                }
                let (letter, number) = step.letter_and_number();
                text.push(letter);
                if let Some(number) = number {
                    text.push_str(&number.to_string());
                }
            }
        }
        text
    }

    fn decode(text: &str) -> Result<Self, String> {
        let mut scripts = Vec::new();
        for script in text.split('/') {
            let steps = script.split(',').filter(|word| !word.is_empty()).map(ElectionStep::from_word);
            scripts.push(steps.collect::<Result<Vec<_>, _>>()?);
        }
        Ok(ElectionWorkload { scripts })
    }
}

impl ElectionWorkload {
    /// Candidates for shrinking: a sleep or a whole term (a campaign with
    /// the lead and resign after it) removed, then each wait halved. A term
    /// is never cut in pieces: a leader that never resigns would make every
    /// story end with a key expiring after its whole TTL, which says less
    /// than the resign the test was written around.
    pub fn smaller(&self) -> Vec<ElectionWorkload> {
        let mut candidates = Vec::new();
        for (index, script) in self.scripts.iter().enumerate() {
            // (start, end) of each removable piece, in order.
            let mut pieces = Vec::new();
            let mut position = 0;
            while position < script.len() {
                let mut end = position + 1;
                if matches!(script[position], ElectionStep::Campaign { .. }) {
                    while end < script.len() && matches!(script[end], ElectionStep::Lead { .. } | ElectionStep::Resign)
                    {
                        end += 1;
                    }
                }
                pieces.push((position, end));
                position = end;
            }
            for &(start, end) in pieces.iter().rev() {
                let mut fewer = self.clone();
                fewer.scripts[index].drain(start..end);
                candidates.push(fewer);
            }
        }
        for (index, script) in self.scripts.iter().enumerate() {
            for (position, step) in script.iter().enumerate() {
                if let Some(shorter) = step.halved() {
                    let mut candidate = self.clone();
                    candidate.scripts[index][position] = shorter;
                    candidates.push(candidate);
                }
            }
        }
        candidates
    }

    /// The workload without process `index` (later processes move up).
    pub fn without_process(&self, index: usize) -> ElectionWorkload {
        let scripts = self
            .scripts
            .iter()
            .enumerate()
            .filter(|(position, _)| *position != index)
            .map(|(_, script)| script.clone())
            .collect();
        ElectionWorkload { scripts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElectionStep::{Campaign, Lead, Resign, Sleep};

    #[test]
    fn a_workload_reads_back_from_its_text() {
        let workload = ElectionWorkload {
            scripts: vec![
                vec![Campaign { ttl_ms: 4000 }, Lead { ms: 200 }, Resign],
                vec![],
                vec![Sleep { ms: 30 }, Campaign { ttl_ms: 900 }],
            ],
        };
        assert_eq!(workload.encode(), "C4000,L200,R//S30,C900");
        assert_eq!(ElectionWorkload::decode(&workload.encode()), Ok(workload));
        for wrong in ["C", "R1", "X5", "L-3"] {
            assert!(ElectionWorkload::decode(wrong).unwrap_err().contains(&format!("`{wrong}`")), "{wrong}");
        }
    }

    #[test]
    fn shrinking_removes_sleeps_and_whole_terms_and_halves_waits() {
        let workload = ElectionWorkload {
            scripts: vec![vec![
                Sleep { ms: 8 },
                Campaign { ttl_ms: 100 },
                Lead { ms: 6 },
                Resign,
                Campaign { ttl_ms: 100 },
            ]],
        };
        let texts: Vec<String> = workload.smaller().iter().map(WorkloadText::encode).collect();
        assert_eq!(texts, ["S8,C100,L6,R", "S8,C100", "C100,L6,R,C100", "S4,C100,L6,R,C100", "S8,C100,L3,R,C100"]);
        assert_eq!(workload.without_process(0).encode(), "");
    }
}
