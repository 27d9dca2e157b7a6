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
}

impl LockVariant {
    pub const BUGGY: [LockVariant; 8] = [
        LockVariant::UnlockWithoutVersion,
        LockVariant::NoTtl,
        LockVariant::SleepPolling,
        LockVariant::WatchFromZero,
        LockVariant::TryLockClaimsHeldLock,
        LockVariant::UnlockAlwaysTrue,
        LockVariant::LockOverwrites,
        LockVariant::UnlockWithKeyVersion,
    ];

    fn ttl(self, ttl_ms: u64) -> Option<u64> {
        (self != LockVariant::NoTtl).then_some(ttl_ms)
    }

    /// One attempt: `Some(version)` if this call took the lock.
    pub async fn try_lock(self, ctx: &Ctx, key: &str, ttl_ms: u64) -> Result<Option<u64>, String> {
        let name = ctx.name();
        let current = if self == LockVariant::LockOverwrites { ctx.get(key).await?.map(|record| record.value) } else { None };
        match ctx.compare_and_swap(key, &name, current.as_deref(), None, self.ttl(ttl_ms)).await? {
            Ok(version) => Ok(Some(version)),
            Err(Some(holder)) if self == LockVariant::TryLockClaimsHeldLock => Ok(Some(holder.version)),
            Err(_) => Ok(None),
        }
    }

    /// Blocks until this process holds the lock; returns the version.
    pub async fn lock(self, ctx: &Ctx, key: &str, ttl_ms: u64) -> Result<u64, String> {
        loop {
            let name = ctx.name();
            let current = if self == LockVariant::LockOverwrites { ctx.get(key).await?.map(|record| record.value) } else { None };
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
            LockVariant::UnlockWithKeyVersion => {
                let key_version = ctx.get(key).await?.map_or(0, |record| record.key_version);
                ctx.delete(key, Some(key_version)).await
            }
            _ => ctx.delete(key, Some(version)).await,
        }
    }
}
