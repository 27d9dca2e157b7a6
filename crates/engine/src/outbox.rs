//! The harness's outbox: its messages, and the calls and notes in them as it writes them
//! (`{"op":"cas","key":…}`, `{"note":"acquired","key":…}`), read into
//! `sim::Call` and `sim::Note`.
//!
//! Each line is read into one flat struct holding every field any kind has,
//! then checked for its kind's fields. serde's derived readers for the two
//! internally tagged enums first copy every field into a tree of their own,
//! then read the variant from it: at every step, and as 46 KB (notes) and
//! 25 KB (calls) of wasm that V8 compiles again in every cold process
//! (BENCHMARKS.md, issue 18's tenth pass). Both runners read the outbox
//! here (`SimRun::apply_outbox`); traces and replays still use the derived
//! code. `tests` holds the two to the same values for every line a harness
//! writes; on other lines this reader is the stricter: it takes only JSON
//! objects, and refuses a field of the wrong type or given twice even when
//! the line's kind does not use it.

use std::borrow::Cow;

use serde::Deserialize;
use sim::{Call, Note};

/// Every field a call has, any kind.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallLine<'a> {
    #[serde(borrow)]
    op: Cow<'a, str>,
    #[serde(borrow)]
    key: Option<Cow<'a, str>>,
    #[serde(borrow)]
    next_value: Option<Cow<'a, str>>,
    #[serde(borrow)]
    current_value: Option<Cow<'a, str>>,
    version: Option<u64>,
    ttl_ms: Option<u64>,
    after_version: Option<u64>,
    #[serde(borrow)]
    prefix: Option<Cow<'a, str>>,
    ms: Option<u64>,
}

/// Every field a note has, any kind.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NoteLine<'a> {
    #[serde(borrow)]
    note: Cow<'a, str>,
    #[serde(borrow)]
    function: Option<Cow<'a, str>>,
    #[serde(borrow)]
    key: Option<Cow<'a, str>>,
    version: Option<u64>,
    ok: Option<bool>,
    #[serde(borrow)]
    request_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    owner: Option<Cow<'a, str>>,
    accepted: Option<bool>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
}

/// A field the line's kind needs, in serde's words when it is missing.
fn needed<T>(field: Option<T>, name: &str) -> Result<T, String> {
    field.ok_or_else(|| format!("missing field `{name}`"))
}

fn text(field: Option<Cow<'_, str>>, name: &str) -> Result<String, String> {
    needed(field, name).map(Cow::into_owned)
}

/// The harness writes objects; serde's derived structs would also take an
/// array of the fields in order, which no harness writes.
fn object(json: &str) -> Result<&str, String> {
    if json.trim_start().starts_with('{') {
        Ok(json)
    } else {
        Err("expected a JSON object".to_string())
    }
}

/// A call line (`c<process>|` and this JSON).
pub fn call(json: &str) -> Result<Call, String> {
    let line: CallLine = serde_json::from_str(object(json)?).map_err(|error| error.to_string())?;
    Ok(match &*line.op {
        "get" => Call::Get { key: text(line.key, "key")? },
        "cas" => Call::Cas {
            key: text(line.key, "key")?,
            next_value: text(line.next_value, "nextValue")?,
            current_value: line.current_value.map(Cow::into_owned),
            version: line.version,
            ttl_ms: line.ttl_ms,
        },
        "delete" => Call::Delete { key: text(line.key, "key")?, version: line.version },
        "watch" => {
            Call::Watch { key: text(line.key, "key")?, after_version: needed(line.after_version, "afterVersion")? }
        }
        "list" => Call::List { prefix: text(line.prefix, "prefix")? },
        "sleep" => Call::Sleep { ms: needed(line.ms, "ms")? },
        other => {
            return Err(format!(
                "unknown variant `{other}`, expected one of `get`, `cas`, `delete`, `watch`, `list`, `sleep`"
            ))
        }
    })
}

