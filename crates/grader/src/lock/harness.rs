//! Runs a lock workload with a Rust implementation under the kernel. The
//! JavaScript runner's harness does the same, step for step.

use lock::LockVariant;
use sim::{run_processes, Ctx, Note, Sim};

use super::workload::{LockStep, LockWorkload, LOCK_KEY};
use crate::grade::{Case, Execution};

pub fn run_rust(variant: LockVariant, case: &Case<LockWorkload>) -> Execution {
    let sim = Sim::new(case.plan.clone(), case.limits.clone());
    let scripts = case.workload.scripts.clone();
    let (ending, sim) = run_processes(
        sim,
        |ctx| {
            let script = scripts.get(ctx.process() as usize).cloned().unwrap_or_default();
            async move {
                if let Err(message) = run_script(variant, &ctx, &script).await {
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

async fn run_script(variant: LockVariant, ctx: &Ctx, script: &[LockStep]) -> Result<(), String> {
    let key = LOCK_KEY;
    let mut held: Option<u64> = None;
    for step in script {
        match step {
            LockStep::TryLock { ttl_ms } => {
                calling(ctx, "tryLock");
                held = variant.try_lock(ctx, key, *ttl_ms).await?;
                ctx.note(match held {
                    Some(version) => Note::Acquired { key: key.into(), version },
                    None => Note::NotAcquired { key: key.into() },
                });
            }
            LockStep::Lock { ttl_ms } => {
                calling(ctx, "lock");
                let version = variant.lock(ctx, key, *ttl_ms).await?;
                ctx.note(Note::Acquired { key: key.into(), version });
                held = Some(version);
            }
            LockStep::Hold { ms } => {
                if held.is_some() {
                    ctx.sleep(*ms).await;
                }
            }
            LockStep::Unlock => {
                if let Some(version) = held.take() {
                    calling(ctx, "unlock");
                    let ok = variant.unlock(ctx, key, version).await?;
                    ctx.note(Note::Released { key: key.into(), version, ok });
                }
            }
            LockStep::Sleep { ms } => ctx.sleep(*ms).await,
        }
    }
    Ok(())
}
