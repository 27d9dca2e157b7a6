//! The lock exercise in Rust: the reference solution and the classic
//! mistakes, written against [`sim::Ctx`] exactly as a learner writes
//! `lock.js` against `ctx`, so the grader runs all of them the same way.
//!
//! The lock is held when `key` exists with the holder's name as its value.
//! The design decision the reference embodies: a lock is a create-if-absent
//! with a TTL; its version (store-wide, never reused) names the tenure; you
//! wait by watching the holder's version; you unlock by deleting only that
//! version.

use sim::Ctx;

/// Which implementation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockVariant {
    /// The reference solution.
    Reference,
    /// Unlock deletes the key whoever holds it: the source's TTL unlock bug.
    UnlockWithoutVersion,
    /// The lock key is written without a TTL: a crashed holder blocks everyone forever.
    NoTtl,
    /// Waits by sleeping and retrying instead of watching.
    SleepPolling,
    /// Watches from version 0, which answers at once with an old change: a busy loop.
    WatchFromZero,
    /// tryLock reports success with the current holder's version when its create fails.
    TryLockClaimsHeldLock,
    /// Unlock answers true without checking whether the delete happened.
    UnlockAlwaysTrue,
    /// Takes the lock by overwriting whatever value is there.
    LockOverwrites,
    /// Unlock passes the per-key version, which is never the store-wide one it needs.
    UnlockWithKeyVersion,
    /// tryLock is the blocking lock: it waits (by watch) instead of returning null.
    TryLockWaits,
    /// tryLock retries its create a few times with sleeps before giving up.
    TryLockRetries,
    /// The lock's value is a fixed word instead of the process's name.
    ValueNotName,
    /// Unlock "releases" by writing an empty value over its own lock (no TTL).
    UnlockOverwritesWithEmpty,
    /// The lock is written with a TTL a hundred thousand times the one asked for.
    HugeTtl,
}

impl LockVariant {
    pub const BUGGY: [LockVariant; 13] = [
        LockVariant::UnlockWithoutVersion,
        LockVariant::NoTtl,
        LockVariant::SleepPolling,
        LockVariant::WatchFromZero,
        LockVariant::TryLockClaimsHeldLock,
        LockVariant::UnlockAlwaysTrue,
        LockVariant::LockOverwrites,
        LockVariant::UnlockWithKeyVersion,
        LockVariant::TryLockWaits,
        LockVariant::TryLockRetries,
        LockVariant::ValueNotName,
        LockVariant::UnlockOverwritesWithEmpty,
        LockVariant::HugeTtl,
    ];

    fn ttl(self, ttl_ms: u64) -> Option<u64> {
        match self {
            LockVariant::NoTtl => None,
            LockVariant::HugeTtl => Some(ttl_ms * 100_000),
            _ => Some(ttl_ms),
        }
    }

    fn value(self, ctx: &Ctx) -> String {
        match self {
            LockVariant::ValueNotName => "locked".into(),
            _ => ctx.name(),
        }
    }

    /// One attempt: `Some(version)` if this call took the lock.
    pub async fn try_lock(self, ctx: &Ctx, key: &str, ttl_ms: u64) -> Result<Option<u64>, String> {
        match self {
            LockVariant::TryLockWaits => return self.lock(ctx, key, ttl_ms).await.map(Some),
            LockVariant::TryLockRetries => {
                for _ in 0..3 {
                    if let Ok(version) = ctx.compare_and_swap(key, &ctx.name(), None, None, Some(ttl_ms)).await? {
                        return Ok(Some(version));
                    }
                    ctx.sleep(100).await;
                }
                return Ok(None);
            }
            _ => {}
        }
        let name = self.value(ctx);
        let current =
            if self == LockVariant::LockOverwrites { ctx.get(key).await?.map(|record| record.value) } else { None };
        match ctx.compare_and_swap(key, &name, current.as_deref(), None, self.ttl(ttl_ms)).await? {
            Ok(version) => Ok(Some(version)),
            Err(Some(holder)) if self == LockVariant::TryLockClaimsHeldLock => Ok(Some(holder.version)),
            Err(_) => Ok(None),
        }
    }

    /// Blocks until this process holds the lock; returns the version.
    pub async fn lock(self, ctx: &Ctx, key: &str, ttl_ms: u64) -> Result<u64, String> {
        loop {
            let name = self.value(ctx);
            let current =
                if self == LockVariant::LockOverwrites { ctx.get(key).await?.map(|record| record.value) } else { None };
            match ctx.compare_and_swap(key, &name, current.as_deref(), None, self.ttl(ttl_ms)).await? {
                Ok(version) => return Ok(version),
                Err(None) => continue, // vanished in between: try again at once
                Err(Some(holder)) => match self {
                    LockVariant::SleepPolling => ctx.sleep(50).await,
                    LockVariant::WatchFromZero => {
                        ctx.watch(key, 0).await?;
                    }
                    _ => {
                        ctx.watch(key, holder.version).await?;
                    }
                },
            }
        }
    }

    /// Releases this process's own lock; false if it was no longer its own.
    pub async fn unlock(self, ctx: &Ctx, key: &str, version: u64) -> Result<bool, String> {
        match self {
            LockVariant::UnlockWithoutVersion => ctx.delete(key, None).await,
            LockVariant::UnlockAlwaysTrue => {
                ctx.delete(key, Some(version)).await?;
                Ok(true)
            }
            LockVariant::UnlockOverwritesWithEmpty => {
                let name = ctx.name();
                Ok(ctx.compare_and_swap(key, "", Some(&name), Some(version), None).await?.is_ok())
            }
            LockVariant::UnlockWithKeyVersion => {
                let key_version = ctx.get(key).await?.map_or(0, |record| record.key_version);
                ctx.delete(key, Some(key_version)).await
            }
            _ => ctx.delete(key, Some(version)).await,
        }
    }
}
