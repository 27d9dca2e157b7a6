// A naive store: it runs, but it ignores TTLs and numbers versions per key.
// Fix it so versions come from one store-wide counter and expired keys read as absent.
export function createStore(clock) {
  const records = new Map();

  function get(key) {
    const record = records.get(key);
    return record ? { ...record } : null;
  }

  function compareAndSwap(key, nextValue, currentValue, { version, ttlMs } = {}) {
    const current = records.get(key) ?? null;
    const expectAbsent = currentValue === null;
    const matches = expectAbsent
      ? current === null
      : current !== null && current.value === currentValue;
    if (!matches) return { ok: false, current: current ? { ...current } : null };
    // Bug: a per-key counter repeats after a delete, so it is no fencing token.
    const keyVersion = current ? current.keyVersion + 1 : 1;
    records.set(key, { value: nextValue, version: keyVersion, keyVersion });
    return { ok: true, version: keyVersion };
  }

  function remove(key) {
    const existed = records.delete(key);
    return { ok: existed };
  }

  return { get, compareAndSwap, delete: remove };
}
