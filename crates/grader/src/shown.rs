//! How much learner text a report shows. A submission chooses the keys,
//! values and messages its runs record, and a failing test's counterexample
//! repeats them in its trace, in its words and in the violation. Without a
//! bound, a 0.6 KB file that sends a 64 KiB key a few dozen times made a
//! report of hundreds of megabytes, which took down the grading thread's
//! process (and with it a class's batch). Reports show a prefix of each
//! text and say how long it was; the run itself (and so the verdict, the
//! replay and its token) is unchanged.

use serde_json::Value;

/// The most characters one string of a counterexample's trace shows: more
/// than any key the store takes (256 bytes).
pub const TRACE_TEXT_CHARS_MAX: usize = 300;

/// The most characters one sentence of a timeline shows: an event's words
/// name at most a call and its answer.
pub const WORDS_CHARS_MAX: usize = 600;

/// The most characters of a violation's message (and so a test's message):
/// room for a few keys the store takes (256 bytes each) and the sentence
/// around them. A longer one loses its middle (`cut_middle`), since its end
/// says what the rule is.
pub const MESSAGE_CHARS_MAX: usize = 2_000;

/// How much text a counterexample's trace, and its words, show in all at
/// the limits above; past it, each string and sentence is cut shorter (the
/// `_PAST_BUDGET` limits), so a run of thousands of calls, each with a long
/// key, costs what one of short keys does: a few hundred bytes an event.
pub const TRACE_TEXT_BUDGET_CHARS: usize = 16 * 1024;
pub const TRACE_TEXT_CHARS_PAST_BUDGET: usize = 24;

/// The most records one list of a trace event shows (a `list` reply holds
/// up to the store's 1,000 keys, and a trace holds it twice: as the store
/// applied it and as the process got it), within the budget and past it.
/// The event's words still name every key, cut like any sentence.
pub const TRACE_RECORDS_MAX: usize = 20;
pub const TRACE_RECORDS_PAST_BUDGET: usize = 3;
pub const WORDS_BUDGET_CHARS: usize = 32 * 1024;
pub const WORDS_CHARS_PAST_BUDGET: usize = 160;

/// The most events a counterexample shows: its first EVENTS_SHOWN_FIRST and
/// its last ones, the violation among them. Shrinking makes a story short,
/// but not one whose run is long by the learner's own doing: a 1.6 KB
/// election.js that lists the queue 500 times inside resign() failed every
/// test with the same 1,600 events, a 7 MB report, and a run may record
/// 20,000. Every counterexample of the accuracy corpus and the known-buggy
/// ports is shown whole (the longest, 218 events, is a lease run), and a
/// replay of the token shows every event. With the texts' bounds above, an
/// event shows at most about 800 bytes (its trace entry, its words and its
/// line of the text timeline), so a test's counterexample about 200 KB.
pub const EVENTS_SHOWN_MAX: usize = 240;
pub const EVENTS_SHOWN_FIRST: usize = 40;

/// `events` as a report shows them: all of them, or the first
/// EVENTS_SHOWN_FIRST and the last ones, up to EVENTS_SHOWN_MAX in all, with
/// what was left out between.
pub fn shown_events<T>(mut events: Vec<T>) -> (Vec<T>, Option<crate::report::OmittedEvents>) {
    if events.len() <= EVENTS_SHOWN_MAX {
        return (events, None);
    }
    let count = events.len() - EVENTS_SHOWN_MAX;
    events.drain(EVENTS_SHOWN_FIRST..EVENTS_SHOWN_FIRST + count);
    (events, Some(crate::report::OmittedEvents { after: EVENTS_SHOWN_FIRST, count }))
}

