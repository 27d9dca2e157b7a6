// Reference solution: a key of our own in the queue, a watch on the key just
// ahead of it, and on each wake a read of one key, never the whole queue.

// Creates our key; returns the version that created it (our place in the queue).
async function join(ctx, key, ttlMs) {
  const created = await ctx.store.compareAndSwap(key, ctx.name, null, { ttlMs });
  if (!created.ok) throw new Error(`campaign(): ${key} already exists; resign must delete it`);
  return created.version;
}

// Whether `record`, as one list showed it, is still in the store in that same life.
// No candidate rewrites its key, so a key's version stays the one that created it:
// the same version means the same key, still ahead of us; anything else means it left.
async function stillQueued(ctx, record) {
  const now = await ctx.store.get(record.key);
  return now !== null && now.version === record.createVersion;
}

export async function campaign(ctx, prefix, ttlMs) {
  const key = prefix + ctx.name;
  for (;;) {
    const myCreateVersion = await join(ctx, key, ttlMs);
    // One read of the whole queue, right after joining. Nobody can join ahead of
    // us later (a new key gets a larger create version), so the keys older than
    // ours are all in this list, and from here on that set only shrinks.
    const { version: listedAtVersion, records } = await ctx.store.list(prefix);
    if (!records.some((record) => record.key === key)) continue; // Our key already ran out: join again.
    const ahead = records.filter((record) => record.createVersion < myCreateVersion);
    while (ahead.length > 0) {
      // Records come oldest first: the last one older than ours is our predecessor.
      // Watching from the list's version, a departure since the list wakes us at once.
      await ctx.store.watch(ahead[ahead.length - 1].key, listedAtVersion);
      ahead.pop();
      // The predecessor left. The next key ahead may have left too (a waiter that
      // crashed): ask about that one key, and drop it if it is gone.
      while (ahead.length > 0 && !(await stillQueued(ctx, ahead[ahead.length - 1]))) ahead.pop();
    }
    // Nobody is ahead. Lead only if our own key is still there: a short TTL may
    // have run out while we waited, and then we are out of the queue.
    const mine = await ctx.store.get(key);
    if (mine !== null && mine.version === myCreateVersion) return { key, version: myCreateVersion };
  }
}

export async function resign(ctx, leadership) {
  // The version is the one that created our key, so this never deletes a key we do not own.
  const result = await ctx.store.delete(leadership.key, { version: leadership.version });
  return result.ok;
}
