// A real etcd (Debian's etcd-server) for tests that talk to one: started on
// free ports with a fresh data directory, ready once its JSON gateway
// answers, and removed again by `stop()`.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ETCD = "/usr/bin/etcd";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts etcd (with CORS open, for pages) and resolves to `{ endpoint, stop }`. */
export async function startEtcd() {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), "leaselab-etcd-"));
  const etcd = spawn(ETCD, [
    "--data-dir", dataDir,
    "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
    "--listen-peer-urls", `http://127.0.0.1:${peerPort}`, "--initial-advertise-peer-urls", `http://127.0.0.1:${peerPort}`,
    "--initial-cluster", `default=http://127.0.0.1:${peerPort}`,
    "--cors", "*",
  ], { stdio: "ignore" });
  etcd.once("error", (error) => assert.fail(`cannot start ${ETCD} (${error.message}); install Debian's etcd-server`));
  const stop = () => {
    etcd.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  };
  // Wait (bounded) until the gateway answers.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(`${endpoint}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: "cHJvYmU=" }) });
      if (response.ok) break;
    } catch {}
    if (attempt > 100) {
      stop();
      throw new Error(`etcd did not start on ${endpoint} within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint, stop };
}
