//! Running a sequence on both sides, finding the first difference, shrinking
//! a failing sequence to a minimal one, and the report.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::answer::{Answer, LeaseState, State};
use crate::etcd::Etcd;
use crate::generate::generate;
use crate::model::Model;
use crate::ops::Op;
use crate::sides::{EtcdSide, KvSide, Side};

/// One operation and what each side said.
#[derive(Clone, Debug)]
pub struct Step {
    pub op: Op,
    pub model: Answer,
    pub etcd: Answer,
    pub model_state: State,
    pub etcd_state: State,
}

impl Step {
    fn differs(&self) -> Option<&'static str> {
        if self.model != self.etcd {
            Some("answer")
        } else if self.model_state != self.etcd_state {
            Some("state after")
        } else {
            None
        }
    }
}

/// A sequence's run on both sides.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub steps: Vec<Step>,
    /// The sequence's leases still alive at the end: (model, etcd).
    pub leases: (Vec<LeaseState>, Vec<LeaseState>),
    /// The step that differed (its index and what differed), or `None`
    /// with `leases_differ` for a difference only in the leases at the end.
    pub first_difference: Option<(usize, &'static str)>,
    pub leases_differ: bool,
    pub etcd_base: i64,
}

impl Outcome {
    pub fn matches(&self) -> bool {
        self.first_difference.is_none() && !self.leases_differ
    }
}

/// Runs sequences against one etcd, each under a fresh key prefix.
pub struct Differ<'a> {
    etcd: &'a Etcd,
    run_id: String,
    sequences: AtomicU64,
}

impl<'a> Differ<'a> {
    pub fn new(etcd: &'a Etcd, name: &str) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        Differ { etcd, run_id: format!("{name}-{nanos:x}"), sequences: AtomicU64::new(0) }
    }

    /// Applies `ops` to a fresh model and, under a fresh prefix, to etcd;
    /// stops at the first difference.
    pub fn run<M: Model>(&self, ops: &[Op], model: M) -> Outcome {
        let number = self.sequences.fetch_add(1, Ordering::Relaxed);
        let mut etcd = EtcdSide::new(self.etcd, format!("/etcd-diff/{}/{number}/", self.run_id));
        let mut kv = KvSide::new(model);
        let mut steps = Vec::with_capacity(ops.len());
        let mut first_difference = None;
        for (index, op) in ops.iter().enumerate() {
            let model_answer = kv.apply(op);
            let etcd_answer = etcd.apply(op);
            let step = Step {
                op: op.clone(),
                model: model_answer,
                etcd: etcd_answer,
                model_state: kv.state(),
                etcd_state: etcd.state(),
            };
            let differs = step.differs();
            steps.push(step);
            if let Some(what) = differs {
                first_difference = Some((index, what));
                break;
            }
        }
        let leases = (kv.leases(), etcd.leases());
        let leases_differ = first_difference.is_none() && leases.0 != leases.1;
        let etcd_base = etcd.base();
        etcd.cleanup();
        Outcome { steps, leases, first_difference, leases_differ, etcd_base }
    }

    /// Runs `ops`; on a difference, shrinks and returns the report.
    pub fn check<M: Model>(&self, seed: u64, ops: &[Op], make_model: &dyn Fn() -> M) -> Result<Outcome, Box<Failure>> {
        let outcome = self.run(ops, make_model());
        if outcome.matches() {
            return Ok(outcome);
        }
        let started = Instant::now();
        let (shrunk, runs) = shrink(ops.to_vec(), |candidate| !self.run(candidate, make_model()).matches());
        // The shrunk sequence failed on its last run; run it once more for
        // the report (a flaky difference shows as a passing replay).
        let outcome = self.run(&shrunk, make_model());
        Err(Box::new(Failure { seed, original: ops.to_vec(), shrunk, outcome, runs, shrink_time: started.elapsed() }))
    }
}

/// Shrinks a failing sequence: first drops operations (halves, quarters, …,
/// single ones), then simplifies the remaining ones, until nothing smaller
/// fails. `fails` is called at most a few hundred times.
pub fn shrink(mut ops: Vec<Op>, mut fails: impl FnMut(&[Op]) -> bool) -> (Vec<Op>, usize) {
    const RUNS_MAX: usize = 600;
    let mut runs = 0;
    let mut try_candidate = |candidate: &[Op], runs: &mut usize| -> bool {
        *runs += 1;
        fails(candidate)
    };
    loop {
        let mut progress = false;
        // Drop chunks.
        let mut size = ops.len().div_ceil(2);
        while size >= 1 && runs < RUNS_MAX {
            let mut start = 0;
            while start < ops.len() && runs < RUNS_MAX {
                let end = (start + size).min(ops.len());
                let candidate: Vec<Op> = ops[..start].iter().chain(&ops[end..]).cloned().collect();
                if !candidate.is_empty() && try_candidate(&candidate, &mut runs) {
                    ops = candidate;
                    progress = true;
                } else {
                    start += size;
                }
            }
            if size == 1 {
                break;
            }
            size = size.div_ceil(2);
        }
        // Simplify single operations.
        let mut index = 0;
        while index < ops.len() && runs < RUNS_MAX {
            let mut simplified = false;
            for simpler in simpler(&ops[index]) {
                let mut candidate = ops.clone();
                candidate[index] = simpler;
                if try_candidate(&candidate, &mut runs) {
                    ops = candidate;
                    progress = true;
                    simplified = true;
                    break;
                }
            }
            if !simplified {
                index += 1;
            }
        }
        if !progress || runs >= RUNS_MAX {
            return (ops, runs);
        }
    }
}