/// A note line (`n<process>|` and this JSON).
pub fn note(json: &str) -> Result<Note, String> {
    let line: NoteLine = serde_json::from_str(object(json)?).map_err(|error| error.to_string())?;
    let version = || needed(line.version, "version");
    Ok(match &*line.note {
        "calling" => Note::Calling { function: text(line.function, "function")? },
        "acquired" => Note::Acquired { key: text(line.key, "key")?, version: version()? },
        "notAcquired" => Note::NotAcquired { key: text(line.key, "key")? },
        "released" => Note::Released { key: text(line.key, "key")?, version: version()?, ok: needed(line.ok, "ok")? },
        "work" => Note::Work { key: text(line.key, "key")? },
        "stepped" => Note::Stepped { key: text(line.key, "key")? },
        "handled" => Note::Handled {
            request_id: text(line.request_id, "requestId")?,
            owner: text(line.owner, "owner")?,
            version: version()?,
            accepted: needed(line.accepted, "accepted")?,
        },
        "sent" => Note::Sent {
            request_id: text(line.request_id, "requestId")?,
            owner: text(line.owner, "owner")?,
            version: version()?,
        },
        "elected" => Note::Elected { key: text(line.key, "key")?, version: version()? },
        "resigned" => Note::Resigned { key: text(line.key, "key")?, version: version()?, ok: needed(line.ok, "ok")? },
        "console" => Note::Console { text: text(line.text, "text")? },
        "failed" => Note::Failed { message: text(line.message, "message")? },
        other => return Err(format!("unknown variant `{other}`")),
    })
}

/// One message of the harness's outbox (see `harness.js`): a line
/// `c<process>|<call JSON>`, `n<process>|<note JSON>`, `f<process>|` or
/// `s<process>|<reason>`.
#[derive(Debug, PartialEq)]
pub enum Message {
    Call {
        process: u32,
        call: Call,
    },
    Note {
        process: u32,
        note: Note,
    },
    Finished {
        process: u32,
    },
    /// The harness stopped the run (a console flood): nothing after it counts.
    Stopped {
        reason: String,
    },
}

/// The outbox's messages in order. The outbox is written inside the
/// sandbox, beside the learner's code, so it is read as untrusted: a line
/// that cannot be read is an `Err`, the reason the run stops, never a panic.
pub fn messages(outbox: &str) -> impl Iterator<Item = Result<Message, String>> + '_ {
    outbox.split('\n').filter(|line| !line.is_empty()).map(message)
}

/// Why a line could not be recorded, in the learner's terms.
pub fn unreadable(what: &str) -> String {
    format!("did something the grader could not record ({what}); if your code only used ctx as documented, please report this")
}

