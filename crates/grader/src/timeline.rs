//! A trace as readable text: one line per event, in time order, with the
//! violating event marked. The command line prints this; tests snapshot it.

use sim::{process_name, Call, CallId, Happening, Note, TraceEvent};
use std::collections::HashMap;

use crate::report::Counterexample;

/// Renders a counterexample: its violation, its timeline, its replay token.
pub fn render_counterexample(counterexample: &Counterexample) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "violated: {} ({})\n",
        counterexample.violation.message, counterexample.violation.invariant
    ));
    out.push_str(&render_trace(
        &counterexample.trace,
        counterexample.violation.trace_index,
    ));
    out.push_str(&format!("replay: {}\n", counterexample.replay_token));
    out
}

/// One line per event: store time, process, its local time, what happened.
pub fn render_trace(trace: &[TraceEvent], mark: Option<usize>) -> String {
    let mut requests: HashMap<CallId, Call> = HashMap::new();
    let mut out = String::new();
    out.push_str("  t(ms)  who    local  what\n");
    for (index, event) in trace.iter().enumerate() {
        let who = event.process.map_or("store".to_string(), process_name);
        let local = event
            .local_ms
            .map_or(String::new(), |local| local.to_string());
        let what = match &event.happening {
            Happening::Invoke { call, request } => {
                requests.insert(*call, request.clone());
                format!("calls {}", request.describe())
            }
            Happening::Apply {
                call,
                result,
                revision,
            } => {
                let request = requests.get(call).map_or("?".to_string(), Call::describe);
                format!(
                    "  store applies {request} -> {} (revision {revision})",
                    result.describe()
                )
            }
            Happening::Complete { call, reply } => {
                let request = requests.get(call).map_or("?".to_string(), Call::describe);
                format!("gets {} from {request}", reply.describe())
            }
            Happening::Lost { call } => {
                let request = requests.get(call).map_or("?".to_string(), Call::describe);
                format!("never gets the reply to {request} (crashed)")
            }
            Happening::Expire { key, revision } => format!("{key:?} expires (revision {revision})"),
            Happening::PauseStart { until_ms } => format!("PAUSED until t={until_ms}"),
            Happening::PauseEnd => "resumes after the pause".into(),
            Happening::Crash => "CRASHES".into(),
            Happening::ClockJump { forward_ms } => format!("clock jumps {forward_ms} ms forward"),
            Happening::Finish => "is done".into(),
            Happening::Note { note } => match note {
                Note::Calling { function } => format!("-- {function}()"),
                Note::Acquired { version, .. } => {
                    format!("-- believes it holds the lock (version {version})")
                }
                Note::NotAcquired { .. } => "-- tryLock returned null".into(),
                Note::Released { version, ok, .. } => {
                    format!("-- unlock(version {version}) returned {ok}")
                }
                Note::Elected { key, version } => format!("-- leads: campaign() returned {key} (version {version})"),
                Note::Resigned { ok, .. } => format!("-- resign() returned {ok}"),
                Note::Work { .. } => "-- does leader work".into(),
                Note::Stepped { .. } => "-- lead() returned".into(),
                Note::Handled {
                    request_id,
                    accepted,
                    ..
                } => format!("-- handleRequest({request_id}) returned {accepted}"),
                Note::Sent {
                    request_id,
                    owner,
                    version,
                } => format!("-- sends request {request_id} as {owner}@{version}"),
                Note::Console { text } => format!("console: {text}"),
                Note::Failed { message } => format!("-- FAILED: {message}"),
            },
        };
        let marker = if Some(index) == mark { ">>" } else { "  " };
        out.push_str(&format!(
            "{marker}{:>5}  {who:<5} {local:>6}  {what}\n",
            event.at_ms
        ));
    }
    out
}