/// Smaller variants of one operation, simplest first.
fn simpler(op: &Op) -> Vec<Op> {
    use crate::ops::LeaseRef;
    let mut variants = Vec::new();
    match op {
        Op::Txn { compares, success, failure } => {
            for index in 0..compares.len() {
                let mut compares = compares.clone();
                compares.remove(index);
                variants.push(Op::Txn { compares, success: success.clone(), failure: failure.clone() });
            }
            for index in 0..success.len() {
                let mut success = success.clone();
                success.remove(index);
                variants.push(Op::Txn { compares: compares.clone(), success, failure: failure.clone() });
            }
            for index in 0..failure.len() {
                let mut failure = failure.clone();
                failure.remove(index);
                variants.push(Op::Txn { compares: compares.clone(), success: success.clone(), failure });
            }
        }
        Op::Cas { key, expect_value, expect_mod, next, lease } => {
            if expect_mod.is_some() {
                variants.push(Op::Cas {
                    key: *key,
                    expect_value: expect_value.clone(),
                    expect_mod: None,
                    next: next.clone(),
                    lease: *lease,
                });
            }
            if *lease != LeaseRef::None {
                variants.push(Op::Cas {
                    key: *key,
                    expect_value: expect_value.clone(),
                    expect_mod: *expect_mod,
                    next: next.clone(),
                    lease: LeaseRef::None,
                });
            }
        }
        Op::Put { key, value, lease } if *lease != LeaseRef::None => {
            variants.push(Op::Put { key: *key, value: value.clone(), lease: LeaseRef::None });
        }
        Op::PutPrev { key, value, lease } => {
            variants.push(Op::Put { key: *key, value: value.clone(), lease: *lease });
        }
        Op::DeleteIf { key, mod_revision: Some(_) } => {
            variants.push(Op::DeleteIf { key: *key, mod_revision: None });
        }
        _ => {}
    }
    variants
}

/// A difference, shrunk, with both sides' answers.
#[derive(Debug)]
pub struct Failure {
    pub seed: u64,
    pub original: Vec<Op>,
    pub shrunk: Vec<Op>,
    pub outcome: Outcome,
    pub runs: usize,
    pub shrink_time: Duration,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kv and etcd disagree: sequence seed {:#x}", self.seed)?;
        writeln!(
            f,
            "replay against kv::Store: ETCD_DIFF_SEED={:#x} ETCD_DIFF_SEQUENCES=1 cargo test -p etcd-diff --test differential random_sequences",
            self.seed
        )?;
        writeln!(
            f,
            "shrunk from {} to {} operations in {} runs ({:.1} s); revisions are shown relative to the sequence's start (etcd's base here: {})",
            self.original.len(),
            self.shrunk.len(),
            self.runs,
            self.shrink_time.as_secs_f64(),
            self.outcome.etcd_base
        )?;
        if self.outcome.matches() {
            writeln!(f, "NOTE: the shrunk sequence matched on its final replay: the difference is not deterministic")?;
        }
        for (index, step) in self.outcome.steps.iter().enumerate() {
            let marker = match self.outcome.first_difference {
                Some((at, what)) if at == index => format!("   <-- {what} differs"),
                _ => String::new(),
            };
            writeln!(f, "  #{index} {}{marker}", step.op)?;
            writeln!(f, "      kv:   {}", step.model)?;
            writeln!(f, "      etcd: {}", step.etcd)?;
            if step.model_state != step.etcd_state || !marker.is_empty() {
                writeln!(f, "      kv state:   {}", step.model_state)?;
                writeln!(f, "      etcd state: {}", step.etcd_state)?;
            }
        }
        if self.outcome.leases_differ {
            writeln!(f, "  leases at the end differ:")?;
        } else {
            writeln!(f, "  leases at the end:")?;
        }
        let show = |leases: &[LeaseState]| leases.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        writeln!(f, "      kv:   [{}]", show(&self.outcome.leases.0))?;
        writeln!(f, "      etcd: [{}]", show(&self.outcome.leases.1))?;
        writeln!(f, "original sequence:")?;
        for op in &self.original {
            writeln!(f, "  {op}")?;
        }
        Ok(())
    }
}

/// How many sequences, from which seed, on how many etcd servers.
#[derive(Clone, Debug)]
pub struct Config {
    pub sequences: usize,
    /// Sequence `i` uses seed `seed + i`.
    pub seed: u64,
    pub workers: usize,
    pub len_max: usize,
}

