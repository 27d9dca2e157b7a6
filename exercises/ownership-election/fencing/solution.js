// Reference solution: verify owner and version against the lock store,
// and apply each request id at most once.

// Ids that were applied, or are being checked right now. Filled before the
// first await so that two concurrent deliveries of one id cannot both pass.
const claimedRequestIds = new Set();

export async function handleRequest(ctx, lockKey, request) {
  if (claimedRequestIds.has(request.id)) return false;
  claimedRequestIds.add(request.id);

  const holder = await ctx.store.get(lockKey);
  const isCurrentTenure =
    holder !== null && holder.value === request.owner && holder.version === request.version;
  if (!isCurrentTenure) {
    // Not applied, so release the id: only applied requests must stay unique.
    claimedRequestIds.delete(request.id);
    console.log(`rejecting ${request.id}: ${request.owner}@${request.version} is not the current holder`);
    return false;
  }
  return true;
}
