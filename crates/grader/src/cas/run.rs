//! Running a workload against a submission, and the run as a trace.
//!
//! A runner (this module for Rust stores, the JavaScript runner for the
//! learner's `cas.js`) produces a [`CasRecording`]: one answer per
//! operation, in order. [`execution`] turns it into the [`Execution`] that
//! every exercise reports (a trace of `Invoke`/`Complete` pairs), and
//! [`replay_answers`] reads the answers back out of a trace for the checker,
//! so the verdict depends on the trace alone.

use serde::{Deserialize, Serialize};
use sim::{Call, CallId, Ending, Happening, Note, Reply, TraceEvent};

use super::answers::concrete_call;
use super::store::{CasAnswer, CasOptions, CasStoreApi, CasVariant, Clock};
use super::workload::{CasOp, CasWorkload};
use crate::grade::{Case, Execution};

/// Console lines kept in one trace, at most; the rest are summarized.
pub const CONSOLE_LINES_MAX: usize = 200;

/// A line the submission printed while answering `ops[op]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleLine {
    pub op: usize,
    pub text: String,
}

/// What a runner hands back after applying a workload to a store.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CasRecording {
    /// `answers[i]` answers `ops[i]` (`Slept` for an advance). Shorter than
    /// the workload when the run stopped early.
    pub answers: Vec<Reply>,
    /// Why the run stopped at `ops[answers.len()]`: the store threw, answered
    /// with something that is not an answer, or hit a limit.
    pub failure: Option<String>,
    pub console: Vec<ConsoleLine>,
}

/// Applies the workload to a Rust store in order, as the JavaScript runner
/// does to the learner's. Stops (without a failure) at an operation whose
/// version this store's own answers cannot supply; the checker has then
/// already found an earlier answer that differs from `kv`'s.
pub fn record(workload: &CasWorkload, store: &mut dyn CasStoreApi, clock: &Clock) -> CasRecording {
    let mut answers = Vec::with_capacity(workload.ops.len());
    for index in 0..workload.ops.len() {
        let Ok(call) = concrete_call(&workload.ops, index, &answers) else {
            break;
        };
        let answer = match call {
            None => {
                let CasOp::Advance { ms } = workload.ops[index] else { unreachable!("only an advance makes no call") };
                clock.advance(ms);
                Reply::Slept
            }
            Some(Call::Get { key }) => Reply::Get { record: store.get(&key) },
            Some(Call::Cas { key, next_value, current_value, version, ttl_ms }) => {
                match store.compare_and_swap(
                    &key,
                    &next_value,
                    current_value.as_deref(),
                    CasOptions { version, ttl_ms },
                ) {
                    CasAnswer::Swapped { version } => Reply::Cas { ok: true, version: Some(version), current: None },
                    CasAnswer::Mismatch { current } => Reply::Cas { ok: false, version: None, current },
                }
            }
            Some(Call::Delete { key, version }) => Reply::Delete { ok: store.delete(&key, version) },
            Some(other) => unreachable!("a cas workload makes no {other:?}"),
        };
        answers.push(answer);
    }
    CasRecording { answers, failure: None, console: Vec::new() }
}

/// Runs one case with a Rust store variant.
pub fn run_rust(variant: CasVariant, case: &Case<CasWorkload>) -> Execution {
    let clock = Clock::new();
    let mut store = variant.create(clock.clone());
    execution(&case.workload, &record(&case.workload, &mut store, &clock))
}

/// The run as a trace, one process (`p1`, the code driving the store):
/// per store operation an `Invoke` with the call (its version resolved from
/// this store's answers) and a `Complete` with the answer, stamped with the
/// clock; the console lines in between; a `Failed` note where it stopped.
/// Advances leave no event: the time column shows them.
pub fn execution(workload: &CasWorkload, recording: &CasRecording) -> Execution {
    let event =
        |at_ms: u64, happening: Happening| TraceEvent { at_ms, process: Some(0), local_ms: Some(at_ms), happening };
    let mut trace = Vec::with_capacity(2 * recording.answers.len() + 1);
    // Lines are matched to operations in order, whatever order they came in.
    let mut console_sorted: Vec<&ConsoleLine> = recording.console.iter().collect();
    console_sorted.sort_by_key(|line| line.op);
    let mut console = console_sorted.into_iter().peekable();
    let mut console_lines = 0;
    let mut now_ms = 0;
    let mut next_call: CallId = 0;
    let mut ending = Ending::AllFinished;
    for (index, op) in workload.ops.iter().enumerate() {
        let answer = recording.answers.get(index);
        if answer.is_none() && recording.failure.is_none() {
            ending = Ending::Stopped;
            break;
        }
        let Ok(call) = concrete_call(&workload.ops, index, &recording.answers[..index]) else {
            ending = Ending::Stopped;
            break;
        };
        let call_id = next_call;
        match call {
            None => {
                if let CasOp::Advance { ms } = op {
                    now_ms += ms;
                }
            }
            Some(request) => {
                next_call += 1;
                trace.push(event(now_ms, Happening::Invoke { call: call_id, request }));
            }
        }
        while let Some(line) = console.next_if(|line| line.op <= index) {
            console_lines += 1;
            match console_lines.cmp(&(CONSOLE_LINES_MAX + 1)) {
                std::cmp::Ordering::Less => {
                    trace.push(event(now_ms, Happening::Note { note: Note::Console { text: line.text.clone() } }))
                }
                std::cmp::Ordering::Equal => {
                    let text = format!("… more console output cut (over {CONSOLE_LINES_MAX} lines)");
                    trace.push(event(now_ms, Happening::Note { note: Note::Console { text } }));
                }
                std::cmp::Ordering::Greater => {}
            }
        }
        match answer {
            Some(reply) if op.key().is_some() => {
                trace.push(event(now_ms, Happening::Complete { call: call_id, reply: reply.clone() }))
            }
            Some(_) => {}
            None => {
                let message = recording.failure.clone().unwrap_or_default();
                trace.push(event(now_ms, Happening::Note { note: Note::Failed { message } }));
                break;
            }
        }
    }
    Execution { ending, trace }
}

