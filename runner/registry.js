// The exercise registry, as every JavaScript host reads it: which exercises
// exist, the file each is graded as, its exports, how the runner drives it,
// its store key, its lab run, its rules and tests, the default budget and
// the grader's version. The one source is the Rust grader
// (crates/grader/src/registry.rs), exported by the wasm's
// `exerciseRegistry()`; nothing here keeps a list of its own.

const cache = new WeakMap();

function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

/**
 * The registry of a loaded leaselab wasm module (`engines.leaselab`), parsed
 * once per module: `{ graderVersion, defaults: { firstSeed, seeds,
 * shrinkAttemptsMax, crashShrinkAttemptsMax }, exercises: [...], names,
 * exercise(name), byFile(file) }`.
 */
export function registryOf(leaselab) {
  let registry = cache.get(leaselab);
  if (!registry) {
    registry = makeRegistry(JSON.parse(leaselab.exerciseRegistry()));
    cache.set(leaselab, registry);
  }
  return registry;
}

/**
 * Remembers `json` as the registry of `leaselab`: the module's registry
 * section, which the build wrote from this module's own
 * `exerciseRegistry()` (runner/node/engines.js), so `registryOf` need not
 * ask the module again (5–17 ms of a grading thread's start in Node,
 * the module's code still cold).
 */
export function rememberRegistry(leaselab, json) {
  if (!cache.has(leaselab)) cache.set(leaselab, registryFromJson(json));
}

/** The same registry from `exerciseRegistry()`'s JSON text, read without the module (runner/node/engines.js). */
export function registryFromJson(json) {
  return makeRegistry(JSON.parse(json));
}

function makeRegistry(data) {
  const { graderVersion, defaults, exercises } = deepFreeze(data);
  const names = Object.freeze(exercises.map((exercise) => exercise.name));
  return Object.freeze({
    graderVersion,
    defaults,
    exercises,
    names,
    /** The entry called `name`; throws a message listing the exercises if there is none. */
    exercise(name) {
      const found = exercises.find((exercise) => exercise.name === name);
      if (!found) throw new Error(`there is no exercise named ${JSON.stringify(name)}; the exercises are ${names.join(", ")}`);
      return found;
    },
    /** The entry whose learner file is `fileName` (e.g. "lock.js"), or null. */
    byFile(fileName) {
      return exercises.find((exercise) => exercise.file === fileName) ?? null;
    },
  });
}
