// The widget registry, read at build time: every folder of web/src/widgets
// with a widget.json is a widget, named after its folder. The checker
// (crates/content/build.rs) and the page's script (web/src/main.js) read the
// same folders, so a widget is added by adding its folder, nowhere else.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const WIDGETS_DIR = fileURLToPath(new URL("../src/widgets/", import.meta.url));
const FIELDS = { title: "string", intro: "string", waiting: "string" };

/** `{ name: { title, intro, waiting, wasm } }`, or an error naming the file and what to fix. */
export function readWidgets(dir = WIDGETS_DIR) {
  const widgets = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name, "widget.json");
    if (!existsSync(path)) continue;
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new Error(`${path}: not valid JSON (${error.message}); fix the syntax`);
    }
    for (const [field, type] of Object.entries(FIELDS)) {
      if (typeof manifest[field] !== type || manifest[field].trim() === "") throw new Error(`${path}: "${field}" must be a non-empty ${type}; write the widget's ${field}`);
    }
    if (manifest.wasm !== null && manifest.wasm !== "store") throw new Error(`${path}: "wasm" must be "store" (the page hands the store module to the mount function) or null`);
    if (!existsSync(join(dir, name, "view.js"))) throw new Error(`${join(dir, name)}: a widget needs view.js, exporting load() → its mount function`);
    widgets[name] = manifest;
  }
  return widgets;
}
