// Reference solution: one store-wide version counter, per-key write counts,
// and TTLs checked against the clock on every access. As in etcd, every
// change uses up a version: a successful write, a delete, and an expiry.
export function createStore(clock) {
  // key -> { value, version, keyVersion, expiresAtMs (null = never) }
  const records = new Map();
  // The last version handed out or used up; the first write gets 1.
  let lastVersion = 0;

  function assertTtl(ttlMs) {
    if (ttlMs === undefined) return;
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
      throw new TypeError(`ttlMs must be a positive integer, got ${String(ttlMs)}`);
    }
  }

  // The only place that knows about expiry, run before every method: each key
  // whose deadline has come is deleted, and its expiry, like any delete, takes a
  // version. Earlier deadlines first, so the versions follow the order of time.
  function expireDue() {
    const nowMs = clock.now();
    const due = [...records].filter(([, record]) => record.expiresAtMs !== null && nowMs >= record.expiresAtMs);
    due.sort(([, a], [, b]) => a.expiresAtMs - b.expiresAtMs);
    for (const [key] of due) {
      records.delete(key);
      lastVersion += 1;
    }
  }

  function readLive(key) {
    expireDue();
    return records.get(key) ?? null;
  }

  function publicRecord(record) {
    return { value: record.value, version: record.version, keyVersion: record.keyVersion };
  }

  function get(key) {
    const record = readLive(key);
    return record === null ? null : publicRecord(record);
  }

  function compareAndSwap(key, nextValue, currentValue, { version, ttlMs } = {}) {
    assertTtl(ttlMs);
    const current = readLive(key);
    let matches;
    if (currentValue === null) {
      // "Expect absent"; a version compare cannot hold on a key that is not there.
      matches = current === null && version === undefined;
    } else {
      matches =
        current !== null &&
        current.value === currentValue &&
        (version === undefined || current.version === version);
    }
    if (!matches) return { ok: false, current: current === null ? null : publicRecord(current) };

    lastVersion += 1;
    records.set(key, {
      value: nextValue,
      version: lastVersion,
      keyVersion: current === null ? 1 : current.keyVersion + 1,
      expiresAtMs: ttlMs === undefined ? null : clock.now() + ttlMs,
    });
    return { ok: true, version: lastVersion };
  }

  function remove(key, { version } = {}) {
    const current = readLive(key);
    if (current === null) return { ok: false };
    if (version !== undefined && current.version !== version) return { ok: false };
    records.delete(key);
    // A delete is a change too: it takes a version, as it takes a revision in etcd.
    lastVersion += 1;
    return { ok: true };
  }

  return { get, compareAndSwap, delete: remove };
}
