// Parts of the page that mount late (widgets and the code editor, loaded
// when they come near the screen) must not be skipped by a keyboard user
// who tabs faster than they load. A placeholder is a tab stop that mounts at
// once when it gets the focus, and the focus, if it was in the placeholder
// when the real thing replaced it, moves into the real thing instead of
// falling to the page's body.

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [contenteditable="true"], [tabindex]:not([tabindex="-1"])';

/** The first element in `root` that Tab would reach, or null. */
export function firstFocusable(root) {
  for (const element of root.querySelectorAll(FOCUSABLE)) {
    if (element.closest("[hidden], details:not([open]) > :not(summary)")) continue;
    if (element.getClientRects().length > 0) return element;
  }
  return null;
}

/**
 * Makes `element` a tab stop while it is a placeholder (named by the
 * element `labelledBy`, when given), and calls `start()` the first time the
 * focus enters it. Returns `done()`, to call once the real content is in:
 * the placeholder's tab stop goes away.
 */
export function reachableWhileLoading(element, { labelledBy = null, start }) {
  const added = [];
  if (!firstFocusable(element)) {
    element.tabIndex = 0;
    added.push("tabindex");
    if (!element.hasAttribute("role")) {
      element.setAttribute("role", "group");
      added.push("role");
    }
    if (labelledBy && !element.hasAttribute("aria-labelledby")) {
      element.setAttribute("aria-labelledby", labelledBy);
      added.push("aria-labelledby");
    }
  }
  element.addEventListener("focusin", () => start(), { once: true });
  return () => {
    for (const name of added) element.removeAttribute(name);
  };
}

/**
 * Runs `mount()` (which replaces what is inside `element`); if the focus was
 * inside `element` just before, it moves to the first focusable part of what
 * was mounted.
 */
export function keepingFocus(element, mount) {
  const active = element.ownerDocument.activeElement;
  const hadFocus = active !== null && (active === element || element.contains(active));
  const result = mount();
  if (hadFocus) {
    const lost = element.ownerDocument.activeElement;
    if (lost === null || lost === element.ownerDocument.body || lost === element) (firstFocusable(element) ?? element).focus();
  }
  return result;
}

/** `fn`, callable any number of times, run only the first. */
export function once(fn) {
  let called = false;
  return (...args) => {
    if (called) return;
    called = true;
    fn(...args);
  };
}