/// A counterexample's trace as a report shows it: every string cut to
/// TRACE_TEXT_CHARS_MAX characters, or shorter once the trace has shown
/// TRACE_TEXT_BUDGET_CHARS of them.
pub fn shown_trace(trace: &[sim::TraceEvent]) -> Vec<sim::TraceEvent> {
    let mut shown = 0;
    trace
        .iter()
        .map(|event| {
            let (max, records) = if shown < TRACE_TEXT_BUDGET_CHARS {
                (TRACE_TEXT_CHARS_MAX, TRACE_RECORDS_MAX)
            } else {
                (TRACE_TEXT_CHARS_PAST_BUDGET, TRACE_RECORDS_PAST_BUDGET)
            };
            let mut tree = serde_json::to_value(event).expect("a trace event serializes");
            shown += cut_tree(&mut tree, max, records);
            serde_json::from_value(tree).expect("a trace event with cut strings reads back")
        })
        .collect()
}

/// Sentences as a timeline shows them: each cut to WORDS_CHARS_MAX
/// characters, or shorter once WORDS_BUDGET_CHARS have been shown.
pub struct WordsBudget {
    shown: usize,
}

impl WordsBudget {
    pub fn new() -> Self {
        WordsBudget { shown: 0 }
    }

    /// `text` as shown, counted against the budget.
    pub fn show(&mut self, text: &str) -> String {
        let max = if self.shown < WORDS_BUDGET_CHARS { WORDS_CHARS_MAX } else { WORDS_CHARS_PAST_BUDGET };
        let shown = cut(text, max);
        self.shown += shown.len();
        shown
    }
}

impl Default for WordsBudget {
    fn default() -> Self {
        Self::new()
    }
}

/// `text`, or its first and last `max / 2` characters and how many were left out between.
pub fn cut_middle(text: &str, max: usize) -> String {
    let length = text.chars().count();
    if length <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let tail: String = text.chars().skip(length - max / 2).collect();
    format!("{head} … ({} characters cut) … {tail}", length - 2 * (max / 2))
}

/// `text`, or its first `max` characters and how long it was.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}… (cut: {} characters in all)", &text[..end], text.chars().count()),
    }
}

