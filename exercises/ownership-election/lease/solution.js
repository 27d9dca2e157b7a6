// Reference solution: validity measured from the send time of the last
// successful acquire/renew, renewal every ttl/2, and an immediate stop on loss.
const SAFE_FRACTION_OF_TTL = 0.75;

export async function campaign(ctx, key, ttlMs) {
  while (true) {
    const sentAtMs = ctx.now();
    const result = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
    if (result.ok) return { version: result.version, validFrom: sentAtMs };
    // Wait for the holder's key (even our own stale one) to go away or change.
    if (result.current !== null) {
      await ctx.store.watch(key, result.current.version);
    }
  }
}

export async function lead(ctx, key, ttlMs, lease) {
  let { version, validFrom } = lease;
  const renewIntervalMs = ttlMs / 2;
  while (true) {
    if (ctx.now() >= validFrom + SAFE_FRACTION_OF_TTL * ttlMs) {
      console.log(`${ctx.name}: validity window passed, stepping down`);
      return "validity-expired";
    }
    if (ctx.now() >= validFrom + renewIntervalMs) {
      const sentAtMs = ctx.now();
      const result = await ctx.store.compareAndSwap(key, ctx.name, ctx.name, { version, ttlMs });
      if (!result.ok) {
        console.log(`${ctx.name}: renewal failed, stepping down`);
        return "renewal-failed";
      }
      version = result.version;
      validFrom = sentAtMs;
      // Loop again: the validity check must run right before the next unit of work.
      continue;
    }
    await ctx.work();
  }
}
