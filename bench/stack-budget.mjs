// How deep each kind of deep program goes before the host's native stack
// runs out, in the measure the engine's stack budget counts. Run by
// `cargo xtask stack-budget`, which builds the probe build this reads
// (`node bench/stack-budget.mjs <its pkg folder> [chromium flags…]`).
//
// The probe build lowers the stack pointer on entry to each C function by
// an estimate of its native frame (xtask's host_stack) and records the
// lowest value; its shadow stack is large enough that QuickJS's own check
// never fires. So each program is run deeper and deeper until the host
// itself gives up (a RangeError out of the module), and the measure just
// before that is what the budget must stay below.
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const pkg = process.argv[2];
if (!pkg) {
  console.error("usage: node bench/stack-budget.mjs <probe build's pkg folder> (cargo xtask stack-budget)");
  process.exit(2);
}

/** Each deep program, as a module whose top-level code goes `depth` deep. */
const PROGRAMS = {
  recursion: (depth) => `function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } export const x = f(${depth});`,
  asyncRecursion: (depth) => `async function f(n) { return n === 0 ? 0 : 1 + await f(n - 1); } export const x = await f(${depth});`,
  generators: (depth) => `function* g(n) { if (n > 0) yield* g(n - 1); else yield 1; } export const x = [...g(${depth})];`,
  superCalls: (depth) => `let C = class { constructor() { this.v = 1; } }; for (let i = 0; i < ${depth}; i++) { const B = C; C = class extends B { constructor() { super(); } }; } export const x = new C().v;`,
  getters: (depth) => `let o = {}; for (let i = 0; i < ${depth}; i++) { const inner = o; o = { get y() { return inner.y; } }; } export const x = o.y;`,
  toPrimitive: (depth) => `let o = 1; for (let i = 0; i < ${depth}; i++) { const inner = o; o = { [Symbol.toPrimitive]() { return +inner; } }; } export const x = +o;`,
  sortCallbacks: (depth) => `function f(n) { return n === 0 ? 0 : [2, 1].sort(() => f(n - 1)) && 0; } export const x = f(${depth});`,
  boundFunctions: (depth) => `let f = function () { return 1; }; for (let i = 0; i < ${depth}; i++) f = f.bind(null); export const x = f();`,
  parentheses: (depth) => `export const x = ${"(".repeat(depth)}1${")".repeat(depth)};`,
  arrayLiterals: (depth) => `export const x = ${"[".repeat(depth)}${"]".repeat(depth)};`,
  evalArrays: (depth) => `export const x = eval("${"[".repeat(depth)}${"]".repeat(depth)}");`,
  jsonStringify: (depth) => `let v = []; for (let i = 0; i < ${depth}; i++) v = [v]; export const x = JSON.stringify(v);`,
  jsonParse: (depth) => `export const x = JSON.parse("${"[".repeat(depth)}${"]".repeat(depth)}");`,
  arrayToString: (depth) => `let v = []; for (let i = 0; i < ${depth}; i++) v = [v]; export const x = String(v);`,
  arrayFlat: (depth) => `let v = [1]; for (let i = 0; i < ${depth}; i++) v = [v]; export const x = v.flat(Infinity);`,
  proxyGet: (depth) => `let p = {}; for (let i = 0; i < ${depth}; i++) p = new Proxy(p, {}); export const x = p.y;`,
  proxyHas: (depth) => `let p = {}; for (let i = 0; i < ${depth}; i++) p = new Proxy(p, {}); export const x = "y" in p;`,
  proxyKeys: (depth) => `let p = {}; for (let i = 0; i < ${depth}; i++) p = new Proxy(p, {}); export const x = Object.keys(p);`,
  proxyStringify: (depth) => `let p = []; for (let i = 0; i < ${depth}; i++) p = new Proxy(p, {}); export const x = JSON.stringify(p);`,
  prototypeProxies: (depth) => `let p = {}; for (let i = 0; i < ${depth}; i++) p = Object.create(new Proxy(p, {})); export const x = p.y;`,
};

/** Grades `source` in the probe build; `{ outcome, measured }`, measured in bytes below the stack's top. */
const PROBE = String.raw`
const LIMITS = { stackBytes: 60 * 1024 * 1024, stepBudget: 100000, runBudget: 1000000, jobBudget: 1000000, wallMs: 120000 };
const TRIVIAL = "export async function tryLock() { return null; } export async function lock() { return { version: 1 }; } export async function unlock() { return true; }";
function probe(glue, source) {
  glue.stackProbeReset();
  glue.gradeInEngine("lock", TRIVIAL, "lock.js", { seeds: 0 }, LIMITS);
  const top = glue.stackProbeLowest();
  glue.stackProbeReset();
  let outcome;
  try {
    glue.gradeInEngine("lock", source, "lock.js", { seeds: 0 }, LIMITS);
    outcome = "ran";
  } catch (error) {
    outcome = error instanceof RangeError ? "host stack overflow" : "threw " + String(error?.message ?? error).slice(0, 80);
  }
  return { outcome, measured: top - glue.stackProbeLowest() };
}`;

