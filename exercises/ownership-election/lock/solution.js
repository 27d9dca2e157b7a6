// Reference solution: create-if-absent with a TTL, wait by watch, unlock by version.
export async function tryLock(ctx, key, ttlMs) {
  const result = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
  return result.ok ? { version: result.version } : null;
}

export async function lock(ctx, key, ttlMs) {
  while (true) {
    const result = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
    if (result.ok) return { version: result.version };
    // Someone holds it: sleep until their write is superseded (unlock, expiry or overwrite).
    // A null `current` means the key vanished between our attempt and the reply: retry now.
    if (result.current !== null) {
      await ctx.store.watch(key, result.current.version);
    }
  }
}

export async function unlock(ctx, key, version) {
  // The version is unique to our own lock write, so this can only ever delete our lock.
  const result = await ctx.store.delete(key, { version });
  return result.ok;
}
