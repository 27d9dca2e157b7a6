//! Replay tokens: a plan written as one short line that people can paste.
//!
//! `v1.s2a.n3.l1-20.r.P0@1200+3000.C1@500` reads: format 1, seed 0x2a,
//! 3 processes, latency 1–20 ms, random scheduler, p1 paused at 1200 ms for
//! 3000 ms, p2 crashed at 500 ms. The other faults: `R<p>#<call>+<ms>`
//! (request delayed), `A<p>#<call>+<ms>` (reply delayed), `D<p>%<percent>`
//! (drift), `J<p>@<at>+<ms>` (clock jump); the priority scheduler is
//! `q<order,…>/<change points,…>/<bias>`. Processes are 0-based here.

use crate::plan::{Fault, Plan, Scheduler};

fn list(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// The scheduler as a token writes it: `r`, or `q1,0,2/1200/5`.
pub fn scheduler_part(scheduler: &Scheduler) -> String {
    match scheduler {
        Scheduler::Random => "r".into(),
        Scheduler::Priority { order, change_points_ms, bias_ms } => {
            let order: Vec<u64> = order.iter().map(|process| u64::from(*process)).collect();
            format!("q{}/{}/{bias_ms}", list(&order), list(change_points_ms))
        }
    }
}

/// One fault as a token writes it: `P0@1200+3000`.
pub fn fault_part(fault: &Fault) -> String {
    match fault {
        Fault::Pause { process, at_ms, duration_ms } => format!("P{process}@{at_ms}+{duration_ms}"),
        Fault::Crash { process, at_ms } => format!("C{process}@{at_ms}"),
        Fault::DelayRequest { process, call, extra_ms } => format!("R{process}#{call}+{extra_ms}"),
        Fault::DelayReply { process, call, extra_ms } => format!("A{process}#{call}+{extra_ms}"),
        Fault::ClockDrift { process, percent } => format!("D{process}%{percent}"),
        Fault::ClockJump { process, at_ms, forward_ms } => format!("J{process}@{at_ms}+{forward_ms}"),
    }
}

pub fn encode(plan: &Plan) -> String {
    let mut parts = vec![
        "v1".to_string(),
        format!("s{:x}", plan.seed),
        format!("n{}", plan.processes),
        format!("l{}-{}", plan.latency_min_ms, plan.latency_max_ms),
    ];
    parts.push(scheduler_part(&plan.scheduler));
    parts.extend(plan.faults.iter().map(fault_part));
    parts.join(".")
}

/// Why a token could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenError(pub String);

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; copy the whole replay token from the report", self.0)
    }
}

fn number<T: std::str::FromStr>(text: &str, part: &str) -> Result<T, TokenError> {
    text.parse().map_err(|_| TokenError(format!("`{part}` is not a valid part of a replay token")))
}

/// Splits `"3@1200+3000"` by the given separators into numbers.
fn fields<T: std::str::FromStr>(text: &str, separators: &[char], part: &str) -> Result<Vec<T>, TokenError> {
    text.split(separators).map(|field| number(field, part)).collect()
}

/// A process or call index: a u32, refused rather than cut when it is larger.
fn index(value: u64, part: &str) -> Result<u32, TokenError> {
    u32::try_from(value).map_err(|_| TokenError(format!("`{part}` names a process or call that no run has")))
}

fn numbers(text: &str, part: &str) -> Result<Vec<u64>, TokenError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    fields(text, &[','], part)
}

