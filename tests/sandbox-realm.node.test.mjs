// The sealed realm: after the prelude, nothing the learner's code can reach
// (the global object, the intrinsics no global names, and everything the
// harness hands over) is writable or extensible; and freezing does not break
// ordinary code (the override mistake is tamed). Walked in the engine, from
// inside a submission graded through `gradeSource`.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadNodeEngines } from "../runner/node/engines.js";
import { gradeSource } from "../runner/grade.js";

const LESSON = new URL("../exercises/ownership-election/", import.meta.url);
const solution = (exercise) => readFileSync(new URL(`${exercise}/solution.js`, LESSON), "utf8");

let engines;
before(async () => {
  engines = await loadNodeEngines();
});

// A walk written as learner code would be: from its roots, breadth first
// and keys sorted, every object reachable through own properties (values,
// getters, setters) and prototypes, each named by the first path that
// reaches it. It returns the path of each object that is not frozen, how
// many objects it reached, the path of every property a learner can reach
// ("globalThis.Array.fromAsync", "globalThis.Map.prototype.size<get>"; not
// the properties of the accessor functions themselves), and every accessor
// with a setter, as [path, owner, descriptor].
const WALK = `(roots) => {
  const unfrozen = [];
  const paths = [];
  const setters = [];
  const seen = new Set();
  const queue = roots.map(([path, value]) => [path, value]);
  const order = (a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);
  while (queue.length > 0) {
    const [path, value] = queue.shift();
    if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
    seen.add(value);
    if (!Object.isFrozen(value)) unfrozen.push(path);
    const ofAccessor = /<[gs]et>/.test(path);
    for (const key of Reflect.ownKeys(value).sort(order)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      const name = path + "." + String(key);
      if ("value" in descriptor) {
        if (!ofAccessor) paths.push(name);
        queue.push([name, descriptor.value]);
        continue;
      }
      if (!ofAccessor) paths.push(name + (descriptor.get ? "<get>" : "") + (descriptor.set ? "<set>" : ""));
      if (descriptor.get) queue.push([name + "<get>", descriptor.get]);
      if (descriptor.set) {
        queue.push([name + "<set>", descriptor.set]);
        setters.push([name, value, descriptor]);
      }
    }
    queue.push([path + ".<prototype>", Object.getPrototypeOf(value)]);
  }
  return { unfrozen, reached: seen.size, paths, setters };
}`;

// Every root a learner can name, including the intrinsics no global names.
const ROOTS = `[
  ["globalThis", globalThis],
  ["%ArrayIteratorPrototype%", Object.getPrototypeOf([][Symbol.iterator]())],
  ["%MapIteratorPrototype%", Object.getPrototypeOf(new Map()[Symbol.iterator]())],
  ["%SetIteratorPrototype%", Object.getPrototypeOf(new Set()[Symbol.iterator]())],
  ["%StringIteratorPrototype%", Object.getPrototypeOf(""[Symbol.iterator]())],
  ["%RegExpStringIteratorPrototype%", Object.getPrototypeOf(/a/[Symbol.matchAll]("a"))],
  ["%GeneratorFunction%", Object.getPrototypeOf(function* () {}).constructor],
  ["%AsyncFunction%", Object.getPrototypeOf(async function () {}).constructor],
  ["%AsyncGeneratorFunction%", Object.getPrototypeOf(async function* () {}).constructor],
  ["%GeneratorPrototype%", Object.getPrototypeOf(Object.getPrototypeOf((function* () {})()))],
  ["%AsyncGeneratorPrototype%", Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()))],
  ["%TypedArray%", Object.getPrototypeOf(Int8Array)],
  ["%ThrowTypeError%", Object.getOwnPropertyDescriptor((function () { "use strict"; return arguments; })(), "callee").get],
  ["console", console],
  ...(typeof [].values().map === "function" ? [["%IteratorHelperPrototype%", Object.getPrototypeOf([].values().map((x) => x))]] : []),
  ...(typeof Iterator === "function" ? [["%WrapForValidIteratorPrototype%", Object.getPrototypeOf(Iterator.from({ next: () => ({ done: true }) }))]] : []),
]`;

