//! The lease loop: `campaign` until this replica holds the key, then `lead`
//! (renew, check the window, work) until leadership is lost.
//!
//! Every variant here is the reference with one classic mistake, so that a
//! failing variant fails for one reason and the grader can name it.

use std::cell::Cell;
use std::ops::Deref;

use sim::{Ctx, Note};

use crate::join::{join_all, until_done, LocalFuture};

/// What `campaign` hands to `lead`: the version of the winning write and the
/// local time the validity window counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    pub version: u64,
    pub valid_from_ms: u64,
}

/// The lease exercise's `ctx`: the process's [`Ctx`] plus `work()`.
#[derive(Clone)]
pub struct LeaderCtx {
    ctx: Ctx,
    key: String,
    work_ms: u64,
}

impl LeaderCtx {
    /// `work()` declares work on `key` and takes `work_ms` of the process's clock.
    pub fn new(ctx: Ctx, key: &str, work_ms: u64) -> LeaderCtx {
        LeaderCtx { ctx, key: key.to_string(), work_ms }
    }

    /// One unit of leader work: the grader checks the moment it starts.
    pub async fn work(&self) {
        self.ctx.note(Note::Work { key: self.key.clone() });
        self.ctx.sleep(self.work_ms).await;
    }
}

impl Deref for LeaderCtx {
    type Target = Ctx;
    fn deref(&self) -> &Ctx {
        &self.ctx
    }
}

/// True once `now_ms >= from_ms + ttl_ms * numerator / denominator`, computed
/// without rounding so that it agrees exactly with JavaScript's
/// `now >= validFrom + 0.75 * ttlMs` on whole milliseconds.
pub fn reached(now_ms: u64, from_ms: u64, ttl_ms: u64, numerator: u64, denominator: u64) -> bool {
    now_ms * denominator >= from_ms * denominator + ttl_ms * numerator
}

/// The validity window ends at this fraction of the TTL after `validFrom`.
pub const SAFE_FRACTION: (u64, u64) = (3, 4);
/// A renewal is due at this fraction of the TTL after `validFrom`.
pub const RENEW_FRACTION: (u64, u64) = (1, 2);

/// Which implementation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeaseVariant {
    /// The reference solution (`solution.js`).
    Reference,
    /// Renews only once the whole TTL has passed, which the validity check
    /// never lets it reach: it steps down at 0.75·TTL every term.
    RenewAtFullTtl,
    /// A failed renewal is logged and ignored; the loop goes on to work.
    WorkAfterFailedRenewal,
    /// Renews in the background every TTL/2 and works in a loop that stops
    /// only when a renewal has failed: no validity check before work, so it
    /// works on while a renewal hangs and after a long pause.
    NoValidityCheck,
    /// Takes `validFrom` when the reply arrives instead of when the request
    /// was sent: the window is too long by the reply's delay.
    ValidFromOnReply,
    /// Renews before every unit of work: correct, but hammers the store.
    RenewBeforeEveryWork,
    /// Its validity window ends at TTL/2, checked before the renewal that is
    /// due at the same moment: it steps down instead of renewing.
    StepDownAtRenewTime,
    /// `campaign` retries every TTL instead of watching: failover is slow.
    CampaignPollsEveryTtl,
    /// The exercise's `starter.js`: renews at the full TTL, ignores failed
    /// renewals, never checks its window, and polls in `campaign`.
    Starter,
    /// Writes the word "leader" as the lease's value instead of its name.
    ValueNotName,
    /// After a successful renewal it goes straight to work, without checking
    /// the window again: a renewal whose reply came late is followed by work
    /// past the window.
    NoRecheckAfterRenewal,
    /// `lead` does one unit of work before its first check of the window.
    SkipsFirstCheck,
    /// Correct: renews from a background task whose renewals `lead` never
    /// awaits, while the work loop checks the window before every unit. When
    /// `lead` returns, a renewal may still be in flight and fail later,
    /// during the replica's next tenure.
    BackgroundRenewal,
}

/// The lease's value a variant writes.
fn value_of(variant: LeaseVariant, ctx: &LeaderCtx) -> String {
    if variant == LeaseVariant::ValueNotName {
        "leader".into()
    } else {
        ctx.name()
    }
}