/// Cuts the strings of `tree` to `max` characters and its lists of records
/// to `records` in place; returns the bytes of string it kept. Only lists of
/// objects are shortened (a trace's are records; a tuple's array must keep
/// its length to read back).
fn cut_tree(tree: &mut Value, max: usize, records: usize) -> usize {
    match tree {
        Value::String(text) => {
            if text.chars().nth(max).is_some() {
                *text = cut(text, max);
            }
            text.len()
        }
        Value::Array(items) => {
            if items.len() > records && items.iter().all(Value::is_object) {
                items.truncate(records);
            }
            items.iter_mut().map(|item| cut_tree(item, max, records)).sum()
        }
        Value::Object(fields) => fields.values_mut().map(|item| cut_tree(item, max, records)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_shows_its_first_and_last_events_and_says_how_many_it_left_out() {
        let (short, omitted) = shown_events((0..EVENTS_SHOWN_MAX).collect::<Vec<_>>());
        assert_eq!((short.len(), omitted), (EVENTS_SHOWN_MAX, None));
        let (shown, omitted) = shown_events((0..1_000).collect::<Vec<usize>>());
        let omitted = omitted.expect("a long run leaves events out");
        assert_eq!(shown.len(), EVENTS_SHOWN_MAX);
        assert_eq!((omitted.after, omitted.count), (EVENTS_SHOWN_FIRST, 1_000 - EVENTS_SHOWN_MAX));
        assert_eq!(shown[..EVENTS_SHOWN_FIRST], (0..EVENTS_SHOWN_FIRST).collect::<Vec<_>>()[..]);
        // The last event, where a counterexample's rule broke, is always shown.
        assert_eq!(shown[EVENTS_SHOWN_FIRST], EVENTS_SHOWN_FIRST + omitted.count);
        assert_eq!(shown.last(), Some(&999));
    }

    #[test]
    fn short_text_is_left_alone_and_long_text_says_how_long_it_was() {
        assert_eq!(cut("locks/a", 300), "locks/a");
        assert_eq!(cut(&"k".repeat(300), 300), "k".repeat(300));
        assert_eq!(cut(&"k".repeat(301), 300), format!("{}… (cut: 301 characters in all)", "k".repeat(300)));
        // Characters, not bytes: a cut never splits one.
        assert_eq!(cut("ééé", 2), "éé… (cut: 3 characters in all)");
    }

    #[test]
    fn a_long_message_keeps_its_beginning_and_its_end() {
        assert_eq!(cut_middle("short", 10), "short");
        let message = format!("get(\"{}\") returned a record: every key is its own", "k".repeat(3_000));
        let shown = cut_middle(&message, MESSAGE_CHARS_MAX);
        assert!(shown.starts_with("get(\"kkk"));
        assert!(shown.ends_with("kkk\") returned a record: every key is its own"));
        let marker = format!(" … ({} characters cut) … ", message.chars().count() - MESSAGE_CHARS_MAX);
        assert!(shown.contains(&marker), "{shown}");
        assert_eq!(shown.chars().count(), MESSAGE_CHARS_MAX + marker.chars().count());
    }

    #[test]
    fn a_trace_shows_every_string_cut_and_past_its_budget_shorter() {
        let key = "k".repeat(4_096);
        let event = |at_ms| sim::TraceEvent {
            at_ms,
            process: Some(0),
            local_ms: Some(at_ms),
            happening: sim::Happening::Expire { key: key.clone(), revision: 3 },
        };
        let trace: Vec<_> = (0..1_000).map(event).collect();
        let shown = shown_trace(&trace);
        let key_of = |event: &sim::TraceEvent| match &event.happening {
            sim::Happening::Expire { key, revision: 3 } => key.clone(),
            other => panic!("the event changed: {other:?}"),
        };
        assert_eq!(key_of(&shown[0]), cut(&key, TRACE_TEXT_CHARS_MAX));
        assert_eq!(key_of(&shown[999]), cut(&key, TRACE_TEXT_CHARS_PAST_BUDGET));
        assert!(shown.iter().zip(&trace).all(|(shown, event)| shown.at_ms == event.at_ms));
        // The budget, then about what short keys would cost: bounded however long the learner's keys were.
        let bytes = serde_json::to_string(&shown).unwrap().len();
        assert!(bytes < TRACE_TEXT_BUDGET_CHARS * 2 + 150 * 1_000, "{bytes} bytes for 1,000 events");
        assert!(bytes * 10 < serde_json::to_string(&trace).unwrap().len());
    }

    #[test]
    fn a_list_reply_shows_a_few_records_however_many_it_had() {
        let listed = |index: u64| sim::Listed {
            key: format!("z{index}"),
            value: String::new(),
            version: index + 1,
            key_version: 1,
            create_version: index + 1,
        };
        let event = sim::TraceEvent {
            at_ms: 9,
            process: Some(0),
            local_ms: Some(9),
            happening: sim::Happening::Complete {
                call: 4,
                reply: sim::Reply::List { version: 1_000, records: (0..1_000).map(listed).collect() },
            },
        };
        let trace = vec![event; 400];
        let shown = shown_trace(&trace);
        let records = |event: &sim::TraceEvent| match &event.happening {
            sim::Happening::Complete { reply: sim::Reply::List { records, .. }, .. } => records.clone(),
            other => panic!("the event changed: {other:?}"),
        };
        assert_eq!(records(&shown[0]), (0..20).map(listed).collect::<Vec<_>>());
        assert_eq!(records(&shown[399]).len(), TRACE_RECORDS_PAST_BUDGET);
        let bytes = serde_json::to_string(&shown).unwrap().len();
        assert!(bytes < 400 * 1_200, "{bytes} bytes for 400 list replies of 1,000 records");
        assert!(bytes * 50 < serde_json::to_string(&trace).unwrap().len());
    }

    #[test]
    fn words_past_their_budget_are_cut_shorter() {
        let mut budget = WordsBudget::new();
        let sentence = format!("calls get(\"{}\")", "k".repeat(4_000));
        let first = budget.show(&sentence);
        assert_eq!(first, cut(&sentence, WORDS_CHARS_MAX));
        let later: Vec<String> = (0..1_000).map(|_| budget.show(&sentence)).collect();
        assert_eq!(later.last().unwrap(), &cut(&sentence, WORDS_CHARS_PAST_BUDGET));
        assert_eq!(budget.show("p1 is done"), "p1 is done");
    }
}
