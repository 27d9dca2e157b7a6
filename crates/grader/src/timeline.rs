//! A trace in words: the one place where events become sentences. The
//! command line's text timeline, the page's timeline and lab mode all say
//! what [`event_words`] says (the page gets the words with each
//! counterexample, and through the wasm's `describeTrace`, `describeCall` and
//! `describeReply`); JavaScript keeps only the layout.

use serde::{Deserialize, Serialize};
use sim::{process_name, Call, CallId, Happening, Note, Reply, TraceEvent};
use std::collections::HashMap;

use crate::report::Counterexample;

/// What one event says, in the lesson's vocabulary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventWords {
    /// The event as a sentence whose subject is its lane ("p1 …", "the store …").
    pub text: String,
    /// For a call's invocation: the call itself, e.g. `get("locks/bar")`
    /// (what the timeline writes on the call's arrow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
}

/// What a note says.
pub fn describe_note(note: &Note) -> String {
    match note {
        Note::Calling { function } => format!("calls {function}()"),
        Note::Acquired { key, version } => format!("now believes it holds {key:?} (version {version})"),
        Note::NotAcquired { .. } => "tryLock() returned null".into(),
        Note::Released { version, ok, .. } => format!("unlock(version {version}) returned {ok}"),
        Note::Elected { key, version } => format!("leads: campaign() returned {key:?} (version {version})"),
        Note::Resigned { ok, .. } => format!("resign() returned {ok}"),
        Note::Work { .. } => "does one unit of leader work".into(),
        Note::Stepped { .. } => "lead() returned: no longer leading".into(),
        Note::Handled { request_id, owner, version, accepted } => {
            format!("handleRequest({request_id} from {owner}@{version}) returned {accepted}")
        }
        Note::Sent { request_id, owner, version } => format!("sends request {request_id} stamped {owner}@{version}"),
        Note::Console { text } => format!("console: {text}"),
        Note::Failed { message } => format!("failed: {message}"),
    }
}

/// The words of every event of a trace, in order.
pub fn event_words(trace: &[TraceEvent]) -> Vec<EventWords> {
    let mut requests: HashMap<CallId, Call> = HashMap::new();
    let described = |requests: &HashMap<CallId, Call>, call: &CallId| {
        requests.get(call).map_or_else(|| "a call".to_string(), Call::describe)
    };
    let mut budget = crate::shown::WordsBudget::new();
    trace
        .iter()
        .map(|event| {
            let mut call_text = None;
            let text = match &event.happening {
                Happening::Invoke { call, request } => {
                    requests.insert(*call, request.clone());
                    let text = request.describe();
                    call_text = Some(text.clone());
                    format!("calls {text}")
                }
                Happening::Apply { call, result, revision } => {
                    format!(
                        "the store applies {}: {} (revision {revision})",
                        described(&requests, call),
                        result.describe()
                    )
                }
                // A sleep has no answer to get: its process wakes up.
                Happening::Complete { call, reply: Reply::Slept } => {
                    format!("wakes up from {}", described(&requests, call))
                }
                Happening::Complete { call, reply } => {
                    format!("gets {} from {}", reply.describe(), described(&requests, call))
                }
                Happening::Lost { call } => {
                    format!("never gets the reply to {}: it crashed", described(&requests, call))
                }
                Happening::Expire { key, revision } => format!("{key:?} expires (revision {revision})"),
                Happening::PauseStart { until_ms } => format!("is paused (stop-the-world) until t={until_ms} ms"),
                Happening::PauseEnd => "resumes after its pause".into(),
                Happening::Crash => "CRASHES and never runs again".into(),
                Happening::ClockJump { forward_ms } => format!("its clock jumps {forward_ms} ms forward"),
                Happening::Finish => "is done".into(),
                Happening::Note { note } => describe_note(note),
            };
            // Bounded: a call's words quote the learner's key and value (crate::shown).
            EventWords { text: budget.show(&text), call: call_text.map(|call| budget.show(&call)) }
        })
        .collect()
}

/// Renders a counterexample: its violation, its timeline, its replay token.
pub fn render_counterexample(counterexample: &Counterexample) -> String {
    let mut out = String::new();
    out.push_str(&format!("violated: {} ({})\n", counterexample.violation.message, counterexample.violation.invariant));
    match counterexample.omitted {
        None => out.push_str(&render_trace(&counterexample.trace, counterexample.violation.trace_index)),
        // The words were made from the whole run: after the gap, they still name the calls made in it.
        Some(omitted) => out.push_str(&render_events(
            &counterexample.trace,
            &counterexample.words,
            counterexample.violation.trace_index,
            Some(omitted),
        )),
    }
    out.push_str(&format!("replay: {}\n", counterexample.replay_token));
    out
}

/// One line per event: store time, process, its local time, what happened.
pub fn render_trace(trace: &[TraceEvent], mark: Option<usize>) -> String {
    render_events(trace, &event_words(trace), mark, None)
}

/// The same, with each event's words given, and a line where `omitted` events were left out.
fn render_events(
    trace: &[TraceEvent],
    words: &[EventWords],
    mark: Option<usize>,
    omitted: Option<crate::report::OmittedEvents>,
) -> String {
    let mut out = String::new();
    out.push_str("  t(ms)  who    local  what\n");
    for (index, (event, words)) in trace.iter().zip(words).enumerate() {
        if let Some(omitted) = omitted.filter(|omitted| omitted.after == index) {
            out.push_str(&format!(
                "  … {} events not shown: the run is long; its replay token reproduces every one …\n",
                omitted.count
            ));
        }
        let who = event.process.map_or("store".to_string(), process_name);
        let local = event.local_ms.map_or(String::new(), |local| local.to_string());
        let marker = if Some(index) == mark { ">>" } else { "  " };
        out.push_str(&format!("{marker}{:>5}  {who:<5} {local:>6}  {}\n", event.at_ms, words.text));
    }
    out
}
