//! The recorded history of a run: what each process asked, when the store
//! applied it, when the answer arrived, the faults, and what the processes
//! declared (acquired, released, work, console output). Checkers read it; the
//! timeline view draws it.

use serde::{Deserialize, Serialize};

use crate::call::{Call, Reply};
use crate::plan::ProcessIndex;

/// A call's id: its position in the run's list of calls.
pub type CallId = u32;

/// What a process declares about itself, for the checkers and the timeline.
/// The harness that drives the learner's functions makes these, never the
/// learner's code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub enum Note {
    /// The harness calls one of the learner's functions now.
    Calling { function: String },
    /// A lock or lease was taken, according to the learner's code.
    Acquired { key: String, version: u64 },
    /// `tryLock` returned null.
    NotAcquired { key: String },
    /// `unlock` returned, with its answer.
    Released { key: String, version: u64, ok: bool },
    /// One unit of leader work starts now.
    Work { key: String },
    /// `lead` returned: leadership ended, by the learner's own account.
    Stepped { key: String },
    /// The worker answered a fenced request.
    #[serde(rename_all = "camelCase")]
    Handled { request_id: String, owner: String, version: u64, accepted: bool },
    /// A request to the worker was sent (by a simulated leader).
    #[serde(rename_all = "camelCase")]
    Sent { request_id: String, owner: String, version: u64 },
    /// `campaign` returned: the process leads, by its own account, with the
    /// key it created and the version that created it.
    Elected { key: String, version: u64 },
    /// `resign` returned, with its answer.
    Resigned { key: String, version: u64, ok: bool },
    /// A line of the learner's console output.
    Console { text: String },
    /// The learner's function failed: threw, returned a wrong shape, or was
    /// stopped by a limit. The run ends with this message.
    Failed { message: String },
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "camelCase")]
pub enum Happening {
    /// A process made a call (request sent).
    Invoke {
        call: CallId,
        request: Call,
    },
    /// The store applied a call; `result` is its answer, on its way back.
    Apply {
        call: CallId,
        result: Reply,
        revision: u64,
    },
    /// The answer reached the process, which resumes.
    Complete {
        call: CallId,
        reply: Reply,
    },
    /// The answer could not be delivered: the process had crashed.
    Lost {
        call: CallId,
    },
    /// A key's TTL ran out; the store deleted it.
    Expire {
        key: String,
        revision: u64,
    },
    #[serde(rename_all = "camelCase")]
    PauseStart {
        until_ms: u64,
    },
    PauseEnd,
    Crash,
    #[serde(rename_all = "camelCase")]
    ClockJump {
        forward_ms: u64,
    },
    Note {
        note: Note,
    },
    /// The process's workload returned.
    Finish,
}

/// A happening, stamped with store time, the process and its local time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceEvent {
    pub at_ms: u64,
    pub process: Option<ProcessIndex>,
    /// The process's own clock reading at that moment.
    pub local_ms: Option<u64>,
    pub happening: Happening,
}
