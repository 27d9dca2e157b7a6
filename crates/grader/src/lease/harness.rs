//! Runs a lease workload with a Rust implementation under the kernel.
//!
//! # Harness semantics (the JavaScript runner does exactly this)
//!
//! Every process of the plan is a replica; replica `i` uses
//! `workload.startsMs[i]` (0 if the list is shorter). Each replica:
//!
//! 1. if its start is above 0, calls `ctx.sleep(start)` (a kernel `Sleep`
//!    call; with a start of 0 it makes no call at all, so that the plan's
//!    per-process call numbers stay the same as here);
//! 2. forever: notes `Calling { function: "campaign" }`, awaits
//!    `campaign(ctx, "leader/bar", ttlMs)`, notes
//!    `Calling { function: "lead" }`, awaits
//!    `lead(ctx, "leader/bar", ttlMs, lease)` with whatever `campaign`
//!    returned (the harness does not look inside it), then notes
//!    `Stepped { key: "leader/bar" }`.
//!
//! `ctx.work()` notes `Work { key: "leader/bar" }` and then awaits
//! `ctx.sleep(workMs)`: the note marks the moment the work starts, which is
//! what the checker judges, and it comes at the same store time as the
//! learner's `ctx.now()` check that preceded it, because no time passes
//! between two awaits. Likewise a store call's `Invoke` is recorded when the
//! learner calls it, so `const sentAt = ctx.now(); await ctx.store...` reads
//! the same local time the trace shows for the call.
//!
//! If `campaign` or `lead` throws (or a store call is refused), the replica
//! notes `Failed { message }` and stops. Nothing else ends a replica: the run
//! ends when store time passes the case's `SimLimits::time_ms_max` (the
//! horizon, 5 000 ms in every lease case), which is this exercise's normal
//! ending, or on a crash. A `campaign` and `lead` that both return without
//! awaiting anything would spin this loop without time passing: the
//! runner's step budget ends such a run (no Rust variant does it).
//!
//! The workload's numbers: `ttlMs` (1 000 in the named scenarios, a multiple
//! of 4 in 600..=1 400 in random ones) and `workMs` (100) are passed as is;
//! one `startsMs` entry per process.

use lease::{LeaderCtx, LeaseVariant};
use sim::{run_processes, Ctx, Note, Sim};

use super::workload::{LeaseWorkload, LEASE_KEY};
use crate::grade::{Case, Execution};

pub fn run_rust(variant: LeaseVariant, case: &Case<LeaseWorkload>) -> Execution {
    let sim = Sim::new(case.plan.clone(), case.limits.clone());
    let workload = case.workload.clone();
    let (ending, sim) = run_processes(
        sim,
        |ctx| {
            let start_ms = workload.starts_ms.get(ctx.process() as usize).copied().unwrap_or(0);
            let (ttl_ms, work_ms) = (workload.ttl_ms, workload.work_ms);
            async move {
                if let Err(message) = run_replica(variant, &ctx, start_ms, ttl_ms, work_ms).await {
                    ctx.note(Note::Failed { message });
                }
            }
        },
        |_| false,
    );
    Execution { ending, trace: sim.into_trace() }
}

fn calling(ctx: &Ctx, function: &str) {
    ctx.note(Note::Calling { function: function.into() });
}

async fn run_replica(variant: LeaseVariant, ctx: &Ctx, start_ms: u64, ttl_ms: u64, work_ms: u64) -> Result<(), String> {
    let leader = LeaderCtx::new(ctx.clone(), LEASE_KEY, work_ms);
    if start_ms > 0 {
        ctx.sleep(start_ms).await;
    }
    loop {
        calling(ctx, "campaign");
        let lease = variant.campaign(&leader, LEASE_KEY, ttl_ms).await?;
        calling(ctx, "lead");
        variant.lead(&leader, LEASE_KEY, ttl_ms, lease).await?;
        ctx.note(Note::Stepped { key: LEASE_KEY.into() });
    }
}