pub fn decode(token: &str) -> Result<Plan, TokenError> {
    let mut parts = token.trim().split('.');
    if parts.next() != Some("v1") {
        return Err(TokenError(format!("`{token}` is not a replay token (they start with `v1.`)")));
    }
    let mut plan = Plan::calm(0, 1);
    for part in parts {
        let (tag, rest) = part.split_at(part.chars().next().map_or(0, char::len_utf8));
        match tag {
            "s" => {
                plan.seed = u64::from_str_radix(rest, 16).map_err(|_| TokenError(format!("`{part}` is not a seed")))?
            }
            "n" => plan.processes = number(rest, part)?,
            "l" => {
                let [low, high] = fields::<u64>(rest, &['-'], part)?[..] else {
                    return Err(TokenError(format!("`{part}` is not a latency range")));
                };
                (plan.latency_min_ms, plan.latency_max_ms) = (low, high);
            }
            "r" => plan.scheduler = Scheduler::Random,
            "q" => {
                let pieces: Vec<&str> = rest.split('/').collect();
                let [order, change_points, bias] = pieces[..] else {
                    return Err(TokenError(format!("`{part}` is not a scheduler")));
                };
                plan.scheduler = Scheduler::Priority {
                    order: numbers(order, part)?
                        .into_iter()
                        .map(|process| index(process, part))
                        .collect::<Result<_, _>>()?,
                    change_points_ms: numbers(change_points, part)?,
                    bias_ms: number(bias, part)?,
                };
            }
            "P" | "J" => {
                let [process, at_ms, amount] = fields::<u64>(rest, &['@', '+'], part)?[..] else {
                    return Err(TokenError(format!("`{part}` is not a fault")));
                };
                let process = index(process, part)?;
                plan.faults.push(if tag == "P" {
                    Fault::Pause { process, at_ms, duration_ms: amount }
                } else {
                    Fault::ClockJump { process, at_ms, forward_ms: amount }
                });
            }
            "C" => {
                let [process, at_ms] = fields::<u64>(rest, &['@'], part)?[..] else {
                    return Err(TokenError(format!("`{part}` is not a fault")));
                };
                plan.faults.push(Fault::Crash { process: index(process, part)?, at_ms });
            }
            "R" | "A" => {
                let [process, call, extra_ms] = fields::<u64>(rest, &['#', '+'], part)?[..] else {
                    return Err(TokenError(format!("`{part}` is not a fault")));
                };
                let (process, call) = (index(process, part)?, index(call, part)?);
                plan.faults.push(if tag == "R" {
                    Fault::DelayRequest { process, call, extra_ms }
                } else {
                    Fault::DelayReply { process, call, extra_ms }
                });
            }
            "D" => {
                let [process, percent] = fields::<i64>(rest, &['%'], part)?[..] else {
                    return Err(TokenError(format!("`{part}` is not a fault")));
                };
                let process = u64::try_from(process).map_err(|_| TokenError(format!("`{part}` is not a fault")))?;
                let percent =
                    i32::try_from(percent).map_err(|_| TokenError(format!("`{part}` is not a clock drift")))?;
                plan.faults.push(Fault::ClockDrift { process: index(process, part)?, percent });
            }
            _ => return Err(TokenError(format!("`{part}` is not a valid part of a replay token"))),
        }
    }
    plan.check().map_err(TokenError)?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::FaultProfile;

    #[test]
    fn every_generated_plan_round_trips() {
        for seed in 0..300 {
            let plan = Plan::generate(seed, 3, &FaultProfile::default());
            assert_eq!(decode(&encode(&plan)), Ok(plan));
        }
    }

    #[test]
    fn a_readable_example() {
        let plan = Plan {
            faults: vec![
                Fault::Pause { process: 0, at_ms: 1200, duration_ms: 3000 },
                Fault::Crash { process: 1, at_ms: 500 },
            ],
            ..Plan::calm(42, 3)
        };
        assert_eq!(encode(&plan), "v1.s2a.n3.l1-20.r.P0@1200+3000.C1@500");
    }

    #[test]
    fn bad_tokens_say_what_is_wrong() {
        assert_eq!(
            decode("hello").unwrap_err().to_string(),
            "`hello` is not a replay token (they start with `v1.`); copy the whole replay token from the report"
        );
        assert!(decode("v1.s2a.P0@x+1").unwrap_err().0.contains("`P0@x+1`"));
        assert!(decode("v1.Z9").is_err());
        assert!(decode("v1.s2a.P0@1").is_err());
    }

    #[test]
    fn hand_made_plans_that_would_break_a_host_are_refused() {
        let refused = |token: &str| decode(token).expect_err(token).to_string();
        assert!(refused("v1.s1.n1000000.l1-20.r").contains("asks for 1000000 processes; a run has 1 to 16"));
        assert!(refused("v1.s1.n0.l1-20.r").contains("asks for 0 processes"));
        assert!(refused("v1.s1.n2.l50-1.r").contains("latency range 50-1 ms is upside down"));
        assert!(refused("v1.s1.n2.l18446744073709551615-18446744073709551615.r").contains("more than 1125899906842624"));
        assert!(refused("v1.s1.n2.l1-20.r.J0@1+18446744073709551615").contains("more than 1125899906842624"));
        // Each within the bound, their sum not: the simulation adds a process's jumps.
        assert!(refused("v1.s1.n2.l1-20.r.J0@0+1125899906842624.J0@0+1")
            .contains("clock jumps for process 0 add up to more than"));
        assert!(refused("v1.s1.n2.l1-20.r.C4294967296@5").contains("names a process or call that no run has"));
        assert!(refused("v1.s1.n2.l1-20.r.R0#4294967296+5").contains("names a process or call that no run has"));
        assert!(refused("v1.s1.n2.l1-20.r.D0%4294967296").contains("is not a clock drift"));
        assert!(refused("v1.s1.n2.l1-20.q5,0//3").contains("its scheduler orders process 5"));
        // The largest of everything that is allowed still reads.
        assert!(decode("v1.s1.n16.l1125899906842624-1125899906842624.r.J15@1+1125899906842624.P3@1125899906842624+1125899906842624").is_ok());
    }
}
