//! Watch bookkeeping: the bounded history that answers watches starting in
//! the past, and the waiters that are woken by later changes.

use std::collections::{BTreeMap, VecDeque};

use crate::record::Event;

/// A waiting watcher's id, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct WatchId(pub u64);

/// What starting a watch gives back.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum WatchStart {
    /// The change already happened: here it is, nothing is left waiting.
    Ready { event: Event },
    /// Nothing yet: the event will appear in [`crate::Store::take_fired`].
    Waiting { watch: WatchId },
}

#[derive(Debug, Default, Clone)]
pub(crate) struct Watches {
    /// Every change, oldest first, at most `history_events_max` of them.
    pub(crate) history: VecDeque<Event>,
    /// The revision of the newest event dropped from `history` (0: none).
    pub(crate) compacted_revision: u64,
    /// Each waiting watcher's key and the revision it waits past.
    pub(crate) waiting: BTreeMap<WatchId, (String, u64)>,
    pub(crate) next_id: u64,
    /// Fired watches, in revision order, until the caller takes them.
    pub(crate) fired: Vec<(WatchId, Event)>,
}

impl Watches {
    /// Records a change and wakes every watcher of its key that waits past
    /// an earlier revision, in id order.
    pub(crate) fn record(&mut self, event: Event, history_events_max: usize) {
        let woken: Vec<WatchId> = self
            .waiting
            .iter()
            .filter(|(_, (key, after_revision))| *key == event.key && event.revision > *after_revision)
            .map(|(id, _)| *id)
            .collect();
        for id in woken {
            self.waiting.remove(&id);
            self.fired.push((id, event.clone()));
        }
        self.history.push_back(event);
        while self.history.len() > history_events_max {
            if let Some(dropped) = self.history.pop_front() {
                self.compacted_revision = dropped.revision;
            }
        }
    }

    /// The first retained change of `key` after `after_revision`.
    pub(crate) fn first_after(&self, key: &str, after_revision: u64) -> Option<&Event> {
        // History is in revision order; skip the prefix at or before the revision.
        let start = self.history.partition_point(|event| event.revision <= after_revision);
        self.history.range(start..).find(|event| event.key == key)
    }
}
