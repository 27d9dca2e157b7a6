//! Runs an election workload with a Rust implementation under the kernel.
//! The JavaScript runner's harness (`runner/harness.js`, "the
//! election exercise") does the same, step for step.

use lease::{ElectionVariant, Leadership};
use sim::{run_processes, Ctx, Note, Sim};

use super::workload::{ElectionStep, ElectionWorkload, ELECTION_PREFIX};
use crate::grade::{Case, Execution};

pub fn run_rust(variant: ElectionVariant, case: &Case<ElectionWorkload>) -> Execution {
    run_candidates(variant, case)
}

/// One way to campaign and resign: a Rust variant, or a checker test's mistake.
pub(super) trait Candidate: Copy + 'static {
    async fn campaign(self, ctx: &Ctx, prefix: &str, ttl_ms: u64) -> Result<Leadership, String>;
    async fn resign(self, ctx: &Ctx, leadership: &Leadership) -> Result<bool, String>;
}

impl Candidate for ElectionVariant {
    async fn campaign(self, ctx: &Ctx, prefix: &str, ttl_ms: u64) -> Result<Leadership, String> {
        ElectionVariant::campaign(self, ctx, prefix, ttl_ms).await
    }

    async fn resign(self, ctx: &Ctx, leadership: &Leadership) -> Result<bool, String> {
        ElectionVariant::resign(self, ctx, leadership).await
    }
}

/// Every process of `case` runs its script with `candidate`.
pub(super) fn run_candidates(candidate: impl Candidate, case: &Case<ElectionWorkload>) -> Execution {
    let sim = Sim::new(case.plan.clone(), case.limits.clone());
    let scripts = case.workload.scripts.clone();
    let (ending, sim) = run_processes(
        sim,
        |ctx| {
            let script = scripts.get(ctx.process() as usize).cloned().unwrap_or_default();
            async move {
                if let Err(message) = run_candidate(candidate, &ctx, &script).await {
                    ctx.note(Note::Failed { message });
                }
            }
        },
        |_| false,
    );
    Execution { ending, trace: sim.into_trace() }
}

async fn run_candidate(candidate: impl Candidate, ctx: &Ctx, script: &[ElectionStep]) -> Result<(), String> {
    let mut leading: Option<Leadership> = None;
    for step in script {
        match step {
            ElectionStep::Sleep { ms } => ctx.sleep(*ms).await,
            ElectionStep::Campaign { ttl_ms } => {
                ctx.note(Note::Calling { function: "campaign".into() });
                let leadership = candidate.campaign(ctx, ELECTION_PREFIX, *ttl_ms).await?;
                ctx.note(Note::Elected { key: leadership.key.clone(), version: leadership.version });
                leading = Some(leadership);
            }
            ElectionStep::Lead { ms } => {
                if leading.is_some() {
                    ctx.sleep(*ms).await;
                }
            }
            ElectionStep::Resign => {
                if let Some(leadership) = leading.take() {
                    ctx.note(Note::Calling { function: "resign".into() });
                    let ok = candidate.resign(ctx, &leadership).await?;
                    ctx.note(Note::Resigned { key: leadership.key, version: leadership.version, ok });
                }
            }
        }
    }
    Ok(())
}
