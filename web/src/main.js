// The page's entry: finds every widget placeholder (`data-widget="name"`)
// and mounts the widget there, loading the wasm module only when a widget
// needs it. The text of the page is plain HTML and reads without scripts.
import { loadWasm } from "./wasm.js";

/** Widget name → a loader returning its mount function. Code-split per widget. */
const WIDGETS = {
  "cas-playground": () => import("./widgets/cas-playground/view.js").then((module) => module.mountCasPlayground),
};

async function mountWidget(element) {
  const name = element.dataset.widget;
  const load = WIDGETS[name];
  if (!load) {
    element.textContent = `Unknown widget "${name}".`;
    return;
  }
  try {
    const [mount, wasm] = await Promise.all([load(), loadWasm()]);
    mount(element, wasm);
    element.dataset.ready = "true";
  } catch (error) {
    console.error(error);
    element.replaceChildren();
    const message = document.createElement("p");
    message.className = "widget-error";
    message.setAttribute("role", "alert");
    message.textContent = `This interactive part could not start (${error.message}). Reload the page; if it persists, your browser may not support WebAssembly.`;
    element.append(message);
  }
}

for (const element of document.querySelectorAll("[data-widget]")) mountWidget(element);
