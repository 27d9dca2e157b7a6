// The grader's WebAssembly module, fetched and compiled once per page load,
// on the page, and handed compiled to every grading worker (client.js).
//
// One download, not one per worker: each worker used to fetch its own copy,
// four on a 4-core laptop. The page starts it when an exercise comes near
// (mount.js), streams it, and compiles it while the bytes arrive.
//
// The build ships the module gzip-compressed under a name that carries its
// hash (`leaselab_bg.<hash>.wasm.gz`, web/build/grader-wasm.mjs), and names it
// in a `<meta name="leaselab-grader">` with its sizes. So the bytes cross the
// network compressed on any static host, even one that compresses nothing,
// and a host may cache it forever. The page unpacks it with the browser's
// own `DecompressionStream` on its way into `WebAssembly.compileStreaming`.
// A host that marks the `.gz` file as gzip-encoded has the browser unpack it
// instead: the first bytes tell which (gzip's magic number or wasm's).
//
// What happens is observable, for the "Run tests" status line: `subscribe`
// hears `{ phase, receivedBytes, totalBytes, message }` with phase
// "idle", "downloading", "compiling", "ready", "offline" (the network failed:
// it tries again when the browser says it is back online, and after a
// growing pause) or "failed" (the file is missing or broken: no retry helps).

const GZIP_MAGIC = [0x1f, 0x8b];
/** Pauses before trying again after a network failure, in milliseconds; the last repeats. */
const RETRY_AFTER_MS = [2_000, 5_000, 10_000, 30_000];

/** A failure to get the grader that the network explains: it will be retried. */
export class GraderNetworkError extends Error {
  constructor(message) {
    super(message);
    this.name = "GraderNetworkError";
  }
}

let state = { phase: "idle", receivedBytes: 0, totalBytes: null, message: null };
const listeners = new Set();
/** The compiled module once it is in, else null. */
let compiled = null;
/** The download under way, or null. */
let loading = null;
/** Callers waiting for the module through failures and retries: settled once it is in, or once it cannot be. */
let waiting = null;
let retries = 0;
let retryTimer = null;

function set(next) {
  state = { ...state, ...next };
  for (const listener of listeners) listener(state);
}

/** Hears every change of the loading's state (and the state now, at once). Returns the unsubscribe. */
export function subscribe(listener) {
  listeners.add(listener);
  listener(state);
  return () => listeners.delete(listener);
}

/**
 * Resolves once no download of the grader is under way (at once when none
 * is). Other downloads that can wait (a widget near an exercise) wait for
 * it: on a slow link they would share its bandwidth and delay the verdict
 * the learner asked for.
 */
export function graderQuiet() {
  const busy = (phase) => phase === "downloading" || phase === "compiling";
  if (!busy(state.phase)) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = (now) => {
      if (busy(now.phase)) return;
      listeners.delete(listener);
      resolve();
    };
    listeners.add(listener);
  });
}

/** The loading's state now (a copy). */
export function graderModuleState() {
  return { ...state };
}

/** The compiled module if it is in already, else null (no download starts). */
export function graderModuleNow() {
  return compiled;
}

/** Where the build put the module, and its sizes, as the page's `<meta name="leaselab-grader">` says. */
function source() {
  const meta = globalThis.document?.querySelector('meta[name="leaselab-grader"]');
  if (!meta) return null;
  return {
    url: new URL(meta.getAttribute("content"), document.baseURI),
    gzipBytes: Number(meta.dataset.gzipBytes) || null,
    wasmBytes: Number(meta.dataset.wasmBytes) || null,
  };
}

/**
 * Resolves to the compiled module, downloading it now if nobody has yet.
 * Through network failures it keeps trying (the state says "offline" meanwhile);
 * it rejects only when no retry can help: the file is missing or is not a module.
 */
export function graderModule() {
  if (compiled) return Promise.resolve(compiled);
  if (!waiting) {
    let resolve;
    let reject;
    const promise = new Promise((yes, no) => {
      resolve = yes;
      reject = no;
    });
    waiting = { promise, resolve, reject };
    attempt();
  }
  return waiting.promise;
}

/** Starts the download ahead of need (an exercise came near); nothing waits for it. */
export function prefetchGraderModule() {
  graderModule().catch(() => {});
}

