// Starter: the election works, but every waiter watches the leader's key, so
// each change of leader wakes all of them at once (the thundering herd).

export async function campaign(ctx, prefix, ttlMs) {
  const key = prefix + ctx.name;
  const created = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
  if (!created.ok) throw new Error(`campaign(): ${key} already exists`);
  const mine = created.version;
  for (;;) {
    const { version, records } = await ctx.store.list(prefix);
    // Records come oldest first: the first one leads.
    const leader = records[0];
    if (leader === undefined || leader.createVersion >= mine) return { key, version: mine };
    // Everyone waits on the leader...
    await ctx.store.watch(leader.key, version);
  }
}

export async function resign(ctx, leadership) {
  const result = await ctx.store.delete(leadership.key, { version: leadership.version });
  return result.ok;
}