impl LeaseVariant {
    pub const BUGGY: [LeaseVariant; 11] = [
        LeaseVariant::RenewAtFullTtl,
        LeaseVariant::WorkAfterFailedRenewal,
        LeaseVariant::NoValidityCheck,
        LeaseVariant::ValidFromOnReply,
        LeaseVariant::RenewBeforeEveryWork,
        LeaseVariant::StepDownAtRenewTime,
        LeaseVariant::CampaignPollsEveryTtl,
        LeaseVariant::Starter,
        LeaseVariant::ValueNotName,
        LeaseVariant::NoRecheckAfterRenewal,
        LeaseVariant::SkipsFirstCheck,
    ];

    /// The correct alternatives to the reference.
    pub const CORRECT: [LeaseVariant; 2] = [LeaseVariant::Reference, LeaseVariant::BackgroundRenewal];

    /// Returns once this process holds `key`.
    pub async fn campaign(self, ctx: &LeaderCtx, key: &str, ttl_ms: u64) -> Result<Lease, String> {
        let name = value_of(self, ctx);
        loop {
            let sent_at_ms = ctx.now();
            match ctx.compare_and_swap(key, &name, None, None, Some(ttl_ms)).await? {
                Ok(version) => {
                    let reply_at_ms = ctx.now();
                    let valid_from_ms = match self {
                        LeaseVariant::ValidFromOnReply | LeaseVariant::Starter => reply_at_ms,
                        _ => sent_at_ms,
                    };
                    return Ok(Lease { version, valid_from_ms });
                }
                Err(current) => match self {
                    LeaseVariant::CampaignPollsEveryTtl | LeaseVariant::Starter => ctx.sleep(ttl_ms).await,
                    // Wait for the holder's key (even our own stale one) to go away or change.
                    _ => {
                        if let Some(current) = current {
                            ctx.watch(key, current.version).await?;
                        }
                    }
                },
            }
        }
    }

    /// Leads until leadership is lost; returns when it steps down.
    pub async fn lead(self, ctx: &LeaderCtx, key: &str, ttl_ms: u64, lease: Lease) -> Result<(), String> {
        match self {
            LeaseVariant::NoValidityCheck => return lead_with_background_renewal(ctx, key, ttl_ms, lease).await,
            LeaseVariant::Starter => return lead_like_the_starter(ctx, key, ttl_ms, lease).await,
            LeaseVariant::BackgroundRenewal => return lead_with_unawaited_renewals(ctx, key, ttl_ms, lease).await,
            LeaseVariant::SkipsFirstCheck => ctx.work().await,
            _ => {}
        }
        let name = value_of(self, ctx);
        let Lease { mut version, mut valid_from_ms } = lease;
        let safe_fraction = if self == LeaseVariant::StepDownAtRenewTime { RENEW_FRACTION } else { SAFE_FRACTION };
        let renew_fraction = if self == LeaseVariant::RenewAtFullTtl { (1, 1) } else { RENEW_FRACTION };
        loop {
            if reached(ctx.now(), valid_from_ms, ttl_ms, safe_fraction.0, safe_fraction.1) {
                ctx.log(format!("{name}: validity window passed, stepping down"));
                return Ok(());
            }
            let renewal_due = self == LeaseVariant::RenewBeforeEveryWork
                || reached(ctx.now(), valid_from_ms, ttl_ms, renew_fraction.0, renew_fraction.1);
            if renewal_due {
                let sent_at_ms = ctx.now();
                match ctx.compare_and_swap(key, &name, Some(&name), Some(version), Some(ttl_ms)).await? {
                    Ok(renewed) => {
                        version = renewed;
                        valid_from_ms = if self == LeaseVariant::ValidFromOnReply { ctx.now() } else { sent_at_ms };
                        if self != LeaseVariant::RenewBeforeEveryWork && self != LeaseVariant::NoRecheckAfterRenewal {
                            // Loop again: the validity check must run right before the next unit of work.
                            continue;
                        }
                    }
                    Err(_) if self == LeaseVariant::WorkAfterFailedRenewal => {
                        ctx.log(format!("{name}: renewal failed, carrying on"));
                    }
                    Err(_) => {
                        ctx.log(format!("{name}: renewal failed, stepping down"));
                        return Ok(());
                    }
                }
            }
            ctx.work().await;
        }
    }
}

