// A small static file server for the built lesson (web/dist).
//
// Why not a package: it is a page of code, it must send `application/wasm`
// so browsers can stream-compile a module, and it must never serve a file
// outside its root. Used by `cargo xtask serve` and by the browser tests.
//
// It serves as a good static host does, so a slow link pays for each byte
// once: text gzip-compressed when the browser accepts it, every file with an
// ETag (a hash of its bytes) so a reload asks "changed?" and gets 304 Not
// Modified instead of the file again, and files whose names carry a hash of
// their content (the packed grader `leaselab_bg.<hash>.wasm.gz`, esbuild's
// `chunk-<HASH>.js`) marked immutable, so a reload does not even ask.
// Everything else is `no-cache`: asked about on every load, so a rebuild
// under `npm start` shows at the next reload.
// `--base` serves the folder under a sub-path, as a course's web server or
// GitHub Pages (https://user.github.io/repo/) would, to try the static site
// (`cargo xtask site`) where it will live.
//
//   node web/serve.mjs --root web/dist --port 8080
//   node web/serve.mjs --root dist/site --base /course/leaselab/
//   (--port 0 picks a free port; the first line printed is the URL)
//   PORT=9000 HOST=0.0.0.0 node web/serve.mjs   (as most dev servers; flags win)
//   node web/serve.mjs --help

import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { gzipSync } from "node:zlib";
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
  ".gz": "application/gzip",
};

/** Types worth compressing; images and archives (the packed grader is gzip already) are not. */
const COMPRESSIBLE = /^(text\/|application\/(javascript|json|wasm)|image\/svg\+xml)/;

/** Names that carry a hash of the content: the packed grader and esbuild's chunks. Such a file never changes. */
const CONTENT_HASHED = /(\.[0-9a-f]{16}\.wasm\.gz|-[A-Z0-9]{8}\.js(\.map)?)$/;

const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * A file as served: its bytes, its gzip form (made on first need) and their
 * ETags, kept while the file's size and modification time stay the same
 * (`npm start` rebuilds web/dist under the server).
 */
const served = new Map();

async function servedFile(path) {
  const info = await stat(path);
  const known = served.get(path);
  if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
  const body = await readFile(path);
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 22);
  const file = { mtimeMs: info.mtimeMs, size: info.size, body, etag: `"${hash}"`, gzip: null, gzipEtag: `"${hash}-gzip"` };
  served.set(path, file);
  return file;
}

/** Whether the request's Accept-Encoding takes gzip (and does not refuse it with q=0). */
function acceptsGzip(request) {
  return String(request.headers["accept-encoding"] ?? "")
    .split(",")
    .some((part) => {
      const [name, ...params] = part.trim().toLowerCase().split(";");
      return (name === "gzip" || name === "*") && !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
    });
}

