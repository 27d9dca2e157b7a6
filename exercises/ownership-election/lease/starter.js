// A naive leader loop: it runs, but it renews too late, ignores failure,
// and works without checking that its lease is still valid.
export async function campaign(ctx, key, ttlMs) {
  while (true) {
    const result = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
    if (result.ok) return { version: result.version, validFrom: ctx.now() };
    await ctx.sleep(ttlMs);
  }
}

export async function lead(ctx, key, ttlMs, lease) {
  let version = lease.version;
  let renewedAt = lease.validFrom;
  while (true) {
    // Bug: waits the full TTL, by which time the lease may already be gone.
    if (ctx.now() - renewedAt >= ttlMs) {
      const result = await ctx.store.compareAndSwap(key, ctx.name, ctx.name, { version, ttlMs });
      // Bug: a failed renewal is ignored and leader work goes on.
      if (result.ok) version = result.version;
      renewedAt = ctx.now();
    }
    // Bug: no validity check before the work.
    await ctx.work();
  }
}
