//! Runs a fencing workload with a Rust worker under the kernel.
//!
//! # Harness semantics (the JavaScript runner does exactly this)
//!
//! Processes `0 .. leaders.len()` are leaders, run by the harness (trusted
//! code, no learner code); process `leaders.len()` is the worker, which runs
//! the learner's `handleRequest`. One fresh instance of the learner's module
//! per run: its module-level variables start empty and are shared by all of
//! the worker's calls. The harness keeps one table, `sent`, from request
//! number to `{ owner, version }`, shared by all processes.
//!
//! A leader keeps `holding` (the version it believes it holds, or none) and
//! runs its script's steps in order:
//!
//! - `Acquire { ttlMs }`: repeat `compareAndSwap(key, name, null, { ttlMs })`;
//!   on success set `holding` and note `Acquired { key, version }`; on a
//!   failure that shows a holder, `await watch(key, current.version)` first.
//! - `Renew { ttlMs }`: only if holding: `compareAndSwap(key, name, name,
//!   { version: holding, ttlMs })`; on success set `holding` to the new
//!   version and note `Acquired`; on failure set it to none (no note).
//! - `Release`: only if holding: `delete(key, { version: holding })`, note
//!   `Released { key, version, ok }`, set it to none.
//! - `Send { request }`: only if holding (it may be stale: a leader paused
//!   past its TTL still believes it holds): set `sent[request] = { owner:
//!   name, version: holding }` and note `Sent { requestId, owner, version }`.
//!   No store call and no await.
//! - `Sleep { ms }`: `await ctx.sleep(ms)`.
//!
//! The worker starts one task per delivery, in the list's order, all at once
//! (`Promise.all`). Each task first awaits `ctx.sleep(atMs)` (always, even
//! for 0, so that the worker's first calls are exactly these sleeps, one per
//! delivery, in order; the checker relies on it). Then, if `sent` has no
//! entry for the request, the task ends silently (the request was never
//! sent). Otherwise it notes `Calling { function: "handleRequest" }`, awaits
//! `handleRequest(ctx, key, { id: "r<n>", owner, version, payload:
//! "payload of r<n>" })`, and notes `Handled { requestId, owner, version,
//! accepted }`. A throw (or a store call refused) notes `Failed { message }`
//! and ends that task only.
//!
//! The run ends when every process is done (leaders always finish: every
//! lock has a TTL), or at a limit.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use lease::join::LocalFuture;
use lease::{join_all, FencingVariant, Request, WorkerMemory};
use sim::{run_processes, Ctx, Note, Sim};

use super::workload::{request_id, Delivery, FencingWorkload, LeaderStep, LOCK_KEY};
use crate::grade::{Case, Execution};

/// Request number → (owner, version), as the leaders sent them.
type SentTable = Rc<RefCell<BTreeMap<u32, (String, u64)>>>;

pub fn run_rust(variant: FencingVariant, case: &Case<FencingWorkload>) -> Execution {
    let sim = Sim::new(case.plan.clone(), case.limits.clone());
    let workload = case.workload.clone();
    let sent: SentTable = Rc::default();
    let memory = Rc::new(WorkerMemory::default());
    let (ending, sim) = run_processes(
        sim,
        |ctx| -> Pin<Box<dyn Future<Output = ()>>> {
            let process = ctx.process();
            if let Some(script) = workload.leaders.get(process as usize).cloned() {
                let sent = sent.clone();
                Box::pin(async move {
                    if let Err(message) = run_leader(&ctx, &script, &sent).await {
                        ctx.note(Note::Failed { message });
                    }
                })
            } else if process == workload.worker() {
                Box::pin(run_worker(variant, ctx, workload.deliveries.clone(), sent.clone(), memory.clone()))
            } else {
                Box::pin(async {})
            }
        },
        |_| false,
    );
    Execution { ending, trace: sim.into_trace() }
}

async fn run_leader(ctx: &Ctx, script: &[LeaderStep], sent: &SentTable) -> Result<(), String> {
    let name = ctx.name();
    let key = LOCK_KEY;
    let mut holding: Option<u64> = None;
    for step in script {
        match step {
            LeaderStep::Acquire { ttl_ms } => loop {
                match ctx.compare_and_swap(key, &name, None, None, Some(*ttl_ms)).await? {
                    Ok(version) => {
                        holding = Some(version);
                        ctx.note(Note::Acquired { key: key.into(), version });
                        break;
                    }
                    Err(Some(current)) => {
                        ctx.watch(key, current.version).await?;
                    }
                    Err(None) => {}
                }
            },
            LeaderStep::Renew { ttl_ms } => {
                if let Some(version) = holding {
                    holding = ctx.compare_and_swap(key, &name, Some(&name), Some(version), Some(*ttl_ms)).await?.ok();
                    if let Some(version) = holding {
                        ctx.note(Note::Acquired { key: key.into(), version });
                    }
                }
            }
            LeaderStep::Release => {
                if let Some(version) = holding.take() {
                    let ok = ctx.delete(key, Some(version)).await?;
                    ctx.note(Note::Released { key: key.into(), version, ok });
                }
            }
            LeaderStep::Send { request } => {
                if let Some(version) = holding {
                    sent.borrow_mut().insert(*request, (name.clone(), version));
                    ctx.note(Note::Sent { request_id: request_id(*request), owner: name.clone(), version });
                }
            }
            LeaderStep::Sleep { ms } => ctx.sleep(*ms).await,
        }
    }
    Ok(())
}

async fn run_worker(
    variant: FencingVariant,
    ctx: Ctx,
    deliveries: Vec<Delivery>,
    sent: SentTable,
    memory: Rc<WorkerMemory>,
) {
    let tasks: Vec<LocalFuture<'_, ()>> = deliveries
        .iter()
        .map(|delivery| Box::pin(deliver(variant, &ctx, delivery, &sent, &memory)) as LocalFuture<'_, ()>)
        .collect();
    join_all(tasks).await;
}

async fn deliver(variant: FencingVariant, ctx: &Ctx, delivery: &Delivery, sent: &SentTable, memory: &WorkerMemory) {
    ctx.sleep(delivery.at_ms).await;
    let Some((owner, version)) = sent.borrow().get(&delivery.request).cloned() else {
        return;
    };
    let id = request_id(delivery.request);
    let request = Request { id: id.clone(), owner: owner.clone(), version, payload: format!("payload of {id}") };
    ctx.note(Note::Calling { function: "handleRequest".into() });
    match variant.handle_request(ctx, memory, LOCK_KEY, &request).await {
        Ok(accepted) => ctx.note(Note::Handled { request_id: id, owner, version, accepted }),
        Err(message) => ctx.note(Note::Failed { message }),
    }
}
