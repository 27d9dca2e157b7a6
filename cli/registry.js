// The exercise registry for the CLI's main thread: which exercises exist,
// their files, the default budget and the grader's version, read once from
// the grader's wasm (crates/grader/src/registry.rs), as the page and the
// grading threads read it.
import { loadNodeRegistry } from "../runner/node/engines.js";

export const registry = await loadNodeRegistry();
