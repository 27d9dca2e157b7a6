//! The election queue: `campaign` until this process leads, `resign` to hand
//! over, with each waiter watching only the key just ahead of it.
//!
//! The recipe (etcd's `concurrency.Election`, in our words): every candidate
//! creates a key of its own under a shared prefix, with a TTL so that a
//! crashed candidate's key goes away by itself. The store-wide version that
//! created a key (its create version) is its place in the queue: the oldest
//! key leads. A waiter does not watch the leader, which would wake every
//! waiter whenever the leader leaves (the thundering herd); it watches its
//! predecessor, the newest key older than its own, so one departure wakes one
//! process. When its predecessor goes, it looks again: the predecessor may
//! have been a waiter that crashed, not the leader.
//!
//! The reference (the twin of `solution.js`) reads the queue once, right
//! after joining, and then one key per wake, as etcd reads only the key
//! created just before its own. The buggy variants keep the plainer loop a
//! learner writes first, which reads the whole queue on every wake, each with
//! one classic mistake, so that the grader can name the rule it breaks.

use sim::{Ctx, Listed};

/// What `campaign` returns and `resign` takes: the candidate's key and the
/// version that created it (its place in the queue).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leadership {
    pub key: String,
    pub version: u64,
}

/// Which implementation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElectionVariant {
    /// The reference solution (`solution.js`).
    Reference,
    /// Every waiter watches the leader's key: each departure wakes them all.
    /// This is the exercise's `starter.js`.
    Herd,
    /// Picks the key just before its own in key-name order instead of
    /// create order: it may wait on a candidate that is behind it, and two
    /// waiters can end up waiting on each other until a TTL runs out.
    WrongPredecessor,
    /// Watches from the version after its read (`version + 1`), as if watch
    /// started *at* the version it is given: a predecessor deleted by the very
    /// next write, between the read and the watch, is never seen.
    MissesDeletion,
    /// `resign` reports success but leaves the key in place: the next
    /// candidate waits until the TTL removes it.
    KeepsKeyOnResign,
    /// Never checks that its own key is still in the queue: after its TTL
    /// ran out while it waited, it finds no older key and claims to lead.
    IgnoresOwnExpiry,
}

impl ElectionVariant {
    pub const BUGGY: [ElectionVariant; 5] = [
        ElectionVariant::Herd,
        ElectionVariant::WrongPredecessor,
        ElectionVariant::MissesDeletion,
        ElectionVariant::KeepsKeyOnResign,
        ElectionVariant::IgnoresOwnExpiry,
    ];

    /// Joins the queue under `prefix` and returns once this process leads.
    pub async fn campaign(self, ctx: &Ctx, prefix: &str, ttl_ms: u64) -> Result<Leadership, String> {
        if self == ElectionVariant::Reference {
            return campaign_one_key_per_wake(ctx, prefix, ttl_ms).await;
        }
        let name = ctx.name();
        let key = format!("{prefix}{name}");
        let mut mine = join(ctx, &key, ttl_ms).await?;
        loop {
            let (version, records) = ctx.list(prefix).await?;
            if self != ElectionVariant::IgnoresOwnExpiry && !records.iter().any(|record| record.key == key) {
                // Our key expired while we waited: we are out of the queue. Join again, at the back.
                mine = join(ctx, &key, ttl_ms).await?;
                continue;
            }
            let older: Vec<&Listed> = records.iter().filter(|record| record.create_version < mine).collect();
            let Some(&predecessor) = older.last() else {
                return Ok(Leadership { key, version: mine });
            };
            let watched = match self {
                ElectionVariant::Herd => older[0],
                ElectionVariant::WrongPredecessor => by_name_before(&records, &key).unwrap_or(predecessor),
                _ => predecessor,
            };
            let after_version = if self == ElectionVariant::MissesDeletion { version + 1 } else { version };
            ctx.watch(&watched.key, after_version).await?;
        }
    }

    /// Leaves the queue; true if this process's key was deleted by this call.
    pub async fn resign(self, ctx: &Ctx, leadership: &Leadership) -> Result<bool, String> {
        if self == ElectionVariant::KeepsKeyOnResign {
            return Ok(true);
        }
        ctx.delete(&leadership.key, Some(leadership.version)).await
    }
}

/// The reference's `campaign`. Nobody can join ahead of a candidate later (a
/// newer key gets a larger create version), so the keys older than its own
/// are all in the one list read after it joins, and that set only shrinks: on
/// each wake it asks about the next of them with a `get`, never the queue.
async fn campaign_one_key_per_wake(ctx: &Ctx, prefix: &str, ttl_ms: u64) -> Result<Leadership, String> {
    let key = format!("{prefix}{}", ctx.name());
    loop {
        let mine = join(ctx, &key, ttl_ms).await?;
        let (listed_at, records) = ctx.list(prefix).await?;
        if !records.iter().any(|record| record.key == key) {
            // Our key already ran out: join again.
            continue;
        }
        let mut ahead: Vec<Listed> = records.into_iter().filter(|record| record.create_version < mine).collect();
        // Records come oldest first: the last one older than ours is our predecessor.
        while let Some(predecessor) = ahead.pop() {
            // From the list's version: a departure since the list wakes us at once.
            ctx.watch(&predecessor.key, listed_at).await?;
            // It left; the next key ahead may have left too (a waiter that crashed).
            while let Some(next) = ahead.last() {
                if still_queued(ctx, next).await? {
                    break;
                }
                ahead.pop();
            }
        }
        // Nobody is ahead: lead only if a short TTL did not take our own key meanwhile.
        if ctx.get(&key).await?.is_some_and(|record| record.version == mine) {
            return Ok(Leadership { key, version: mine });
        }
    }
}

/// Whether `record`, as a list showed it, is still in the store in that same
/// life. No candidate rewrites its key, so its version stays its create version.
async fn still_queued(ctx: &Ctx, record: &Listed) -> Result<bool, String> {
    Ok(ctx.get(&record.key).await?.is_some_and(|now| now.version == record.create_version))
}

/// Creates the candidate's key; returns the version that created it.
async fn join(ctx: &Ctx, key: &str, ttl_ms: u64) -> Result<u64, String> {
    match ctx.compare_and_swap(key, &ctx.name(), None, None, Some(ttl_ms)).await? {
        Ok(version) => Ok(version),
        Err(_) => Err(format!("campaign(): {key} already exists; resign must delete it")),
    }
}

/// [`ElectionVariant::WrongPredecessor`]: the key that sorts just before
/// `key` by name, or, when `key` sorts first, the one just after it.
fn by_name_before<'a>(records: &'a [Listed], key: &str) -> Option<&'a Listed> {
    let mut by_name: Vec<&Listed> = records.iter().collect();
    by_name.sort_by(|a, b| a.key.cmp(&b.key));
    let index = by_name.iter().position(|record| record.key == key)?;
    if index > 0 {
        Some(by_name[index - 1])
    } else {
        by_name.get(1).copied()
    }
}
