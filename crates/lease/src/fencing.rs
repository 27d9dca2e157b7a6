//! The fenced worker: `handleRequest(ctx, lockKey, request)` applies a
//! leader's request only if the lock store names the sender at the sender's
//! version right now, and applies each request id at most once.

use std::cell::RefCell;
use std::collections::BTreeSet;

use sim::Ctx;

/// A request as the worker receives it (`{ id, owner, version, payload }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Unique per request; a duplicate delivery has the same id.
    pub id: String,
    /// The sender's name.
    pub owner: String,
    /// The version of the sender's latest acquire or renew write.
    pub version: u64,
    pub payload: String,
}

/// What `fencing.js` keeps in module-level variables: one per worker
/// process and run, shared by all its concurrent calls.
#[derive(Debug, Default)]
pub struct WorkerMemory {
    /// Ids applied, or being checked right now.
    claimed_request_ids: RefCell<BTreeSet<String>>,
}

impl WorkerMemory {
    fn has(&self, id: &str) -> bool {
        self.claimed_request_ids.borrow().contains(id)
    }

    fn claim(&self, id: &str) {
        self.claimed_request_ids.borrow_mut().insert(id.to_string());
    }

    fn release(&self, id: &str) {
        self.claimed_request_ids.borrow_mut().remove(id);
    }
}

/// Which implementation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FencingVariant {
    /// The reference solution (`solution.js`).
    Reference,
    /// Compares the request's version with the lock's per-key `keyVersion`,
    /// which restarts at 1 with every tenure: an old tenure's request can
    /// match a later one, and current requests are turned away.
    KeyVersion,
    /// No de-duplication: a request delivered twice is applied twice.
    NoDedup,
    /// Checks the id before reading the store but records it only after:
    /// two deliveries handled at the same time both pass the check.
    ClaimAfterAwait,
    /// Checks the owner only: A's request from an earlier tenure passes while
    /// A holds the lock again.
    OwnerOnly,
    /// The exercise's `starter.js`: applies everything.
    AcceptAll,
    /// Applies nothing: safe, but the work never gets done.
    RejectAll,
}

impl FencingVariant {
    pub const BUGGY: [FencingVariant; 6] = [
        FencingVariant::KeyVersion,
        FencingVariant::NoDedup,
        FencingVariant::ClaimAfterAwait,
        FencingVariant::OwnerOnly,
        FencingVariant::AcceptAll,
        FencingVariant::RejectAll,
    ];

    /// True if the worker applies the request.
    pub async fn handle_request(
        self,
        ctx: &Ctx,
        memory: &WorkerMemory,
        lock_key: &str,
        request: &Request,
    ) -> Result<bool, String> {
        let id = request.id.as_str();
        match self {
            FencingVariant::AcceptAll => {
                ctx.log(format!("applying {id} from {}", request.owner));
                return Ok(true);
            }
            FencingVariant::RejectAll => return Ok(false),
            FencingVariant::NoDedup => {}
            FencingVariant::ClaimAfterAwait => {
                if memory.has(id) {
                    return Ok(false);
                }
            }
            FencingVariant::Reference | FencingVariant::KeyVersion | FencingVariant::OwnerOnly => {
                // Claimed before the first await, so that two concurrent
                // deliveries of one id cannot both pass.
                if memory.has(id) {
                    return Ok(false);
                }
                memory.claim(id);
            }
        }

        let holder = ctx.get(lock_key).await?;
        let is_current_tenure = holder.is_some_and(|holder| {
            holder.value == request.owner
                && match self {
                    FencingVariant::KeyVersion => holder.key_version == request.version,
                    FencingVariant::OwnerOnly => true,
                    _ => holder.version == request.version,
                }
        });
        if !is_current_tenure {
            // Not applied, so release the id: only applied requests must stay unique.
            memory.release(id);
            ctx.log(format!("rejecting {id}: {}@{} is not the current holder", request.owner, request.version));
            return Ok(false);
        }
        if self == FencingVariant::ClaimAfterAwait {
            memory.claim(id);
        }
        Ok(true)
    }
}