/// [`LeaseVariant::NoValidityCheck`]: a renewer and a worker running side by side.
async fn lead_with_background_renewal(ctx: &LeaderCtx, key: &str, ttl_ms: u64, lease: Lease) -> Result<(), String> {
    let name = ctx.name();
    let lost = Cell::new(false);
    let renewer = async {
        let Lease { mut version, mut valid_from_ms } = lease;
        let result = async {
            loop {
                // Sleep until validFrom + ttl/2, rounding up to a whole millisecond.
                let due_twice_ms = 2 * valid_from_ms + ttl_ms;
                let wait_ms = due_twice_ms.saturating_sub(2 * ctx.now()).div_ceil(2);
                ctx.sleep(wait_ms).await;
                let sent_at_ms = ctx.now();
                match ctx.compare_and_swap(key, &name, Some(&name), Some(version), Some(ttl_ms)).await? {
                    Ok(renewed) => (version, valid_from_ms) = (renewed, sent_at_ms),
                    Err(_) => {
                        ctx.log(format!("{name}: renewal failed, stepping down"));
                        return Ok(());
                    }
                }
            }
        }
        .await;
        lost.set(true);
        result
    };
    let worker = async {
        while !lost.get() {
            ctx.work().await;
        }
        Ok(())
    };
    let tasks: Vec<LocalFuture<'_, Result<(), String>>> = vec![Box::pin(renewer), Box::pin(worker)];
    join_all(tasks).await.into_iter().collect()
}

/// [`LeaseVariant::BackgroundRenewal`]: a renewer nobody awaits beside a
/// work loop that checks the window and the renewer's verdict before every
/// unit; `lead` returns as soon as either says the lease is lost, even with
/// a renewal still in flight.
async fn lead_with_unawaited_renewals(ctx: &LeaderCtx, key: &str, ttl_ms: u64, lease: Lease) -> Result<(), String> {
    let name = ctx.name();
    let state = Cell::new(lease);
    let lost = Cell::new(false);
    let refused = Cell::new(None::<String>);
    let renewer = async {
        let result: Result<(), String> = async {
            loop {
                let Lease { version, valid_from_ms } = state.get();
                let due_twice_ms = 2 * valid_from_ms + ttl_ms;
                let wait_ms = due_twice_ms.saturating_sub(2 * ctx.now()).div_ceil(2);
                ctx.sleep(wait_ms).await;
                let sent_at_ms = ctx.now();
                match ctx.compare_and_swap(key, &name, Some(&name), Some(version), Some(ttl_ms)).await? {
                    Ok(renewed) => state.set(Lease { version: renewed, valid_from_ms: sent_at_ms }),
                    Err(_) => {
                        lost.set(true);
                        return Ok(());
                    }
                }
            }
        }
        .await;
        if let Err(message) = result {
            refused.set(Some(message));
            lost.set(true);
        }
    };
    let worker = async {
        loop {
            if lost.get() || reached(ctx.now(), state.get().valid_from_ms, ttl_ms, SAFE_FRACTION.0, SAFE_FRACTION.1) {
                return Ok::<(), String>(());
            }
            ctx.work().await;
        }
    };
    until_done(Box::pin(worker), Box::pin(renewer)).await?;
    match refused.take() {
        Some(message) => Err(message),
        None => Ok(()),
    }
}

/// [`LeaseVariant::Starter`]: `starter.js`, line for line.
async fn lead_like_the_starter(ctx: &LeaderCtx, key: &str, ttl_ms: u64, lease: Lease) -> Result<(), String> {
    let name = ctx.name();
    let mut version = lease.version;
    let mut renewed_at_ms = lease.valid_from_ms;
    loop {
        if ctx.now().saturating_sub(renewed_at_ms) >= ttl_ms {
            if let Ok(renewed) = ctx.compare_and_swap(key, &name, Some(&name), Some(version), Some(ttl_ms)).await? {
                version = renewed;
            }
            renewed_at_ms = ctx.now();
        }
        ctx.work().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_of_the_ttl_are_exact() {
        // now >= validFrom + 0.75 * ttl, in whole milliseconds.
        assert!(!reached(749, 0, 1_000, 3, 4));
        assert!(reached(750, 0, 1_000, 3, 4));
        // 0.75 * 1001 = 750.75: 750 is before it, 751 after.
        assert!(!reached(750, 0, 1_001, 3, 4));
        assert!(reached(751, 0, 1_001, 3, 4));
        assert!(reached(1_000, 500, 1_000, 1, 2));
        assert!(!reached(999, 500, 1_000, 1, 2));
    }
}
