//! A delivery: how the sandboxed harness (`vm/harness.js`, `deliver`)
//! is told to settle a store call's promise, as one JSON array:
//! `[call, process, "<local clocks, comma-separated>", how, value]`.
//!
//! `value` is already what the learner's code receives (`{ ok: true,
//! version }`, a record, a watch event, …), so the harness parses one text
//! and settles the promise, with nothing to pick apart or reshape: in the
//! sandbox's interpreter that work cost about as much as the rest of a step
//! (BENCHMARKS.md, issue 18). The simulation and lab mode (replies from a
//! real etcd, in the simulation's `Reply` shape) both deliver through here.

use serde::Serialize;

use sim::{CallId, Listed, Record, Reply, WatchEvent};

/// `how`: the promise rejects with `new Error(value)`.
const REJECT: u8 = 0;
/// `how`: the promise resolves with `value`.
const RESOLVE: u8 = 1;
/// `how`: the promise resolves with `undefined` (`ctx.sleep`).
const RESOLVE_UNDEFINED: u8 = 2;

/// What a reply resolves the learner's promise with, in the store API's shape.
#[derive(Serialize)]
#[serde(untagged)]
enum Answer<'a> {
    Record(&'a Option<Record>),
    Swapped { ok: bool, version: Option<u64> },
    NotSwapped { ok: bool, current: &'a Option<Record> },
    Deleted { ok: bool },
    Event(&'a WatchEvent),
    Listing { version: u64, records: &'a [Listed] },
}

/// The delivery of `reply` to call `call` of `process`, with each process's
/// local clock (`clocks`, digits and commas).
pub fn pack(call: CallId, process: u32, clocks: &str, reply: &Reply) -> String {
    pack_with(call, process, |text| text.push_str(clocks), reply)
}

/// `pack`, with the clocks written by `clocks` into the delivery's own
/// text: one allocation per step (this runs at every step of every run).
pub fn pack_with(call: CallId, process: u32, clocks: impl FnOnce(&mut String), reply: &Reply) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(96);
    let _ = write!(text, "[{call},{process},\"");
    clocks(&mut text);
    let mut text = text.into_bytes();
    let how = match reply {
        Reply::Slept => RESOLVE_UNDEFINED,
        Reply::Refused { .. } => REJECT,
        _ => RESOLVE,
    };
    text.extend_from_slice(b"\",");
    text.push(b'0' + how);
    text.push(b',');
    let written = match reply {
        Reply::Get { record } => serde_json::to_writer(&mut text, &Answer::Record(record)),
        Reply::Cas { ok: true, version, .. } => {
            serde_json::to_writer(&mut text, &Answer::Swapped { ok: true, version: *version })
        }
        Reply::Cas { ok: false, current, .. } => {
            serde_json::to_writer(&mut text, &Answer::NotSwapped { ok: false, current })
        }
        Reply::Delete { ok } => serde_json::to_writer(&mut text, &Answer::Deleted { ok: *ok }),
        Reply::Watch { event } => serde_json::to_writer(&mut text, &Answer::Event(event)),
        Reply::List { version, records } => {
            serde_json::to_writer(&mut text, &Answer::Listing { version: *version, records })
        }
        Reply::Slept => {
            text.extend_from_slice(b"null");
            Ok(())
        }
        Reply::Refused { message } => serde_json::to_writer(&mut text, message),
    };
    written.expect("answers serialize");
    text.push(b']');
    String::from_utf8(text).expect("a delivery is UTF-8: its parts are")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Option<Record> {
        Some(Record { value: "p1".into(), version: 7, key_version: 1 })
    }

    #[test]
    fn every_reply_becomes_the_value_the_learner_receives() {
        let cases = [
            (Reply::Get { record: record() }, r#"[3,1,"5,6",1,{"value":"p1","version":7,"keyVersion":1}]"#),
            (Reply::Get { record: None }, r#"[3,1,"5,6",1,null]"#),
            (Reply::Cas { ok: true, version: Some(8), current: None }, r#"[3,1,"5,6",1,{"ok":true,"version":8}]"#),
            (
                Reply::Cas { ok: false, version: None, current: record() },
                r#"[3,1,"5,6",1,{"ok":false,"current":{"value":"p1","version":7,"keyVersion":1}}]"#,
            ),
            (Reply::Delete { ok: false }, r#"[3,1,"5,6",1,{"ok":false}]"#),
            (Reply::Slept, r#"[3,1,"5,6",2,null]"#),
            (Reply::Refused { message: "key \"k\" is too long".into() }, r#"[3,1,"5,6",0,"key \"k\" is too long"]"#),
        ];
        for (reply, expected) in cases {
            assert_eq!(pack(3, 1, "5,6", &reply), expected, "{reply:?}");
        }
    }
}
