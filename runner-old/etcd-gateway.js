// Lab mode's store: the exercises' store calls, made against a real etcd
// through its v3 JSON gateway (etcd must be started with --cors for the
// lesson's origin). Answers come back in the simulation's reply shapes, so
// the same harness settles the learner's promises.
//
// Mapping: a key's `version` is etcd's mod_revision (store-wide, the
// fencing token) and `keyVersion` etcd's per-key version; `ttlMs` becomes a
// lease of ceil(ttlMs / 1000) seconds, at least etcd's minimum of 2; a watch
// reports an expiry as "delete" (etcd does not tell them apart); a record's
// `createVersion` is etcd's create_revision.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytesToBase64(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function toBase64(text) {
  return bytesToBase64(encoder.encode(text));
}

/**
 * The end of the key range that holds every key starting with `prefix`, as
 * etcd's clients compute it: the prefix with its last byte below 0xff
 * incremented and what follows dropped ("\0", every key, if there is none).
 */
export function prefixRangeEnd(prefix) {
  const bytes = encoder.encode(prefix);
  for (let index = bytes.length - 1; index >= 0; index -= 1) {
    if (bytes[index] < 0xff) {
      const end = bytes.slice(0, index + 1);
      end[index] += 1;
      return bytesToBase64(end);
    }
  }
  return bytesToBase64(new Uint8Array([0]));
}

function fromBase64(text) {
  return decoder.decode(Uint8Array.from(atob(text ?? ""), (char) => char.charCodeAt(0)));
}

/** etcd's minimum lease TTL, in seconds. */
export const ETCD_TTL_SECONDS_MIN = 2;

export function leaseSeconds(ttlMs) {
  return Math.max(ETCD_TTL_SECONDS_MIN, Math.ceil(ttlMs / 1000));
}

function record(kv) {
  if (!kv) return null;
  return { value: fromBase64(kv.value), version: Number(kv.mod_revision), keyVersion: Number(kv.version ?? 1) };
}

/** A client for the gateway at `endpoint` (e.g. "http://127.0.0.1:2379"). */
export function createEtcdGateway(endpoint, { fetch: fetchImpl = fetch } = {}) {
  const base = endpoint.replace(/\/+$/, "");
  async function post(path, body, signal) {
    let response;
    try {
      response = await fetchImpl(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
    } catch (error) {
      throw new Error(`cannot reach etcd at ${base} (${error.message}); start it with --cors so this page may call it (see the README's "Lab mode")`);
    }
    if (!response.ok) throw new Error(`etcd answered ${response.status} to ${path}: ${(await response.text()).slice(0, 200)}`);
    return response;
  }
  const json = async (path, body) => (await post(path, body)).json();

  return {
    async get(key) {
      const answer = await json("/v3/kv/range", { key: toBase64(key) });
      return { reply: "get", record: record(answer.kvs?.[0]) };
    },
    async compareAndSwap(key, nextValue, currentValue, version, ttlMs) {
      const compare = [
        currentValue === null
          ? { key: toBase64(key), target: "CREATE", result: "EQUAL", create_revision: "0" }
          : { key: toBase64(key), target: "VALUE", result: "EQUAL", value: toBase64(currentValue) },
      ];
      if (version !== null) compare.push({ key: toBase64(key), target: "MOD", result: "EQUAL", mod_revision: String(version) });
      const put = { key: toBase64(key), value: toBase64(nextValue) };
      if (ttlMs !== null) put.lease = (await json("/v3/lease/grant", { TTL: String(leaseSeconds(ttlMs)) })).ID;
      const answer = await json("/v3/kv/txn", { compare, success: [{ request_put: put }], failure: [{ request_range: { key: toBase64(key) } }] });
      if (answer.succeeded) return { reply: "cas", ok: true, version: Number(answer.header.revision), current: null };
      return { reply: "cas", ok: false, version: null, current: record(answer.responses?.[0]?.response_range?.kvs?.[0]) };
    },
    async delete(key, version) {
      const compare = [
        version === null
          ? { key: toBase64(key), target: "CREATE", result: "GREATER", create_revision: "0" }
          : { key: toBase64(key), target: "MOD", result: "EQUAL", mod_revision: String(version) },
      ];
      const answer = await json("/v3/kv/txn", { compare, success: [{ request_delete_range: { key: toBase64(key) } }], failure: [] });
      return { reply: "delete", ok: Boolean(answer.succeeded) };
    },
    /** Every key under `prefix`, oldest first: a range over the prefix sorted by create revision. */
    async list(prefix) {
      const answer = await json("/v3/kv/range", { key: toBase64(prefix), range_end: prefixRangeEnd(prefix), sort_order: "ASCEND", sort_target: "CREATE" });
      const records = (answer.kvs ?? []).map((kv) => ({ key: fromBase64(kv.key), ...record(kv), createVersion: Number(kv.create_revision) }));
      return { reply: "list", version: Number(answer.header.revision), records };
    },
    /** Resolves with the first change after `afterVersion`; `signal` cancels it. */
    async watch(key, afterVersion, signal) {
      const response = await post("/v3/watch", { create_request: { key: toBase64(key), start_revision: String(afterVersion + 1) } }, signal);
      const reader = response.body.getReader();
      let buffered = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) throw new Error("etcd closed the watch before anything changed");
          buffered += decoder.decode(value, { stream: true });
          let newline;
          while ((newline = buffered.indexOf("\n")) >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (!line) continue;
            const event = JSON.parse(line).result?.events?.[0];
            if (event) {
              const deleted = event.type === "DELETE";
              return { reply: "watch", event: { type: deleted ? "delete" : "put", key, value: deleted ? null : fromBase64(event.kv.value), version: Number(event.kv.mod_revision) } };
            }
          }
        }
      } finally {
        reader.cancel().catch(() => {});
      }
    },
  };
}
