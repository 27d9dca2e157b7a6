// Reference solution: a key of our own in the queue, and a watch on the key just ahead of it.

// Creates our key; returns the version that created it (our place in the queue).
async function join(ctx, key, ttlMs) {
  const created = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
  if (!created.ok) throw new Error(`campaign(): ${key} already exists; resign must delete it`);
  return created.version;
}

export async function campaign(ctx, prefix, ttlMs) {
  const key = prefix + ctx.name;
  let mine = await join(ctx, key, ttlMs);
  for (;;) {
    const { version, records } = await ctx.store.list(prefix);
    if (!records.some((record) => record.key === key)) {
      // Our key expired while we waited: we are out of the queue. Join again, at the back.
      mine = await join(ctx, key, ttlMs);
      continue;
    }
    // Records come oldest first: the last one older than ours is the key just ahead of us.
    const older = records.filter((record) => record.createVersion < mine);
    if (older.length === 0) return { key, version: mine };
    const predecessor = older[older.length - 1];
    // From the version of our read: a deletion that already happened since then wakes us at once.
    await ctx.store.watch(predecessor.key, version);
  }
}

export async function resign(ctx, leadership) {
  // The version is the one that created our key, so this never deletes a key we do not own.
  const result = await ctx.store.delete(leadership.key, { version: leadership.version });
  return result.ok;
}