/// The answers as a trace shows them, for the checker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replayed {
    /// `answers[i]` answers `ops[i]`, as in [`CasRecording`].
    pub answers: Vec<Reply>,
    pub failure: Option<String>,
    /// For each operation, the trace event that holds its answer (or its
    /// failure); `None` for an advance.
    pub trace_index: Vec<Option<usize>>,
}

/// Reads the answers back out of a trace made by [`execution`].
pub fn replay_answers(workload: &CasWorkload, trace: &[TraceEvent]) -> Replayed {
    let mut completions = Vec::new();
    let mut failed = None;
    for (index, event) in trace.iter().enumerate() {
        match &event.happening {
            Happening::Complete { reply, .. } => completions.push((index, reply)),
            Happening::Note { note: Note::Failed { message } } if failed.is_none() => {
                failed = Some((index, message.clone()))
            }
            _ => {}
        }
    }
    let mut completions = completions.into_iter();
    let mut replayed = Replayed::default();
    for op in &workload.ops {
        if op.key().is_none() {
            replayed.answers.push(Reply::Slept);
            replayed.trace_index.push(None);
            continue;
        }
        match completions.next() {
            Some((index, reply)) => {
                replayed.answers.push(reply.clone());
                replayed.trace_index.push(Some(index));
            }
            None => {
                if let Some((index, message)) = failed {
                    replayed.failure = Some(message);
                    replayed.trace_index.push(Some(index));
                }
                break;
            }
        }
    }
    replayed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::WorkloadText;

    #[test]
    fn a_trace_gives_back_the_answers_it_was_made_from() {
        let workload = CasWorkload::decode("ca=x/~+100,t50,ga,t50,ga,da").unwrap();
        let clock = Clock::new();
        let mut store = CasVariant::Reference.create(clock.clone());
        let recording = record(&workload, &mut store, &clock);
        assert_eq!(recording.answers.len(), 6);
        let execution = execution(&workload, &recording);
        assert_eq!(execution.ending, Ending::AllFinished);
        // Two events per store operation; advances show only in the times.
        assert_eq!(execution.trace.len(), 8);
        assert_eq!(execution.trace[2].at_ms, 50);
        assert_eq!(execution.trace[4].at_ms, 100);
        let replayed = replay_answers(&workload, &execution.trace);
        assert_eq!(replayed.answers, recording.answers);
        assert_eq!(replayed.trace_index, vec![Some(1), None, Some(3), None, Some(5), Some(7)]);
    }

    #[test]
    fn a_failure_ends_the_trace_with_its_message() {
        let workload = CasWorkload::decode("ca=x/~,t10,ga,ga").unwrap();
        let recording = CasRecording {
            answers: vec![Reply::Cas { ok: true, version: Some(1), current: None }, Reply::Slept],
            failure: Some("TypeError: boom".into()),
            console: vec![ConsoleLine { op: 2, text: "reading a".into() }],
        };
        let execution = execution(&workload, &recording);
        let last = execution.trace.last().unwrap();
        assert_eq!(last.happening, Happening::Note { note: Note::Failed { message: "TypeError: boom".into() } });
        assert_eq!(last.at_ms, 10);
        assert_eq!(execution.trace[3].happening, Happening::Note { note: Note::Console { text: "reading a".into() } });
        let replayed = replay_answers(&workload, &execution.trace);
        assert_eq!(replayed.answers.len(), 2);
        assert_eq!(replayed.failure.as_deref(), Some("TypeError: boom"));
        assert_eq!(replayed.trace_index[2], Some(4));
    }
}