function attempt() {
  if (loading || compiled) return;
  clearTimeout(retryTimer);
  retryTimer = null;
  performance.mark?.("leaselab:grader-download");
  loading = download()
    .then((module) => {
      performance.mark?.("leaselab:grader-ready");
      compiled = module;
      set({ phase: "ready", message: null });
      waiting?.resolve(module);
      waiting = null;
    })
    .catch((error) => {
      if (error instanceof GraderNetworkError) {
        set({ phase: "offline", message: error.message });
        scheduleRetry();
        return;
      }
      set({ phase: "failed", message: error.message });
      waiting?.reject(error);
      waiting = null;
    })
    .finally(() => {
      loading = null;
    });
}

function scheduleRetry() {
  const pauseMs = RETRY_AFTER_MS[Math.min(retries, RETRY_AFTER_MS.length - 1)];
  retries += 1;
  retryTimer = setTimeout(attempt, pauseMs);
}

// The browser says the connection is back: try at once rather than at the next pause.
globalThis.addEventListener?.("online", () => {
  if (state.phase === "offline") attempt();
});

async function download() {
  const where = source();
  if (!where) throw new Error("this page names no grader (its <meta name=\"leaselab-grader\"> is missing); rebuild the page with `npm run build`");
  if (typeof DecompressionStream !== "function") throw new Error("this browser cannot unpack the grader (it lacks DecompressionStream); use a current Chrome, Edge, Firefox or Safari");
  set({ phase: "downloading", receivedBytes: 0, totalBytes: where.gzipBytes, message: null });
  let response;
  try {
    response = await fetch(where.url);
  } catch {
    throw offline();
  }
  if (!response.ok) {
    throw new Error(`the grader's file ${where.url.pathname.split("/").pop()} could not be downloaded (the server answered ${response.status}); whoever hosts the lesson must publish the whole built folder`);
  }
  let sniffed;
  try {
    sniffed = await sniff(countBytes(response.body));
  } catch {
    throw offline();
  }
  const { stream, gzipped } = sniffed;
  // Unpacked by the browser already (the host sent it gzip-encoded): count against the module's own size.
  if (!gzipped) set({ totalBytes: where.wasmBytes });
  const wasm = gzipped ? stream.pipeThrough(new DecompressionStream("gzip")) : stream;
  try {
    return await WebAssembly.compileStreaming(new Response(wasm, { headers: { "content-type": "application/wasm" } }));
  } catch (error) {
    // A connection that drops half-way fails the stream, and so the compilation.
    if (networkFailed) throw offline();
    throw new Error(`the grader's file could not be compiled (${error.message}); rebuild the page with \`npm run build\``);
  }
}

let networkFailed = false;

function offline() {
  const down = globalThis.navigator?.onLine === false;
  return new GraderNetworkError(down ? "this browser is offline" : "the connection to the lesson's server failed");
}

/** `body` as it arrives, reporting each chunk's bytes; a failure of the network is noted for `download`. */
function countBytes(body) {
  networkFailed = false;
  let received = 0;
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        networkFailed = true;
        controller.error(error);
        return;
      }
      if (chunk.done) {
        controller.close();
        // The bytes are in; what remains is compiling the last of them.
        set({ phase: "compiling" });
        return;
      }
      received += chunk.value.byteLength;
      set({ receivedBytes: received });
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Reads the stream's first bytes to tell gzip from wasm; resolves to the same bytes as a stream, and which it is. */
async function sniff(stream) {
  const reader = stream.getReader();
  const head = [];
  let headBytes = 0;
  while (headBytes < 2) {
    const chunk = await reader.read();
    if (chunk.done) break;
    head.push(chunk.value);
    headBytes += chunk.value.byteLength;
  }
  const first = head.flatMap((chunk) => [...chunk.subarray(0, 2)]).slice(0, 2);
  const gzipped = first[0] === GZIP_MAGIC[0] && first[1] === GZIP_MAGIC[1];
  const replayed = new ReadableStream({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
    },
    async pull(controller) {
      const chunk = await reader.read().catch((error) => {
        controller.error(error);
        return null;
      });
      if (chunk === null) return;
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { stream: replayed, gzipped };
}

/** "0.4 of 0.9 MB": what a learner reads while the grader downloads. */
export function downloadProgressText({ receivedBytes, totalBytes }) {
  const mb = (bytes) => (bytes / 1_000_000).toFixed(1);
  return totalBytes ? `${mb(Math.min(receivedBytes, totalBytes))} of ${mb(totalBytes)} MB` : `${mb(receivedBytes)} MB`;
}
