// Loads the wasm module once and hands out its exports.
//
// The URL is given explicitly so that the bundle finds `leaselab_store_bg.wasm`
// beside itself in web/dist, wherever the page is served from (and compiled
// whatever MIME type the host sends: runner/wasm-fetch.js). This is the
// small store-only module; the grader's module loads only in the runner's worker.
import init, { Store, buildVersion, fencingRaceRun, fencingRaceSettings } from "../pkg/leaselab_store.js";
import { compileWasm } from "../../runner/wasm-fetch.js";

let loading = null;

/** Resolves to the module's exports once it is compiled and instantiated. */
export function loadWasm() {
  loading ??= init({ module_or_path: compileWasm(new URL("./leaselab_store_bg.wasm", import.meta.url)) })
    .then(() => ({
      Store,
      buildVersion,
      fencingRaceRun,
      fencingRaceSettings,
    }))
    .catch((error) => {
      // Forgotten, so a widget that tries again (the network is back) downloads it again.
      loading = null;
      throw error;
    });
  return loading;
}