impl Config {
    /// The defaults, overridden by `ETCD_DIFF_SEQUENCES`, `ETCD_DIFF_SEED`
    /// (decimal or 0x-hex) and `ETCD_DIFF_WORKERS`. Without a seed, each run
    /// draws a new one from the clock and prints it.
    pub fn from_env(sequences: usize) -> Config {
        fn number(name: &str) -> Option<u64> {
            let text = std::env::var(name).ok()?;
            let text = text.trim();
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
        }
        let seed = number("ETCD_DIFF_SEED").unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            (nanos.as_nanos() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16
        });
        Config {
            sequences: number("ETCD_DIFF_SEQUENCES").map_or(sequences, |n| n as usize),
            seed,
            workers: number("ETCD_DIFF_WORKERS").map_or(2, |n| n.max(1) as usize),
            len_max: 20,
        }
    }
}

/// What a clean run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub sequences: usize,
    pub operations: usize,
    pub elapsed: Duration,
    /// How often each kind of answer came back (both sides agreed on it),
    /// to show that compares both held and failed, refusals happened, etc.
    pub answers: BTreeMap<&'static str, usize>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} sequences ({} operations) matched in {:.1} s; answers: ",
            self.sequences,
            self.operations,
            self.elapsed.as_secs_f64()
        )?;
        let answers: Vec<String> = self.answers.iter().map(|(kind, count)| format!("{kind} {count}")).collect();
        write!(f, "{}", answers.join(", "))
    }
}

/// A short name for the kind of an answer, for the summary.
pub fn answer_kind(answer: &Answer) -> &'static str {
    use crate::answer::Refused;
    match answer {
        Answer::Put { .. } => "put",
        Answer::PutPrev { prev: None, .. } => "put(prev) created",
        Answer::PutPrev { prev: Some(_), .. } => "put(prev) overwrote",
        Answer::Get { kv: None } => "get missing",
        Answer::Get { kv: Some(_) } => "get found",
        Answer::Delete { prev: None, .. } => "delete missing",
        Answer::Delete { prev: Some(_), .. } => "delete deleted",
        Answer::DeleteIf { deleted: None, .. } => "delete_if kept",
        Answer::DeleteIf { deleted: Some(_), .. } => "delete_if deleted",
        Answer::Cas { swapped: true, .. } => "cas swapped",
        Answer::Cas { swapped: false, .. } => "cas mismatched",
        Answer::Txn { succeeded: true, .. } => "txn succeeded",
        Answer::Txn { succeeded: false, .. } => "txn failed",
        Answer::Grant { .. } => "grant",
        Answer::KeepAlive { .. } => "keep_alive",
        Answer::Revoke { .. } => "revoke",
        Answer::Refused(Refused::LeaseNotFound) => "refused: lease not found",
        Answer::Refused(Refused::DuplicateKeyInTxn) => "refused: duplicate key in txn",
        Answer::Refused(Refused::Other(_)) => "refused: other",
    }
}

/// Runs `config.sequences` random sequences on `config.workers` etcd servers
/// (one thread each, each with its own server, so that revisions are not
/// shared); stops at the first difference and returns it shrunk.
pub fn run_random<M: Model>(config: &Config, make_model: &(dyn Fn() -> M + Sync)) -> Result<Summary, Box<Failure>> {
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Box<Failure>>> = Mutex::new(None);
    let operations = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let answers: Mutex<BTreeMap<&'static str, usize>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for worker in 0..config.workers {
            let (stop, failure, operations, done, answers) = (&stop, &failure, &operations, &done, &answers);
            scope.spawn(move || {
                let etcd = Etcd::start().unwrap_or_else(|error| panic!("{error}"));
                let differ = Differ::new(&etcd, &format!("random{worker}"));
                let mut index = worker;
                while index < config.sequences && !stop.load(Ordering::Relaxed) {
                    let seed = config.seed.wrapping_add(index as u64);
                    let ops = generate(seed, config.len_max);
                    operations.fetch_add(ops.len() as u64, Ordering::Relaxed);
                    let outcome = differ.check(seed, &ops, make_model);
                    if let Ok(outcome) = &outcome {
                        let mut answers = answers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        for step in &outcome.steps {
                            *answers.entry(answer_kind(&step.model)).or_default() += 1;
                        }
                    }
                    if let Err(found) = outcome {
                        stop.store(true, Ordering::Relaxed);
                        let mut slot = failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        if slot.as_ref().is_none_or(|first| found.seed < first.seed) {
                            *slot = Some(found);
                        }
                        return;
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    index += config.workers;
                }
            });
        }
    });
    if let Some(found) = failure.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()) {
        return Err(found);
    }
    Ok(Summary {
        sequences: done.load(Ordering::Relaxed) as usize,
        operations: operations.load(Ordering::Relaxed) as usize,
        elapsed: started.elapsed(),
        answers: answers.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()),
    })
}
