// The lesson's static server (web/serve.mjs): its options, the PORT and
// HOST environment variables, --help, bad values named, serving under a
// sub-path (--base) as a course's host would, and serving each byte once
// (gzip, ETags and 304s, immutable content-hashed names).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { parseServeArgs, serveStatic, UsageError } from "../web/serve.mjs";

const SERVE = fileURLToPath(new URL("../web/serve.mjs", import.meta.url));
const defaults = { root: "web/dist", port: 8080, host: "127.0.0.1", base: "/" };

const cases = [
  ["nothing: the defaults", [], {}, defaults],
  ["PORT and HOST from the environment", [], { PORT: "9000", HOST: "0.0.0.0" }, { ...defaults, port: 9000, host: "0.0.0.0" }],
  ["flags win over the environment", ["--port", "9100", "--host", "::1"], { PORT: "9000", HOST: "0.0.0.0" }, { ...defaults, port: 9100, host: "::1" }],
  ["a flag wins even over a PORT that is not a port", ["--port", "9100"], { PORT: "eighty" }, { ...defaults, port: 9100 }],
  ["--flag=value", ["--port=0", "--root=elsewhere"], {}, { ...defaults, port: 0, root: "elsewhere" }],
  ["an empty PORT is no PORT", [], { PORT: "" }, defaults],
  ["--base, its final slash added", ["--base", "/course/leaselab"], {}, { ...defaults, base: "/course/leaselab/" }],
  ["--help", ["--port", "1", "--help"], {}, { help: true }],
];
for (const [what, argv, env, expected] of cases) {
  test(`serve options: ${what}`, () => assert.deepEqual(parseServeArgs(argv, env), expected));
}

const refusals = [
  [["--port", "http"], {}, /--port must be a port number from 0 to 65535, got "http"/],
  [["--port", "65536"], {}, /--port must be a port number/],
  [[], { PORT: "eighty" }, /the PORT environment variable must be a port number from 0 to 65535, got "eighty"/],
  [["--host"], {}, /--host needs a value/],
  [["--verbose"], {}, /unknown option "--verbose"/],
  [["--base", "course/leaselab/"], {}, /--base must be a path from the site's root, like \/ or \/course\/leaselab\/.*got "course\/leaselab\/"/],
  [["--base", "/course/../etc/"], {}, /--base must be a path from the site's root/],
];
for (const [argv, env, message] of refusals) {
  test(`serve options: ${JSON.stringify(argv)} ${JSON.stringify(env)} is refused, saying why`, () => {
    assert.throws(() => parseServeArgs(argv, env), (error) => error instanceof UsageError && message.test(error.message));
  });
}

test("node web/serve.mjs --help prints its usage and exits 0; a bad option exits 2 with one line", () => {
  const help = spawnSync("node", [SERVE, "--help"], { encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: node web\/serve\.mjs/);
  assert.match(help.stdout, /PORT and HOST environment variables/);
  const bad = spawnSync("node", [SERVE, "--port", "x"], { encoding: "utf8", env: { ...process.env, PORT: "" } });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
  assert.match(bad.stderr, /--port must be a port number/);
});

test("a --root that is missing or not a folder exits 1 with one line saying what to do, instead of serving 404s", () => {
  for (const [root, why] of [["/nonexistent-leaselab-root", /there is no such folder/], [SERVE, /it is not a folder/]]) {
    const result = spawnSync("node", [SERVE, "--root", root, "--port", "0"], { encoding: "utf8", env: { ...process.env, PORT: "" }, timeout: 20_000 });
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.match(result.stderr, why);
    assert.match(result.stderr, /npm start builds and serves it/);
  }
});

test("the server listens on the port and address PORT and HOST name", async () => {
  const { spawn } = await import("node:child_process");
  const child = spawn("node", [SERVE, "--root", fileURLToPath(new URL("../web/static", import.meta.url))], { env: { ...process.env, PORT: "0", HOST: "127.0.0.1" } });
  try {
    const line = await new Promise((resolve, reject) => {
      child.stdout.once("data", (data) => resolve(String(data)));
      child.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
    });
    const url = /served at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)?.[1];
    assert.ok(url, line);
    const response = await fetch(`${url}style.css`);
    assert.equal(response.status, 200);
  } finally {
    child.kill();
  }
});

test("under --base, the folder is served at the sub-path only; the sub-path without its slash redirects to it", async () => {
  const root = fileURLToPath(new URL("../web/static", import.meta.url));
  const { server, url } = await serveStatic({ root, base: "/course/leaselab/" });
  try {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/course\/leaselab\/$/);
    assert.equal((await fetch(`${url}style.css`)).status, 200);
    const origin = new URL(url).origin;
    assert.equal((await fetch(`${origin}/style.css`)).status, 404);
    const bare = await fetch(`${origin}/course/leaselab?x=1`, { redirect: "manual" });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get("location"), "/course/leaselab/?x=1");
    assert.equal((await fetch(`${url}..%2f..%2fpackage.json`)).status, 403);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A GET with the given request headers: `{ status, headers, body }` (the body as sent, not decompressed). */
function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
    }).once("error", reject);
  });
}

