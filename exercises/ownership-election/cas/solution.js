// Reference solution: one store-wide version counter, per-key write counts,
// and TTLs checked lazily against the clock on every access.
export function createStore(clock) {
  // key -> { value, version, keyVersion, expiresAtMs (null = never) }
  const records = new Map();
  // The last version handed out; the first write gets 1.
  let lastVersion = 0;

  function assertTtl(ttlMs) {
    if (ttlMs === undefined) return;
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
      throw new TypeError(`ttlMs must be a positive integer, got ${String(ttlMs)}`);
    }
  }

  // The only place that knows about expiry: an expired key is gone for every method.
  function readLive(key) {
    const record = records.get(key);
    if (record === undefined) return null;
    if (record.expiresAtMs !== null && clock.now() >= record.expiresAtMs) {
      records.delete(key);
      return null;
    }
    return record;
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
    // A delete is a write in etcd: it takes a revision too.
    lastVersion += 1;
    return { ok: true };
  }

  return { get, compareAndSwap, delete: remove };
}
