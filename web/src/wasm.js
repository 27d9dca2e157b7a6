// Loads the wasm module once and hands out its exports.
//
// The URL is given explicitly so that the bundle finds `leaselab_bg.wasm`
// beside itself in web/dist, wherever the page is served from.
import init, { Store, buildVersion } from "../pkg/leaselab.js";

let loading = null;

/** Resolves to the module's exports once it is compiled and instantiated. */
export function loadWasm() {
  loading ??= init({ module_or_path: new URL("./leaselab_bg.wasm", import.meta.url) }).then(() => ({
    Store,
    buildVersion,
  }));
  return loading;
}