test("text goes gzip-compressed to a browser that takes it; every file has an ETag, and a reload that names it gets 304 with no body; a changed file a new ETag", async () => {
  const root = mkdtempSync(join(tmpdir(), "leaselab-serve-"));
  const script = "export const answer = 42;\n".repeat(200);
  writeFileSync(join(root, "main.js"), script);
  writeFileSync(join(root, "pixel.png"), Buffer.alloc(2_000, 7));
  const { server, url } = await serveStatic({ root });
  try {
    const plain = await get(`${url}main.js`);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined, "no compression unless the browser asks for it");
    assert.equal(plain.body.toString(), script);
    assert.equal(plain.headers.vary, "Accept-Encoding");

    const compressed = await get(`${url}main.js`, { "accept-encoding": "gzip, deflate" });
    assert.equal(compressed.headers["content-encoding"], "gzip");
    assert.ok(compressed.body.length < script.length / 10, `compressed: ${compressed.body.length} bytes of ${script.length}`);
    assert.equal(gunzipSync(compressed.body).toString(), script);
    assert.equal(Number(compressed.headers["content-length"]), compressed.body.length);
    assert.equal(compressed.headers["cache-control"], "no-cache", "asked about on every load, so a rebuild shows at the next reload");
    assert.ok(compressed.headers.etag && compressed.headers.etag !== plain.headers.etag, "each form has its own ETag");
    assert.equal((await get(`${url}main.js`, { "accept-encoding": "gzip;q=0" })).headers["content-encoding"], undefined, "gzip refused with q=0 is not sent");

    const reload = await get(`${url}main.js`, { "accept-encoding": "gzip", "if-none-match": compressed.headers.etag });
    assert.equal(reload.status, 304);
    assert.equal(reload.body.length, 0, "a reload downloads nothing again");

    const image = await get(`${url}pixel.png`, { "accept-encoding": "gzip" });
    assert.equal(image.headers["content-encoding"], undefined, "images are not compressed again");
    assert.ok(image.headers.etag);

    writeFileSync(join(root, "main.js"), `${script}// changed\n`);
    utimesSync(join(root, "main.js"), new Date(), new Date(Date.now() + 5_000));
    const changed = await get(`${url}main.js`, { "accept-encoding": "gzip", "if-none-match": compressed.headers.etag });
    assert.equal(changed.status, 200, "a rebuilt file is sent again");
    assert.notEqual(changed.headers.etag, compressed.headers.etag);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  }
});

test("files named by a hash of their content (the packed grader, esbuild's chunks) are immutable: a reload does not even ask", async () => {
  const root = mkdtempSync(join(tmpdir(), "leaselab-serve-"));
  writeFileSync(join(root, "leaselab_bg.0123456789abcdef.wasm.gz"), gzipSync(Buffer.alloc(5_000, 1)));
  writeFileSync(join(root, "chunk-66XCQDWY.js"), "export const x = 1;\n".repeat(50));
  writeFileSync(join(root, "grader-worker.js"), "export const y = 2;\n".repeat(50));
  const { server, url } = await serveStatic({ root });
  try {
    const grader = await get(`${url}leaselab_bg.0123456789abcdef.wasm.gz`, { "accept-encoding": "gzip" });
    assert.equal(grader.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(grader.headers["content-type"], "application/gzip");
    assert.equal(grader.headers["content-encoding"], undefined, "packed already: sent as it is, for the page to unpack");
    assert.equal((await get(`${url}chunk-66XCQDWY.js`)).headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal((await get(`${url}grader-worker.js`)).headers["cache-control"], "no-cache", "a name without a hash may change");
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  }
});
