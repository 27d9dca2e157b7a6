// A naive lock: it runs, but it has no TTL, it polls, and its unlock is blind.
export async function tryLock(ctx, key, ttlMs) {
  // Bug: no TTL, so a crashed holder blocks everyone forever.
  const result = await ctx.store.compareAndSwap(key, ctx.name, null);
  return result.ok ? { version: result.version } : null;
}

export async function lock(ctx, key, ttlMs) {
  while (true) {
    const held = await tryLock(ctx, key, ttlMs);
    if (held !== null) return held;
    // Bug: sleep-polling instead of watching the key.
    await ctx.sleep(100);
  }
}

export async function unlock(ctx, key, version) {
  // Bug: deletes whatever lock is there, even someone else's.
  await ctx.store.delete(key);
  return true;
}
