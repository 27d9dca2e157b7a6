// A small static file server for the built lesson (web/dist).
//
// Why not a package: it is forty lines, it must send `application/wasm` so
// browsers can stream-compile the module, and it must never serve a file
// outside its root. Used by `cargo xtask serve` and by the browser tests.
//
//   node web/serve.mjs --root web/dist --port 8080
//   (--port 0 picks a free port; the first line printed is the URL)

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const MIME_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".ico": "image/x-icon",
};

/** Starts serving `root`; resolves to `{ server, url }` once listening. */
export function serveStatic({ root, port = 0, host = "127.0.0.1" }) {
  const rootDir = resolve(root);
  const server = createServer(async (request, response) => {
    try {
      const { pathname } = new URL(request.url, "http://localhost");
      let path = normalize(join(rootDir, decodeURIComponent(pathname)));
      if (path !== rootDir && !path.startsWith(rootDir + sep)) {
        response.writeHead(403).end("forbidden");
        return;
      }
      if ((await stat(path).catch(() => null))?.isDirectory()) path = join(path, "index.html");
      const body = await readFile(path);
      response.writeHead(200, {
        "content-type": MIME_TYPES[extname(path)] ?? "application/octet-stream",
        "cache-control": "no-cache",
      });
      response.end(request.method === "HEAD" ? undefined : body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found");
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: actualPort } = server.address();
      resolvePromise({ server, url: `http://${host}:${actualPort}/` });
    });
  });
}

function parseArgs(argv) {
  const options = { root: "web/dist", port: 8080 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--root" && value) options.root = value;
    else if (flag === "--port" && /^\d+$/.test(value ?? "")) options.port = Number(value);
    else {
      console.error(`unknown or incomplete option ${flag}; usage: node web/serve.mjs --root DIR --port N`);
      process.exit(2);
    }
  }
  return options;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = parseArgs(process.argv.slice(2));
  try {
    const { url } = await serveStatic(options);
    console.log(`leaselab is served at ${url} (Ctrl-C stops it)`);
  } catch (error) {
    const hint = error.code === "EADDRINUSE" ? `; port ${options.port} is taken, try --port ${options.port + 1}` : "";
    console.error(`cannot serve ${options.root}: ${error.message}${hint}`);
    process.exit(1);
  }
}