/** Whether the request's If-None-Match names `etag` (or `*`). */
function stillFresh(request, etag) {
  const header = request.headers["if-none-match"];
  if (!header) return false;
  return header.split(",").some((tag) => {
    const plain = tag.trim().replace(/^W\//, "");
    return plain === "*" || plain === etag;
  });
}

/**
 * Starts serving `root` at the path `base` (`/`, or a sub-path such as
 * `/course/leaselab/`); resolves to `{ server, url }` once listening, `url`
 * ending in `base`. `types` overrides the MIME type per extension
 * (`{ ".wasm": "application/octet-stream" }` plays a host that does not know wasm).
 */
export function serveStatic({ root, port = 0, host = "127.0.0.1", base = "/", types = {} }) {
  const rootDir = resolve(root);
  const prefix = parseBase(base, "base");
  const server = createServer(async (request, response) => {
    try {
      const { pathname, search } = new URL(request.url, "http://localhost");
      // Relative URLs resolve against the folder only when the address ends in "/",
      // so a folder asked for without it is redirected, as static hosts do.
      if (`${pathname}/` === prefix) {
        response.writeHead(301, { location: `${prefix}${search}` }).end();
        return;
      }
      if (!pathname.startsWith(prefix)) {
        response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found: this server serves the lesson under ${prefix}`);
        return;
      }
      let path = normalize(join(rootDir, decodeURIComponent(pathname.slice(prefix.length - 1))));
      if (path !== rootDir && !path.startsWith(rootDir + sep)) {
        response.writeHead(403).end("forbidden");
        return;
      }
      if ((await stat(path).catch(() => null))?.isDirectory()) {
        if (!pathname.endsWith("/")) {
          response.writeHead(301, { location: `${pathname}/${search}` }).end();
          return;
        }
        path = join(path, "index.html");
      }
      const file = await servedFile(path);
      const type = types[extname(path)] ?? MIME_TYPES[extname(path)] ?? "application/octet-stream";
      const compressible = COMPRESSIBLE.test(type) && file.size > 256;
      const gzip = compressible && acceptsGzip(request);
      if (gzip) file.gzip ??= gzipSync(file.body, { level: 9 });
      const etag = gzip ? file.gzipEtag : file.etag;
      const headers = {
        "content-type": type,
        "cache-control": CONTENT_HASHED.test(path) ? IMMUTABLE : "no-cache",
        etag,
        ...(compressible ? { vary: "Accept-Encoding" } : {}),
      };
      if (stillFresh(request, etag)) {
        response.writeHead(304, headers).end();
        return;
      }
      const body = gzip ? file.gzip : file.body;
      response.writeHead(200, { ...headers, ...(gzip ? { "content-encoding": "gzip" } : {}), "content-length": body.length });
      response.end(request.method === "HEAD" ? undefined : body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found");
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: actualPort } = server.address();
      resolvePromise({ server, url: `http://${host}:${actualPort}${prefix}` });
    });
  });
}

export const USAGE = `usage: node web/serve.mjs [--root DIR] [--port N] [--host ADDRESS] [--base PATH]

Serves the built lesson (web/dist; build it with \`npm run build\`).

  --root DIR       the folder to serve (default: web/dist; dist/site is the
                   static site that \`cargo xtask site\` writes)
  --base PATH      serve it under this path, as a host would at
                   https://example.org/course/leaselab/ (default: /)
  --port N         the port, 0 to 65535; 0 picks a free one (default: $PORT, else 8080)
  --host ADDRESS   the address to listen on (default: $HOST, else 127.0.0.1;
                   0.0.0.0 serves other machines too)
  --check          check the options and exit (cargo xtask serve does, before it builds)
  -h, --help       print this and exit

The PORT and HOST environment variables set the port and the address, as for
most development servers; --port and --host win over them.
`;

/** A command line that cannot be used: its message says what to change. */
export class UsageError extends Error {}

const PORT_MAX = 65_535;

/** A base path as "/" or "/a/b/" (a missing final slash is added), or a UsageError. */
export function parseBase(text, where) {
  const withSlash = String(text).endsWith("/") ? String(text) : `${text}/`;
  if (!/^\/([A-Za-z0-9._~-]+\/)*$/.test(withSlash) || /\/\.{1,2}\//.test(withSlash)) {
    throw new UsageError(`${where} must be a path from the site's root, like / or /course/leaselab/ (letters, digits and . _ ~ - between slashes); got ${JSON.stringify(String(text))}`);
  }
  return withSlash;
}

function parsePort(text, where) {
  if (!/^\d{1,5}$/.test(text ?? "") || Number(text) > PORT_MAX) throw new UsageError(`${where} must be a port number from 0 to ${PORT_MAX}, got ${JSON.stringify(text ?? "")}`);
  return Number(text);
}

/**
 * The server's options from its arguments and the environment:
 * `{ root, port, host }`, or `{ help: true }`. Throws a UsageError.
 */
export function parseServeArgs(argv, env = {}) {
  const options = { root: "web/dist", port: 8080, host: "127.0.0.1", base: "/" };
  const given = new Set();
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === "--help" || flag === "-h") return { help: true };
    if (flag === "--check") {
      options.check = true;
      continue;
    }
    const [name, inline] = flag.startsWith("--") && flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined];
    if (!["--root", "--port", "--host", "--base"].includes(name)) throw new UsageError(`unknown option ${JSON.stringify(flag)}`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") throw new UsageError(`${name} needs a value`);
    given.add(name);
    if (name === "--root") options.root = value;
    else if (name === "--base") options.base = parseBase(value, "--base");
    else if (name === "--port") options.port = parsePort(value, "--port");
    else options.host = value;
  }
  // The environment only where no flag was given: a flag wins, even over a PORT that is not a port.
  if (!given.has("--port") && env.PORT !== undefined && env.PORT !== "") options.port = parsePort(env.PORT, "the PORT environment variable");
  if (!given.has("--host") && env.HOST !== undefined && env.HOST !== "") options.host = env.HOST;
  return options;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  let options;
  try {
    options = parseServeArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`web/serve.mjs: ${error.message} (node web/serve.mjs --help lists the options)`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (options.check) process.exit(0);
  // A root that is not there would answer every page with a bare 404.
  const root = await stat(options.root).catch(() => null);
  if (!root?.isDirectory()) {
    console.error(`cannot serve ${options.root}: ${root ? "it is not a folder" : "there is no such folder"}; build the lesson first (npm start builds and serves it), or give --root the folder to serve`);
    process.exit(1);
  }
  try {
    const { url } = await serveStatic(options);
    console.log(`leaselab is served at ${url} (Ctrl-C stops it)`);
  } catch (error) {
    const hint = error.code === "EADDRINUSE" ? `; port ${options.port} is taken, try --port ${options.port + 1}` : error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" ? `; ${options.host} is not an address of this machine, try --host 127.0.0.1` : "";
    console.error(`cannot serve ${options.root}: ${error.message}${hint}`);
    process.exit(1);
  }
}