/** Deeper and deeper, then halving the gap: the deepest run that passed and the first that overflowed. */
async function boundary(run) {
  let passed = null;
  let failed = null;
  let depth = 16;
  while (failed === null && depth < 4_000_000) {
    const result = { depth, ...(await run(depth)) };
    if (result.outcome === "host stack overflow") failed = result;
    else {
      passed = result;
      depth *= 2;
    }
  }
  while (failed && passed && failed.depth - passed.depth > Math.max(2, passed.depth / 200)) {
    const depthBetween = Math.floor((passed.depth + failed.depth) / 2);
    const result = { depth: depthBetween, ...(await run(depthBetween)) };
    if (result.outcome === "host stack overflow") failed = result;
    else passed = result;
  }
  return { passed, failed };
}

async function inChromium(flags) {
  const worker = `import * as glue from "./leaselab.js";
${PROBE}
const ready = glue.default({ module_or_path: new URL("./leaselab_bg.wasm", import.meta.url) });
self.onmessage = async (event) => { await ready; self.postMessage(probe(glue, event.data)); };`;
  const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://localhost").pathname;
    const body = path === "/worker.js" ? worker : path === "/" ? "<!doctype html><title>stack budget</title>" : readFileSync(join(pkg, path));
    response.writeHead(200, { "content-type": types[path.slice(path.lastIndexOf("."))] ?? "text/html" });
    response.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const browser = await chromium.launch({
    executablePath: process.env.LEASELAB_CHROMIUM || "/usr/bin/chromium-headless-shell",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", ...flags],
  });
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  // A fresh worker for each run: one the host's stack ran out in is left mid-call.
  const run = (source) =>
    page.evaluate(
      (source) =>
        new Promise((resolve) => {
          const worker = new Worker("./worker.js", { type: "module" });
          worker.onmessage = (event) => {
            worker.terminate();
            resolve(event.data);
          };
          worker.onerror = (event) => {
            worker.terminate();
            resolve({ outcome: `worker error: ${event.message}`, measured: 0 });
          };
          worker.postMessage(source);
        }),
      source,
    );
  return { run, close: async () => (await browser.close(), server.close()) };
}

/**
 * Node's main thread, a fresh process for each run: a run whose host stack
 * ran out leaves the module mid-call (its stack pointer down), so it is
 * never used again.
 */
async function inNode() {
  const script = `import { readFileSync } from "node:fs";
import * as glue from ${JSON.stringify(pathToFileURL(join(pkg, "leaselab.js")).href)};
${PROBE}
glue.initSync({ module: readFileSync(${JSON.stringify(join(pkg, "leaselab_bg.wasm"))}) });
process.stdout.write(JSON.stringify(probe(glue, readFileSync(0, "utf8"))));`;
  const scratch = mkdtempSync(join(tmpdir(), "leaselab-stack-budget-"));
  const file = join(scratch, "probe.mjs");
  writeFileSync(file, script);
  const run = async (source) => {
    const child = spawnSync(process.execPath, [file], { input: source, encoding: "utf8", maxBuffer: 1 << 20 });
    try {
      return JSON.parse(child.stdout);
    } catch {
      return { outcome: `the probe process failed: ${child.stderr.slice(0, 200)}`, measured: 0 };
    }
  };
  return { run, close: async () => rmSync(scratch, { recursive: true, force: true }) };
}

const HOSTS = {
  "Node, main thread": () => inNode(),
  "Chromium worker": () => inChromium([]),
  "Chromium worker, baseline compiler only": () => inChromium(["--js-flags=--liftoff-only"]),
  "Chromium worker, optimising compiler only": () => inChromium(["--js-flags=--no-liftoff"]),
};

const kib = (bytes) => `${Math.round(bytes / 1024)} KiB`;
let smallest = null;
for (const [hostName, open] of Object.entries(HOSTS)) {
  const host = await open();
  console.log(`\n${hostName}: the deepest run before the host's stack ran out`);
  for (const [name, program] of Object.entries(PROGRAMS)) {
    const { passed, failed } = await boundary((depth) => host.run(program(depth)));
    if (!failed) {
      console.log(`  ${name.padEnd(18)} no overflow up to depth ${passed?.depth}`);
      continue;
    }
    const perLevel = Math.round(passed.measured / passed.depth);
    console.log(`  ${name.padEnd(18)} depth ${String(passed.depth).padStart(7)}  measure ${kib(passed.measured).padStart(9)}  (${perLevel} bytes a level)`);
    if (hostName.startsWith("Chromium") && (smallest === null || passed.measured < smallest.measured)) smallest = { host: hostName, name, ...passed };
  }
  await host.close();
}
if (smallest) {
  console.log(`\nsmallest in Chromium: ${kib(smallest.measured)} (${smallest.name}, ${smallest.host}); the engine's budget must stay well below it`);
}