fn message(line: &str) -> Result<Message, String> {
    let (head, payload) = line.split_once('|').ok_or_else(|| unreadable("an outbox line without a separator"))?;
    let kind = head.bytes().next().ok_or_else(|| unreadable("an outbox line that names no kind"))?;
    let process: u32 = head
        .get(1..)
        .and_then(|digits| digits.parse().ok())
        .ok_or_else(|| unreadable("an outbox line without a process"))?;
    match kind {
        b'c' => {
            let call = self::call(payload).map_err(|error| unreadable(&format!("a store call: {error}")))?;
            Ok(Message::Call { process, call })
        }
        b'n' => {
            let note = self::note(payload).map_err(|error| unreadable(&format!("a note: {error}")))?;
            Ok(Message::Note { process, note })
        }
        b'f' => Ok(Message::Finished { process }),
        b's' => Ok(Message::Stopped { reason: payload.to_string() }),
        _ => Err(unreadable("an outbox line of an unknown kind")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind, with escapes, nulls and absent options: the same value as serde's derived reader.
    #[test]
    fn every_call_and_note_reads_as_the_derived_reader_reads_it() {
        let calls = [
            r#"{"op":"get","key":"lock"}"#,
            r#"{"op":"get","key":"a \"quoted\" \u00e9 key\n"}"#,
            r#"{"op":"cas","key":"lock","nextValue":"p1","currentValue":null,"version":null,"ttlMs":1000}"#,
            r#"{"op":"cas","key":"lock","nextValue":"p2","currentValue":"p1","version":7,"ttlMs":null}"#,
            r#"{"op":"cas","key":"lock","nextValue":"p2"}"#,
            r#"{"op":"delete","key":"lock","version":3}"#,
            r#"{"op":"delete","key":"lock","version":null}"#,
            r#"{"op":"watch","key":"lock","afterVersion":12}"#,
            r#"{"op":"list","prefix":"election/"}"#,
            r#"{"op":"sleep","ms":250}"#,
        ];
        for json in calls {
            let derived: Call = serde_json::from_str(json).unwrap();
            assert_eq!(call(json).unwrap(), derived, "{json}");
        }
        let notes = [
            r#"{"note":"calling","function":"lock"}"#,
            r#"{"note":"acquired","key":"lock","version":4}"#,
            r#"{"note":"notAcquired","key":"lock"}"#,
            r#"{"note":"released","key":"lock","version":4,"ok":true}"#,
            r#"{"note":"work","key":"lease"}"#,
            r#"{"note":"stepped","key":"lease"}"#,
            r#"{"note":"handled","requestId":"r1","owner":"p1","version":9,"accepted":false}"#,
            r#"{"note":"sent","requestId":"r1","owner":"p1","version":9}"#,
            r#"{"note":"elected","key":"election/1","version":5}"#,
            r#"{"note":"resigned","key":"election/1","version":5,"ok":true}"#,
            r#"{"note":"console","text":"tab\there \ud83d\ude00"}"#,
            r#"{"note":"failed","message":"lock.js lock() threw TypeError: x"}"#,
        ];
        for json in notes {
            let derived: Note = serde_json::from_str(json).unwrap();
            assert_eq!(note(json).unwrap(), derived, "{json}");
        }
    }

    /// What the derived reader refuses, this refuses too; and it takes only objects.
    #[test]
    fn what_cannot_be_read_is_refused_with_a_reason() {
        let calls = [
            r#"{"op":"fly"}"#,
            r#"{"op":"get"}"#,
            r#"{"op":"cas","key":"k"}"#,
            r#"{"op":"watch","key":"k","afterVersion":null}"#,
            r#"{"op":"sleep","ms":1e21}"#,
            r#"{"op":"sleep","ms":-1}"#,
            r#"{"op":"get","key":"\ud83d"}"#,
            r#"{"op":"get","key":"a","key":"b"}"#,
            r#"{"key":"k"}"#,
            r#"{"op":"get","key":"k"} trailing"#,
        ];
        for json in calls {
            assert!(serde_json::from_str::<Call>(json).is_err(), "the derived reader takes {json}");
            assert!(call(json).is_err(), "{json}");
        }
        assert_eq!(call(r#"{"op":"fly"}"#).unwrap_err().split(',').next(), Some("unknown variant `fly`"));
        for json in [r#"["get","k"]"#, r#"["get","k",null,null,null,null,null,null,null]"#, r#""get""#, "null"] {
            assert!(call(json).is_err(), "{json}");
            assert!(note(json).is_err(), "{json}");
        }
        let notes = [
            r#"{"note":"shout"}"#,
            r#"{"note":"acquired","key":"k"}"#,
            r#"{"note":"released","key":"k","version":1}"#,
            r#"{"note":"console","text":"\ud83d"}"#,
            r#"{"note":"console","text":7}"#,
        ];
        for json in notes {
            assert!(serde_json::from_str::<Note>(json).is_err(), "the derived reader takes {json}");
            assert!(note(json).is_err(), "{json}");
        }
    }
}
