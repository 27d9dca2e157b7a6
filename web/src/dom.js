// Tiny DOM helpers: build elements from a tag, attributes and children.

/**
 * `h("button", { class: "primary", onclick }, "Go")`. Attributes whose value
 * is `false`, `null` or `undefined` are left out; `true` sets an empty one.
 * Keys starting with "on" attach listeners.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

/** Replaces every child of `element` with `children`. */
export function replaceChildren(element, ...children) {
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
}

/** Formats virtual milliseconds for people: "850 ms", "2.35 s". */
export function formatMs(ms) {
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 2)} s`;
}