// Freezing makes every data property read-only, but an accessor's setter
// still runs: it must write only to the object it is called on, never to
// state the built-in (or the realm) keeps, or it is a way to change how the
// harness's code behaves, or to pass state from one process to another
// (QuickJS-ng's Error.prepareStackTrace and Error.stackTraceLimit were both).
// Each setter the walk found is called on a fresh object that inherits
// from its owner, with values of several types, and the owner's getter must
// read the same before and after. Returns the paths whose did not.
const SHARED_SETTERS = `({ setters }) => {
  const shared = [];
  const read = (get, owner) => { try { return { value: get.call(owner) }; } catch (error) { return { threw: true }; } };
  const same = (a, b) => (a.threw && b.threw) || (!a.threw && !b.threw && Object.is(a.value, b.value));
  for (const [name, owner, descriptor] of setters) {
    if (!descriptor.get) { shared.push(name + " (a setter without a getter)"); continue; }
    for (const value of [1234567, "probe", {}, () => 7, null]) {
      const before = read(descriptor.get, owner);
      try { descriptor.set.call(Object.create(owner), value); } catch {}
      if (!same(before, read(descriptor.get, owner))) { shared.push(name); break; }
    }
  }
  return { shared, setters: setters.length };
}`;

test("no setter a learner can reach writes state its built-in keeps (Error.prepareStackTrace, Error.stackTraceLimit)", async () => {
  const source = lockProbing(`  const { shared, setters } = (${SHARED_SETTERS})((${WALK})(${ROOTS}));
  if (shared.length > 0) throw new Error("setters that write shared state: " + shared.join(", "));
  if (setters <= 30) throw new Error("the probe found only " + setters + " setters");`);
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  assert.deepEqual(report.tests.filter((t) => t.status !== "passed").map((t) => t.message), []);
});

/** Statements that would change a built-in prototype: each must throw. */
const PROTOTYPE_CHANGES = [
  `Object.prototype.toString = () => "x"`,
  `Error.prototype.name = "x"`,
  `Object.getPrototypeOf([][Symbol.iterator]()).next = () => ({ done: true })`,
  `Promise.prototype.then = () => {}`,
  `Object.defineProperty(Object.prototype, "version", { set() {} })`,
];

/** The lock solution with `body` run first in `tryLock` (whose `ctx` is in scope): an unexpected realm fails the test by throwing. */
const lockProbing = (body) => {
  const source = solution("lock").replace(/export async function tryLock\(([^)]*)\) \{/, (line) => `${line}\n${body}`);
  assert.notEqual(source, solution("lock"));
  return source;
};

test("nothing reachable from the global object or a hidden intrinsic is unfrozen", async () => {
  const source = lockProbing(`  const { unfrozen, reached } = (${WALK})(${ROOTS});
  if (unfrozen.length > 0) throw new Error("unfrozen: " + unfrozen.join(", "));
  if (reached <= 300) throw new Error("the walk reached only " + reached + " objects");`);
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  assert.deepEqual(report.tests.filter((t) => t.status !== "passed").map((t) => t.message), []);
});

test("a built-in prototype itself cannot be changed", async () => {
  const source = lockProbing(PROTOTYPE_CHANGES.map((attempt) => `  try { ${attempt}; throw new Error(${JSON.stringify(`changed: ${attempt}`)}); } catch (error) { if (String(error.message).startsWith("changed: ")) throw error; }`).join("\n"));
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  assert.deepEqual(report.tests.filter((t) => t.status !== "passed").map((t) => t.message), []);
});

test("everything the harness hands to the learner's functions is frozen too", async () => {
  // tryLock walks its ctx and arguments; an unfrozen object fails the test by throwing.
  const source = solution("lock").replace(
    /export async function tryLock\(([^)]*)\) \{/,
    (line) => `const walk = ${WALK};\n${line}\n  const { unfrozen } = walk([["ctx", ctx]]);\n  if (unfrozen.length > 0) throw new Error("unfrozen: " + unfrozen.join(", "));`,
  );
  assert.notEqual(source, solution("lock"));
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  assert.deepEqual(report.tests.filter((t) => t.status !== "passed").map((t) => t.message), []);
});

test("freezing the built-ins leaves ordinary code working: Error subclasses that set their name, own toString", async () => {
  const source = `class LockError extends Error {
  constructor(message) { super(message); this.name = "LockError"; this.constructor = LockError; }
}
const described = { toString: null };
described.toString = () => "a lock";
described.valueOf = () => 1;
const failure = new LockError("x");
if (failure.name !== "LockError" || String(described) !== "a lock" || failure.toString() !== "LockError: x") throw new Error("override broken");
${solution("lock")}`;
  const report = await gradeSource(engines, { exercise: "lock", source, options: { seeds: 5 } });
  assert.deepEqual(report.problems, []);
  assert.equal(report.score, report.maxScore);
});

