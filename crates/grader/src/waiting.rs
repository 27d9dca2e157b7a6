//! The one measure of "waits with `watch`" that every exercise uses (the
//! lock's `lock()` and the lease's `campaign`).
//!
//! A waiter that watches the holder's version wakes once per change of the
//! key, and then makes a few calls: an attempt, perhaps a read, a new watch.
//! A poller's calls grow with time instead. So a wait is judged by two
//! things the trace shows: its calls against the key's changes since the
//! wait began, and any `sleep` made while someone holds the key (sleeping is
//! not waiting for a change, whatever its length).

/// Calls a waiter may make per change of the key, and before the first:
/// an attempt, a read, a watch and one spare, so that every correct style
/// (attempt-then-watch, read-then-attempt-then-watch, …) stays well inside.
pub const CALLS_PER_CHANGE_MAX: u64 = 4;

/// True when `calls` made while waiting exceed what watching allows for
/// `changes` changes of the key.
pub fn polls(calls: u64, changes: u64) -> bool {
    calls > CALLS_PER_CHANGE_MAX * (changes + 1)
}

/// "never", "once", "3 times".
pub fn times(count: u64) -> String {
    match count {
        0 => "never".into(),
        1 => "once".into(),
        _ => format!("{count} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watching_styles_stay_inside_and_polling_does_not() {
        // Attempt, read, watch on every change: 3 calls per change, plus the first round.
        for changes in 0..50 {
            assert!(!polls(3 * (changes + 1), changes), "{changes}");
        }
        // A sleep(50) poller makes 2 calls per 50 ms; a key that changes every 500 ms.
        let calls_after = |ms: u64| 2 * ms / 50;
        assert!(polls(calls_after(1_000), 2));
        assert!(!polls(4, 0));
        assert!(polls(5, 0));
    }
}
